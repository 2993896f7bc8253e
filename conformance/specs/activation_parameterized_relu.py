from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, Input, NotReachable, OnnxNode, OperatorSpec, SupportTable,
                                    arithmetic_specials, page, wrap)
from conformance.specs.primitives import X, input_, select

STRUCT = "DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if dtype in ("int16", "int8"):
        raise NotReachable("ONNX PRelu has no INT16 or INT8 type")
    return OnnxNode("PRelu", 16)


SPEC = OperatorSpec(
    name="ACTIVATION_PARAMETERIZED_RELU",
    struct=STRUCT,
    formula="f(x, slope) = x if x >= 0, else slope * x",
    summary="A parameterized ReLU: each element of InputTensor below zero is multiplied by its slope.",
    parameters=(),
    inputs=(Input("InputTensor"), Input("SlopeTensor", role="slope", aliases_output=False)),
    introduced="1_0",
    tables=(SupportTable("5_1", ONE_TO_EIGHT, FLOATS + ("int32", "int16", "int8")),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("2_0", (4, 5), FLOATS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints="InputTensor, OutputTensor, and SlopeTensor must have the same DataType, DimensionCount, and Sizes.",
    tolerance_ulp={"float32": 1, "float16": 1},  # WebNN: prelu 1 / 1
    onnx_route="PRelu (opset 16: FLOAT32, FLOAT16, INT32); not reachable for INT16 and INT8",
    to_onnx=to_onnx,
    d3d=lambda p: select(X >= 0.0, X, input_("Slope") * X),
    special_values=arithmetic_specials,
    source=page(STRUCT),
    notes=("x = -0 is not below zero: the result is -0. NaN x: slope * NaN = NaN.",
           "Integers (the page is silent on overflow): slope * x wraps (two's complement).",
           "The page: the output may alias InputTensor in place (not SlopeTensor)."),
    integers=lambda params, dtype: lambda x, slope: x if x >= 0 else wrap(slope * x, dtype),
)
