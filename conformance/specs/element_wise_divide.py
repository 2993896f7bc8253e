from conformance.specs.base import (A_B, ALL_TYPES, FLOATS, ONE_TO_EIGHT, SAME_TYPES_A_B, OperatorSpec, SupportTable,
                                    arithmetic_specials, one_node, page, wrap)
from conformance.specs.primitives import A, B


def integers(params: dict, dtype: str):
    """a / b truncated toward zero (the page); INT_MIN / -1 wraps; b = 0 is left undefined by the page
    (the oracle gives 0 and no case divides an integer by zero)."""
    def divide(a: int, b: int) -> int:
        if b == 0:
            return 0
        quotient = abs(a) // abs(b)
        return wrap(quotient if (a < 0) == (b < 0) else -quotient, dtype)
    return divide


SPEC = OperatorSpec(
    name="ELEMENT_WISE_DIVIDE",
    struct="DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC",
    formula="f(a, b) = a / b (integer divisions truncated)",
    summary="Computes the quotient of each element of ATensor over the corresponding element of BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="1_0",
    tables=(SupportTable("6_0", ONE_TO_EIGHT, ALL_TYPES),
            SupportTable("5_1", ONE_TO_EIGHT, FLOATS + ("int32", "int16", "int8", "uint32", "uint16", "uint8")),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + ("int32", "uint32")),
            SupportTable("2_1", (4,), FLOATS + ("int32", "uint32")),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 2, "float16": 2},  # WebNN: div 2 / 2
    onnx_route="Div (opset 14: every type of the page)",
    to_onnx=one_node("Div", 14),
    d3d=lambda p: A / B,  # a * rcp(b): HLSL's float division
    special_values=arithmetic_specials,
    source=page("DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC"),
    notes=("Integer division truncates toward zero (the page). Where it is silent: INT_MIN / -1 wraps "
           "to INT_MIN; division of an integer by zero is not defined, and no case asks for it.",
           "Float division by +-0: +-inf by the signs, 0 / 0 NaN (IEEE; a * rcp(b) agrees).",
           "The page: OutputTensor may alias one of the inputs in place."),
    integers=integers,
)
