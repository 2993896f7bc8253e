import math

import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
from conformance.specs.primitives import WGSL_ACCURACY, X, declared


def special_values(dtype: str, params: dict) -> list:
    """The ends of the domain [-1, 1], one step inside and outside, and acos's steep end near 1."""
    return neighbours([1.0, -1.0, 0.5, -0.5, 1.0 - 2.0 ** -10], dtype)


PI = float(np.nextafter(np.float32(math.pi), np.float32(4)))  # pi, rounded up to float32


def d3d(params: dict):
    """No Direct3D figure exists for acos; WGSL's: absolute error 6.77e-5 (f32), 3.91e-3 (f16).
    (WGSL grants the worse of that and atan2's 4096 ULP; the absolute figure alone is taken.)"""
    return declared("acos", X, np.arccos, WGSL_ACCURACY, abs_error={"float32": 6.77e-5, "float16": 3.91e-3},
                    monotone="decreasing", bounds=(0.0, PI))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ACOS",
    struct="DML_ELEMENT_WISE_ACOS_OPERATOR_DESC",
    formula="f(x) = acos(x), x first mapped by ScaleBias if present",
    summary="Computes the arccosine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for acos: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Acos (opset 7)",
    to_onnx=one_node("Acos", 7),
    special_values=special_values,
    d3d=d3d,
    output_range=lambda params, dtype: (0.0, PI),
    source=page("DML_ELEMENT_WISE_ACOS_OPERATOR_DESC"),
    notes=("NaN outside [-1, 1] (C99).",),
)
