import math

import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
from conformance.specs.primitives import WGSL_ACCURACY, X, declared


def special_values(dtype: str, params: dict) -> list:
    """The ends of the domain [-1, 1], one step inside and outside, asin's steep ends, and inputs
    smaller than WGSL's absolute error (where an approximation may get the sign wrong)."""
    small = [1e-5, -1e-5, 1e-6, -1e-6]
    return neighbours([1.0, -1.0, 0.5, -0.5, 1.0 - 2.0 ** -10, -1.0 + 2.0 ** -10], dtype) + small


HALF_PI = float(np.nextafter(np.float32(math.pi / 2), np.float32(4)))  # pi / 2, rounded up to float32


def d3d(params: dict):
    """No Direct3D figure exists for asin; WGSL's: absolute error 6.81e-5 (f32), 3.91e-3 (f16).
    (WGSL grants the worse of that and atan2's 4096 ULP; the absolute figure alone is taken.)"""
    return declared("asin", X, np.arcsin, WGSL_ACCURACY, abs_error={"float32": 6.81e-5, "float16": 3.91e-3},
                    monotone="increasing", bounds=(-HALF_PI, HALF_PI))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ASIN",
    struct="DML_ELEMENT_WISE_ASIN_OPERATOR_DESC",
    formula="f(x) = asin(x), x first mapped by ScaleBias if present",
    summary="Computes the arcsine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for asin: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Asin (opset 7)",
    to_onnx=one_node("Asin", 7),
    special_values=special_values,
    d3d=d3d,
    keeps_sign=True,
    output_range=lambda params, dtype: (-HALF_PI, HALF_PI),
    source=page("DML_ELEMENT_WISE_ASIN_OPERATOR_DESC"),
    notes=("NaN outside [-1, 1] (C99).",),
)
