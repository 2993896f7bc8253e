import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
from conformance.specs.primitives import X, log


def special_values(dtype: str, params: dict) -> list:
    """+-1 (atanh = +-inf), one step inside (large finite) and outside (NaN), and small arguments."""
    return neighbours([1.0, -1.0, 0.5, -0.5], dtype) + [1e-4, -1e-4]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ATANH",
    struct="DML_ELEMENT_WISE_ATANH_OPERATOR_DESC",
    formula="f(x) = atanh(x) = ln((1 + x) / (1 - x)) / 2, x first mapped by ScaleBias if present",
    summary="Computes the hyperbolic arctangent of every element.",
    parameters=(SCALE_BIAS,),
    introduced="2_0",
    tables=float_tables("2_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for atanh: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 5, "float16": 2},
    onnx_route="Atanh (opset 9)",
    to_onnx=one_node("Atanh", 9),
    special_values=special_values,
    d3d=lambda p: log((1.0 + X) / (1.0 - X)) * 0.5,  # the page's formula
    keeps_sign=True,
    source=page("DML_ELEMENT_WISE_ATANH_OPERATOR_DESC"),
    notes=("+-inf at +-1 and NaN beyond (C99); the page gives ln((1 + x) / (1 - x)) / 2 as the "
           "definition.",),
)
