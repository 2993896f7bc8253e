import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node,
                                    page)
from conformance.specs.primitives import OPENCL_ACCURACY, X, declared
from oracle.element_wise_erf import erf


def special_values(dtype: str, params: dict) -> list:
    """Where erf reaches +-1 in the type, and small arguments (erf(x) ~ 2x / sqrt(pi))."""
    return [3.0, -3.0, 3.9, -3.9, 4.0, -4.0, 6.0, -6.0, 1e-4, -1e-4, 1e-30, -1e-30]


def d3d(params: dict):
    """No Direct3D or WGSL figure exists for erf; OpenCL's full profile: 16 ULP (float), 4 (half)."""
    return declared("erf", X, erf, OPENCL_ACCURACY, ulp={"float32": 16, "float16": 4}, monotone="increasing",
                    bounds=(-1.0, 1.0))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ERF",
    struct="DML_ELEMENT_WISE_ERF_OPERATOR_DESC",
    formula="f(x) = 2 / sqrt(pi) * integral from 0 to x of exp(-t^2) dt, x first mapped by ScaleBias "
            "if present",
    summary="Computes the Gaussian error function of every element.",
    parameters=(SCALE_BIAS,),
    introduced="2_0",
    tables=float_tables("2_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for erf: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 16, "float16": 4},
    onnx_route="Erf (opset 13)",
    to_onnx=one_node("Erf", 13),
    special_values=special_values,
    d3d=d3d,
    keeps_sign=True,
    output_range=lambda params, dtype: (-1.0, 1.0),
    source=page("DML_ELEMENT_WISE_ERF_OPERATOR_DESC"),
)
