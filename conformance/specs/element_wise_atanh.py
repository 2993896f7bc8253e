import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SIZES, SCALE_BIAS, OperatorSpec,
                                    SupportTable, neighbours, onnx_same_input)
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
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("2_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SIZES,
    # No WebNN ULP tolerance for atanh: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 5, "float16": 2},
    onnx_route="Atanh (opset 9)",
    to_onnx=onnx_same_input("Atanh", 9),
    special_values=special_values,
    d3d=lambda p: log((1.0 + X) / (1.0 - X)) * 0.5,  # the page's formula
    keeps_sign=True,
    source="https://learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_element_wise_atanh_operator_desc",
    notes=("+-inf at +-1 and NaN beyond (C99); the page gives ln((1 + x) / (1 - x)) / 2 as the "
           "definition.",),
)
