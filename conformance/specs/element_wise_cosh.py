import math

import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SIZES, SCALE_BIAS, OperatorSpec,
                                    SupportTable, neighbours, onnx_same_input)
from conformance.specs.primitives import X, exp


def special_values(dtype: str, params: dict) -> list:
    """Both sides of where cosh overflows (ln(2 max)) and where exp(x) alone does (ln(max))."""
    most = float(np.finfo(dtype).max)
    edges = [math.log(2 * most), math.log(most)]
    return neighbours(edges + [-e for e in edges], dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_COSH",
    struct="DML_ELEMENT_WISE_COSH_OPERATOR_DESC",
    formula="f(x) = cosh(x), x first mapped by ScaleBias if present",
    summary="Computes the hyperbolic cosine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="2_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("2_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SIZES,
    # No WebNN ULP tolerance for cosh: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Cosh (opset 9)",
    to_onnx=onnx_same_input("Cosh", 9),
    special_values=special_values,
    d3d=lambda p: (exp(X) + exp(-X)) * 0.5,  # WGSL and Vulkan inherit cosh's accuracy from this
    output_range=lambda params, dtype: (1.0, math.inf),
    source="https://learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_element_wise_cosh_operator_desc",
    notes=("cosh(x) is finite up to ln(2 FLT_MAX); (exp(x) + exp(-x)) / 2 taken literally overflows "
           "from ln(FLT_MAX) on.",),
)
