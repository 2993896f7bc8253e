import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.element_wise_sin import cos, sin
from conformance.specs.primitives import X

STRUCT = "DML_ELEMENT_WISE_TAN_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """pi/2 in the tensor type and its neighbours (the largest tangents), pi/4 (tan = 1), pi (near 0),
    tiny arguments and large ones (argument reduction)."""
    half_pi = np.array(np.pi / 2, dtype)
    values = [float(half_pi), float(np.nextafter(half_pi, half_pi - 1)), float(np.nextafter(half_pi, half_pi + 1)),
              float(np.array(np.pi / 4, dtype)), float(np.array(np.pi, dtype)), 1e-4, 100.0, 2.0 ** 11]
    return values + [-v for v in values]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_TAN",
    struct=STRUCT,
    formula="f(x) = tan(x), x first mapped by ScaleBias if present",
    summary="The trigonometric tangent of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 5, "float16": 2},
    onnx_route="Tan (opset 7)",
    to_onnx=one_node("Tan", 7),
    special_values=special_values,
    d3d=lambda p: sin(X) / cos(X),
    source=page(STRUCT),
    notes=("WebNN judges tan by an absolute error (1/1024 float32, 1/512 float16), which a ULP tolerance "
           "cannot state; the ULP figures are OpenCL's (5 ULP float, 2 ULP half). Vulkan, WGSL and the "
           "WebGPU CTS inherit tan's accuracy from sin(x) / cos(x).",),
)
