from conformance.specs.base import (FLOATS, INTEGERS_32, ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec,
                                    SupportTable, one_node, page, saturate, scaled_integers)
from conformance.specs.primitives import X


def integers(params: dict, dtype: str):
    """x; with ScaleBias, x * Scale + Bias truncated and saturated."""
    scaled = scaled_integers(params, dtype)
    if scaled is None:
        return lambda x: x
    return lambda x: saturate(scaled(x), dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_IDENTITY",
    struct="DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC",
    formula="f(x) = x, x first mapped by ScaleBias if present",
    summary="Copies every element (the identity), often used to copy or re-stride a tensor.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ("float64",) + FLOATS + ("int64", "int32", "int16", "int8")
                         + ("uint64", "uint32", "uint16", "uint8")),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_1", (4, 5), FLOATS + INTEGERS_32),
            SupportTable("1_0", (4, 5), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 0, "float16": 0, "float64": 0},  # WebNN: identity 0 / 0
    onnx_route="Identity (opset 14)",
    to_onnx=one_node("Identity", 14),
    d3d=lambda p: X,  # a copy; with ScaleBias, the mad
    source=page("DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC"),
    notes=("ScaleBias on an integer tensor (the page is silent): g(x) exact, truncated toward zero, "
           "saturated to the type.",),
    integers=integers,
)
