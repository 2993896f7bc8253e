from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, SupportTable,
                                    one_node, page, saturate, scaled_integers, wrap)
from conformance.specs.primitives import X, abs_

SIGNED_32 = ("int32", "int16", "int8")


def integers(params: dict, dtype: str):
    """|x| wrapping in two's complement (|INT_MIN| = INT_MIN, the documented choice); with ScaleBias,
    |x * Scale + Bias| truncated and saturated."""
    scaled = scaled_integers(params, dtype)
    if scaled is None:
        return lambda x: wrap(abs(x), dtype)
    return lambda x: saturate(abs(scaled(x)), dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ABS",
    struct="DML_ELEMENT_WISE_ABS_OPERATOR_DESC",
    formula="f(x) = abs(x), x first mapped by ScaleBias if present",
    summary="Computes the absolute value of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, FLOATS + ("int64",) + SIGNED_32),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + SIGNED_32),
            SupportTable("2_1", (4,), FLOATS + SIGNED_32),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 0, "float16": 0},  # WebNN: abs 0 / 0
    onnx_route="Abs (opset 13); the DirectML EP sends unsigned types to ELEMENT_WISE_IDENTITY instead",
    to_onnx=one_node("Abs", 13),
    d3d=lambda p: abs_(X),
    source=page("DML_ELEMENT_WISE_ABS_OPERATOR_DESC"),
    notes=("|INT_MIN| does not fit its type and the page is silent: the oracle wraps (two's complement, "
           "|INT_MIN| = INT_MIN), what a GPU's integer abs does.",
           "ScaleBias on an integer tensor (the page is silent): g(x) exact, truncated toward zero, "
           "|g| saturated to the type.",
           "No unsigned types on the page."),
    integers=integers,
)
