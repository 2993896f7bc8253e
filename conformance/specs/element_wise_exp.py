import math

import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SIZES, SCALE_BIAS, OperatorSpec,
                                    SupportTable, neighbours, onnx_same_input)
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
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SIZES,
    # WebNN's ULP tolerances (webnn/resources: exp 32 / 1, ceil and floor 0).
    tolerance_ulp={"float32": 32, "float16": 1},
    onnx_route="Exp (opset 13)",
    to_onnx=onnx_same_input("Exp", 13),
    special_values=special_values,
    d3d=lambda p: exp(X),  # HLSL: exp2(log2(e) * x)
    output_range=lambda params, dtype: (0.0, math.inf),
    source="https://learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_element_wise_exp_operator_desc",
)
