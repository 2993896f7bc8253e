import math

import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
from conformance.specs.primitives import X, exp


def special_values(dtype: str, params: dict) -> list:
    """Both sides of where exp overflows, goes subnormal and rounds to zero (below half the
    smallest subnormal)."""
    finfo = np.finfo(dtype)
    edges = (finfo.max, finfo.smallest_normal, float(finfo.smallest_subnormal) / 2)
    return neighbours([math.log(float(v)) for v in edges], dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_EXP",
    struct="DML_ELEMENT_WISE_EXP_OPERATOR_DESC",
    formula="f(x) = exp(x), x first mapped by ScaleBias if present",
    summary="Applies the natural exponential function to every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # WebNN's ULP tolerances (webnn/resources: exp 32 / 1, ceil and floor 0).
    tolerance_ulp={"float32": 32, "float16": 1},
    onnx_route="Exp (opset 13)",
    to_onnx=one_node("Exp", 13),
    special_values=special_values,
    d3d=lambda p: exp(X),  # HLSL: exp2(log2(e) * x)
    output_range=lambda params, dtype: (0.0, math.inf),
    source=page("DML_ELEMENT_WISE_EXP_OPERATOR_DESC"),
)
