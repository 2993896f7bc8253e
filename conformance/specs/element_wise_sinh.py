import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.primitives import X, exp

STRUCT = "DML_ELEMENT_WISE_SINH_OPERATOR_DESC"


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
