import math

import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
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
    tables=float_tables("2_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for cosh: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Cosh (opset 9)",
    to_onnx=one_node("Cosh", 9),
    special_values=special_values,
    d3d=lambda p: (exp(X) + exp(-X)) * 0.5,  # WGSL and Vulkan inherit cosh's accuracy from this
    # cosh >= 1, but the lowering's exp2 error may give 1 - 2^-11 in half: only >= 0 holds whatever it does
    output_range=lambda params, dtype: (0.0, math.inf),
    source=page("DML_ELEMENT_WISE_COSH_OPERATOR_DESC"),
    notes=("cosh(x) is finite up to ln(2 FLT_MAX); (exp(x) + exp(-x)) / 2 taken literally overflows "
           "from ln(FLT_MAX) on.",),
)
