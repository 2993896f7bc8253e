import math

import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
from conformance.specs.primitives import WGSL_ACCURACY, X, declared


def special_values(dtype: str, params: dict) -> list:
    """atan(+-1) = +-pi/4, and arguments large enough that atan is pi/2 in the tensor type."""
    big = [v for v in (1e4, 1e8, 1e30) if v <= float(np.finfo(dtype).max)]
    return neighbours([1.0, -1.0], dtype) + big + [-v for v in big]


HALF_PI = float(np.nextafter(np.float32(math.pi / 2), np.float32(4)))  # pi / 2, rounded up to float32


def d3d(params: dict):
    """No Direct3D figure exists for atan; WGSL's: 4096 ULP (f32), 5 ULP (f16)."""
    return declared("atan", X, np.arctan, WGSL_ACCURACY, ulp={"float32": 4096, "float16": 5}, monotone="increasing",
                    bounds=(-HALF_PI, HALF_PI))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ATAN",
    struct="DML_ELEMENT_WISE_ATAN_OPERATOR_DESC",
    formula="f(x) = atan(x), x first mapped by ScaleBias if present",
    summary="Computes the arctangent of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for atan: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 5, "float16": 2},
    onnx_route="Atan (opset 7)",
    to_onnx=one_node("Atan", 7),
    special_values=special_values,
    d3d=d3d,
    keeps_sign=True,
    output_range=lambda params, dtype: (-HALF_PI, HALF_PI),
    source=page("DML_ELEMENT_WISE_ATAN_OPERATOR_DESC"),
)
