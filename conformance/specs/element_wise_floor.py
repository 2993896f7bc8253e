import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SIZES, SCALE_BIAS, OperatorSpec,
                                    SupportTable, neighbours, onnx_same_input)
from conformance.specs.primitives import X, floor


def special_values(dtype: str, params: dict) -> list:
    """Halves, -0.25 (floor = -1), and the last non-integers below 2^(mantissa bits)."""
    whole = 2.0 ** (np.finfo(dtype).nmant)
    return [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.25, 0.25] + neighbours([whole, -whole], dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_FLOOR",
    struct="DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC",
    formula="f(x) = floor(x), the largest integer <= x; x first mapped by ScaleBias if present",
    summary="Computes the floor of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SIZES,
    # WebNN's ULP tolerances (webnn/resources: exp 32 / 1, ceil and floor 0).
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Floor (opset 13)",
    to_onnx=onnx_same_input("Floor", 13),
    special_values=special_values,
    d3d=lambda p: floor(X),
    source="https://learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_element_wise_floor_operator_desc",
    notes=("floor(-0) is -0 (IEEE 754).",),
)
