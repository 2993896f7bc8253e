import math

import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
from conformance.specs.primitives import X, abs_, declared, select


def special_values(dtype: str, params: dict) -> list:
    """Zeros of cos (pi/2, 3pi/2), pi, both sides of +-100 pi (the end of Direct3D's sincos
    accuracy range), and large arguments."""
    big = [v for v in (1e4, 1e6, 1e20) if v <= float(np.finfo(dtype).max)]
    edges = neighbours([100 * math.pi, -100 * math.pi], dtype)
    return [math.pi / 2, -math.pi / 2, math.pi, 3 * math.pi / 2] + edges + big + [-v for v in big]


SINCOS = ("Direct3D sincos (sm4 asm, learn.microsoft.com/windows/win32/direct3dhlsl/sincos--sm4---asm-): "
          "absolute error 0.0008 in [-100 pi, 100 pi], any value in [-1, 1] elsewhere; float16: WGSL's 2^-7")
RANGE = 100 * math.pi


def d3d(params: dict):
    """Direct3D's sincos: absolute error at most 0.0008 for |x| <= 100 pi, a value in [-1, 1]
    beyond (cos(+-inf) = NaN). In half, WGSL's 2^-7 (it states [-pi, pi]; taken on the same range).
    On [0, pi] cos(|x|) is decreasing: a flushed subnormal input then keeps a narrow interval."""
    accuracy = {"float32": 0.0008, "float16": 2.0 ** -7}
    first = declared("cos", abs_(X), np.cos, SINCOS, abs_error=accuracy, monotone="decreasing",
                     bounds=(-1.0, 1.0))
    near = declared("cos", X, np.cos, SINCOS, abs_error=accuracy, bounds=(-1.0, 1.0))
    far = declared("cos_beyond_100pi", X, np.cos, SINCOS, abs_error=2.0, bounds=(-1.0, 1.0))
    return select(abs_(X) > RANGE, far, select(abs_(X) < math.pi, first, near))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_COS",
    struct="DML_ELEMENT_WISE_COS_OPERATOR_DESC",
    formula="f(x) = cos(x), x in radians, first mapped by ScaleBias if present",
    summary="Computes the trigonometric cosine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for cos: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Cos (opset 7)",
    to_onnx=one_node("Cos", 7),
    special_values=special_values,
    d3d=d3d,
    output_range=lambda params, dtype: (-1.0, 1.0),
    source=page("DML_ELEMENT_WISE_COS_OPERATOR_DESC"),
    notes=("cos(+-inf) and cos(NaN) are NaN.",),
)
