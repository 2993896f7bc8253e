from conformance.specs.base import ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, OperatorSpec, SupportTable, one_node, page, wrap
from conformance.specs.primitives import X

STRUCT = "DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC"


def integers(params: dict, dtype: str):
    """-x wrapping in two's complement (-INT_MIN = INT_MIN, the documented choice)."""
    return lambda x: wrap(-x, dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_NEGATE",
    struct=STRUCT,
    formula="f(x) = -x",
    summary="Negates every element.",
    parameters=(),
    introduced="5_0",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, ("float32", "float16", "int64", "int32", "int16", "int8")),),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Neg (opset 13)",
    to_onnx=one_node("Neg", 13),
    d3d=lambda p: -X,
    keeps_sign=True,
    source=page(STRUCT),
    notes=("The page is silent on the most negative integer, whose negation does not fit: the harness "
           "expects two's complement wraparound, NEGATE(INT_MIN) = INT_MIN (what GPU integer negation "
           "gives); the integer_extremes cases report any other answer.",
           "-(+0) is -0 and -(-0) is +0; the ULP comparison does not tell the two zeros apart.",
           "ONNX Runtime's DirectML EP maps Neg to this operator; older versions used "
           "ELEMENT_WISE_IDENTITY with a ScaleBias of -1 for floats."),
    integers=integers,
)
