import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.primitives import X, sqrt

STRUCT = "DML_ELEMENT_WISE_SQRT_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """Perfect squares (exact results), 2 and 3 (irrational), the smallest normal and the
    subnormals below it, and negative inputs (NaN)."""
    finfo = np.finfo(dtype)
    return [4.0, 9.0, 0.25, 2.0, 3.0, float(finfo.smallest_normal) * 4, float(finfo.smallest_subnormal) * 4,
            float(finfo.max) / 4, -4.0, -float(finfo.smallest_subnormal)]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_SQRT",
    struct=STRUCT,
    formula="f(x) = sqrt(x), x first mapped by ScaleBias if present",
    summary="The square root of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 1, "float16": 1},
    onnx_route="Sqrt (opset 13)",
    to_onnx=one_node("Sqrt", 13),
    special_values=special_values,
    d3d=lambda p: sqrt(X),
    output_range=lambda params, dtype: (0.0, np.inf),
    source=page(STRUCT),
    notes=("sqrt(-0) is -0 and a negative input gives NaN (IEEE 754); the page does not say.",),
)
