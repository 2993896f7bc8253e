import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SIZES, SCALE_BIAS, OperatorSpec,
                                    SupportTable, neighbours, onnx_same_input)
from conformance.specs.primitives import X, ceil


def special_values(dtype: str, params: dict) -> list:
    """Halves (ceil(-0.5) = -0), and the last non-integers below 2^(mantissa bits)."""
    whole = 2.0 ** (np.finfo(dtype).nmant)
    return [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.25, 0.75] + neighbours([whole, -whole], dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_CEIL",
    struct="DML_ELEMENT_WISE_CEIL_OPERATOR_DESC",
    formula="f(x) = ceil(x), the smallest integer >= x; x first mapped by ScaleBias if present",
    summary="Computes the ceiling of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SIZES,
    # WebNN's ULP tolerances (webnn/resources: exp 32 / 1, ceil and floor 0).
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Ceil (opset 13)",
    to_onnx=onnx_same_input("Ceil", 13),
    special_values=special_values,
    d3d=lambda p: ceil(X),
    source="https://learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_element_wise_ceil_operator_desc",
    notes=("ceil(-0.5) is -0 (IEEE 754 roundToIntegralTowardPositive keeps the sign).",),
)
