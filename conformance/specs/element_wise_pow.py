import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, ONE_TO_EIGHT, SCALE_BIAS, Input, OnnxNode, OperatorSpec,
                                    SupportTable, page, scale_bias_not_reachable, wrap)
from conformance.specs.primitives import NAN, X, abs_, eq, floor, input_, pow_, select

STRUCT = "DML_ELEMENT_WISE_POW_OPERATOR_DESC"


def d3d(params: dict):
    """HLSL's pow, exp2(e * log2(x)), the sign handled for negative bases as the page says: an
    integral exponent takes |x| and restores the sign for odd ones; otherwise NaN. -0 is not below
    zero, so pow(-0, e) goes through log2(-0) = -inf."""
    exponent = input_("Exponent")
    magnitude = pow_(abs_(X), exponent)
    odd_or_even = select(eq(floor(exponent * 0.5), exponent * 0.5), magnitude, -magnitude)
    return select(X < 0.0, select(eq(floor(exponent), exponent), odd_or_even, NAN), pow_(X, exponent))


def integers(params: dict, dtype: str):
    """Exact integer powers, wrapped (the page: exact results for integral types; overflow is not
    mentioned); a negative exponent: 1 / x^-e truncated (1 and -1 keep a value); 0 to a negative
    power is not defined by the page (0 here, no case asks). None with ScaleBias."""
    if params.get("ScaleBias") is not None:
        return None

    def power(x: int, e: int) -> int:
        if e >= 0:  # x ** e modulo 2^bits: the extremes' powers are too large to form
            return wrap(pow(x, e, 1 << np.iinfo(dtype).bits), dtype)
        if x in (1, -1):
            return x ** (-e) if x == -1 else 1
        return 0
    return power


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    scale_bias_not_reachable(params)
    return OnnxNode("Pow", 15)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_POW",
    struct=STRUCT,
    formula="f(input, exponent) = pow(input, exponent), both inputs first mapped by ScaleBias if present; a "
            "negative base with a non-integral exponent gives NaN",
    summary="Raises each element of InputTensor to the power of the corresponding element of ExponentTensor.",
    parameters=(SCALE_BIAS,),
    inputs=(Input("InputTensor"), Input("ExponentTensor", role="exponent", aliases_output=False)),
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints="ExponentTensor, InputTensor, and OutputTensor must have the same DimensionCount and Sizes. "
                "InputTensor and OutputTensor must have the same DataType (until 3_0, ExponentTensor too).",
    tolerance_ulp={"float32": 32, "float16": 2},  # WebNN: pow 32 / 2
    onnx_route="Pow (opset 15) with the exponent a graph input of the base's type",
    to_onnx=to_onnx,
    d3d=d3d,
    source=page(STRUCT),
    notes=("Floats: C's pow in float64, rounded once, but for a negative base with a non-integral exponent "
           "(-inf included), which is NaN (the page); pow(+-0, e) keeps the sign of zero only for odd "
           "integral e. pow(x, 0) = 1 and pow(1, NaN) = 1 in C: the lowering gives NaN there (accepted and "
           "counted under d3d).",
           "Integers: exact (the page), wrapped where the power leaves the type (the page is silent); a "
           "negative exponent truncates 1 / x^-e; 0 to a negative power is not defined (no case asks).",
           "The page's table below 3_0 was not read in full: the 1_0 table here is 4-D FLOAT32/16 as "
           "CONSTANT_POW's; an exponent of another type than the base's (allowed from 3_0) is not tested.",
           "The page: OutputTensor may alias InputTensor in place (not ExponentTensor).",
           "ScaleBias: the page applies g(x) = x * scale + bias 'to each input element'; DirectML maps the "
           "exponent too, pow(g(input), g(exponent)), and so do the oracle and the d3d formula (an earlier "
           "reading, the input only, failed every ScaleBias case on lavapipe)."),
    integers=integers,
)
