from conformance.specs.base import (ALL_TYPES, FLOATS, INTEGERS_32, ONE_TO_EIGHT, Input, OnnxNode, OperatorSpec,
                                    SupportTable, page)
from conformance.specs.primitives import A, B, input_, ne, select

STRUCT = "DML_ELEMENT_WISE_IF_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Where", 16, input_types=("bool", dtype, dtype))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_IF",
    struct=STRUCT,
    formula="f(cond, a, b) = a if cond != 0, else b",
    summary="Selects each element from ATensor where ConditionTensor is non-zero, from BTensor where it is zero.",
    parameters=(),
    inputs=(Input("ConditionTensor", role="condition", aliases_output=False, dtype=lambda dtype: "uint8"),
            Input("ATensor"), Input("BTensor")),
    introduced="2_0",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, ("float64",) + ALL_TYPES),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_0", (4,), ("float16",))),
    in_place=False,
    constraints="ATensor, BTensor, ConditionTensor, and OutputTensor must have the same DimensionCount and Sizes. "
                "ATensor, BTensor, and OutputTensor must have the same DataType. ConditionTensor is UINT8.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},
    onnx_route="Where (opset 16: every type of the page), its condition bool: the harness feeds cond != 0, so "
               "ONNX Runtime's DirectML EP gives DirectML a condition of 0 and 1 only",
    to_onnx=to_onnx,
    d3d=lambda p: select(ne(input_("Condition"), 0.0), A, B),
    source=page(STRUCT),
    notes=("The case's data type is A's (and B's and the output's); the condition is always UINT8.",
           "Any non-zero condition selects A (the page: 'Non-zero elements of ConditionTensor select from "
           "ATensor'), so the cases feed conditions 2, 128 and 255 too.",
           "The page says nothing of in-place execution: none is asked for.",
           "A selection moves data: the float cases forbid flushing, and a NaN's payload is not checked "
           "(NaN compares as NaN).",
           "The 2_0 table has 4-D FLOAT16 only; FLOAT32 and the 8 to 32-bit integers come with 3_0 (1 to 8-D), "
           "FLOAT64 and the 64-bit integers with 5_0."),
    integers=lambda params, dtype: lambda cond, a, b: a if cond != 0 else b,
)
