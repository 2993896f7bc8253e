from conformance.specs.base import FLOATS, ONE_TO_EIGHT, Input, OperatorSpec, SupportTable, no_onnx, page
from conformance.specs.primitives import X, input_, select

STRUCT = "DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """Where the gate turns: +-0 and the smallest subnormals of each sign."""
    import numpy as np
    tiny = float(np.finfo(dtype).smallest_subnormal)
    return [0.0, -0.0, tiny, -tiny, 1.0, -1.0]


SPEC = OperatorSpec(
    name="ACTIVATION_RELU_GRAD",
    struct=STRUCT,
    formula="OutputGradientTensor = (X > 0 ? dY : 0), X = InputTensor, dY = InputGradientTensor",
    summary="The backpropagated gradient of ReLU: the incoming gradient where the input is above zero, else 0.",
    parameters=(),
    inputs=(Input("InputTensor"), Input("InputGradientTensor", role="gradient")),
    introduced="3_0",
    # The page lists a 4_0 table identical to 3_0's: it adds no requirement, so it is not repeated.
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),),
    in_place=False,
    constraints="InputGradientTensor, InputTensor, and OutputGradientTensor must have the same DataType, "
                "DimensionCount, and Sizes.",
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="not reachable: ONNX has no ReLU gradient operator (ONNX Runtime's ReluGrad is a training "
               "kernel the DirectML provider does not take)",
    to_onnx=no_onnx("ONNX has no operator that ONNX Runtime maps to ACTIVATION_RELU_GRAD"),
    d3d=lambda p: select(X > 0.0, input_("InputGradient"), 0.0),
    special_values=special_values,
    source=page(STRUCT),
    notes=("X = +-0 and NaN X give 0 (X > 0 is false); X a positive subnormal gives dY, or 0 where a "
           "float32 device flushes it (the flushed alternative).",
           "The page states no in-place execution: no case aliases the output."),
)
