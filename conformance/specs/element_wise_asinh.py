import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, neighbours,
                                    one_node, page)
from conformance.specs.primitives import X, log, sqrt


def special_values(dtype: str, params: dict) -> list:
    """Where x * x leaves the type's range (both signs), and small arguments where asinh(x) ~ x."""
    edge = float(np.sqrt(float(np.finfo(dtype).max)))
    return neighbours([edge, -edge], dtype) + [1e-4, -1e-4, 0.25, -0.25]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ASINH",
    struct="DML_ELEMENT_WISE_ASINH_OPERATOR_DESC",
    formula="f(x) = asinh(x) = ln(x + sqrt(x * x + 1)), x first mapped by ScaleBias if present",
    summary="Computes the hyperbolic arcsine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="2_0",
    tables=float_tables("2_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # No WebNN ULP tolerance for asinh: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Asinh (opset 9)",
    to_onnx=one_node("Asinh", 9),
    special_values=special_values,
    d3d=lambda p: log(X + sqrt(X * X + 1.0)),  # the page's formula
    keeps_sign=True,
    source=page("DML_ELEMENT_WISE_ASINH_OPERATOR_DESC"),
    notes=("The page gives ln(x + sqrt(x * x + 1)) as the definition; taken literally it cancels for "
           "negative x, where asinh(x) = -asinh(-x) does not.",),
)
