import math

import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.primitives import LOG2_E, X, exp2, lift

STRUCT = "DML_ELEMENT_WISE_SINH_OPERATOR_DESC"
LOG2_E_LOW = float(np.float32(math.log2(math.e) - LOG2_E))  # what the float32 log2(e) lacks, about 2^-26


def exp(a):
    """HLSL's exp(a) = exp2(a * 1.442695f), with the float32 constant's shortfall added as a second
    product: the interval then holds both what that lowering gives and the exact exp. Beyond |a| of
    about 36 the shortfall moves exp2's argument further than exp2's 2^-21 covers."""
    a = lift(a)
    return exp2(LOG2_E * a + LOG2_E_LOW * a)


def special_values(dtype: str, params: dict) -> list:
    """Both overflow edges on both sides: where exp(x) overflows (a (exp(x) - exp(-x)) / 2 that
    overflows early) and where sinh itself does; and small arguments, where exp(x) - exp(-x)
    cancels."""
    biggest = float(np.finfo(dtype).max)
    values = []
    for edge in (np.log(biggest), np.arcsinh(biggest)):
        values += [edge * 0.999, edge * 0.9999, edge * 1.0001, edge * 1.001]
    values += [1e-3, 1e-2, 0.5, 1.0]
    return values + [-v for v in values]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_SINH",
    struct=STRUCT,
    formula="f(x) = sinh(x), x first mapped by ScaleBias if present",
    summary="The hyperbolic sine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="2_0",
    tables=float_tables("2_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Sinh (opset 9)",
    to_onnx=one_node("Sinh", 9),
    special_values=special_values,
    d3d=lambda p: (exp(X) - exp(-X)) * 0.5,
    source=page(STRUCT),
    notes=("WebNN has no sinh test; the ULP figures are OpenCL's (4 ULP float, 2 ULP half). Vulkan, WGSL "
           "and the WebGPU CTS inherit sinh's accuracy from (exp(x) - exp(-x)) * 0.5, which is far from "
           "ULP-accurate near 0.",
           "d3d: exp is HLSL's exp2(x * 1.442695f) plus x times the float32 log2(e)'s shortfall, so the "
           "interval also holds the exact sinh (without it, exact values above |x| = 36 fell just "
           "outside: x = 85.97, exact 1.0878009e37, interval top 1.0878006e37)."),
)
