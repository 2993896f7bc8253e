import math

import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SIZES, SCALE_BIAS, OperatorSpec,
                                    SupportTable, neighbours, onnx_same_input)
from conformance.specs.primitives import X, log, sqrt


def special_values(dtype: str, params: dict) -> list:
    """The domain's end 1 (NaN one step below), and where x * x leaves the type's range."""
    return neighbours([1.0, 1.5, float(np.sqrt(float(np.finfo(dtype).max)))], dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ACOSH",
    struct="DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC",
    formula="f(x) = acosh(x) = ln(x + sqrt(x * x - 1)), x first mapped by ScaleBias if present",
    summary="Computes the hyperbolic arccosine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="2_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("2_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SIZES,
    # No WebNN ULP tolerance for acosh: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Acosh (opset 9)",
    to_onnx=onnx_same_input("Acosh", 9),
    special_values=special_values,
    d3d=lambda p: log(X + sqrt(X * X - 1.0)),  # the page's formula
    output_range=lambda params, dtype: (0.0, math.inf),
    source="https://learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_element_wise_acosh_operator_desc",
    notes=("NaN below 1 (C99); the page gives ln(x + sqrt(x * x - 1)) as the definition.",),
)
