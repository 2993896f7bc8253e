from conformance.specs.base import (FLOATS, INTEGERS_32, ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, OperatorSpec,
                                    SupportTable, one_node, page)
from conformance.specs.primitives import X, select

STRUCT = "DML_ELEMENT_WISE_SIGN_OPERATOR_DESC"
ALL_TYPES = ("float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")


def integers(params: dict, dtype: str):
    """-1, 0 or 1."""
    return lambda x: (x > 0) - (x < 0)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_SIGN",
    struct=STRUCT,
    formula="f(x) = -1 if x < 0; 1 if x > 0; 0 otherwise (negative zero included)",
    summary="The sign of every element.",
    parameters=(),
    introduced="2_0",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ALL_TYPES),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_1", (4,), FLOATS + INTEGERS_32),
            SupportTable("2_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Sign (opset 13)",
    to_onnx=one_node("Sign", 13),
    d3d=lambda p: select(X < 0.0, -1.0, select(X > 0.0, 1.0, 0.0)),
    output_range=lambda params, dtype: (-1.0, 1.0),
    source=page(STRUCT),
    notes=("NaN is neither < 0 nor > 0, so the page's formula gives SIGN(NaN) = 0; ONNX's Sign and "
           "WebNN's sign give NaN, and ONNX Runtime's CPU provider is expected to differ there.",
           "A subnormal input may be flushed (Direct3D comparisons flush): SIGN then gives 0, which the "
           "flush rule accepts."),
    integers=integers,
)
