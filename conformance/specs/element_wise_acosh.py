import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
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
    tables=float_tables("2_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for acosh: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Acosh (opset 9)",
    to_onnx=one_node("Acosh", 9),
    special_values=special_values,
    d3d=lambda p: log(X + sqrt(X * X - 1.0)),  # the page's formula
    source=page("DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC"),
    notes=("NaN below 1 (C99); the page gives ln(x + sqrt(x * x - 1)) as the definition.",),
)
