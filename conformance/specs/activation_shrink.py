from fractions import Fraction

import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, ONE_TO_EIGHT, SAME_TENSORS, OnnxNode, OperatorSpec, Parameter,
                                    SupportTable, around, exact_field, saturate)
from conformance.specs.primitives import X, select


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Shrink", 9, {"bias": float(params["Bias"]), "lambd": float(params["Threshold"])})


def special_values(dtype: str, params: dict) -> list:
    """+-Threshold and their neighbours (for integer types: the integers around them)."""
    threshold = float(np.float32(params["Threshold"]))
    return around(threshold, dtype) + around(-threshold, dtype)


def integers(params: dict, dtype: str):
    """x - Bias above Threshold, x + Bias below -Threshold, else 0, exactly, rounded to nearest
    even and saturated."""
    bias, threshold = exact_field(params["Bias"]), exact_field(params["Threshold"])
    return lambda x: saturate(round(x - bias if x > threshold else x + bias if x < -threshold else Fraction(0)),
                              dtype)


SPEC = OperatorSpec(
    name="ACTIVATION_SHRINK",
    struct="DML_ACTIVATION_SHRINK_OPERATOR_DESC",
    formula="f(x) = x - Bias if x > Threshold, x + Bias if x < -Threshold, else 0",
    summary="Shrink (soft and hard shrinkage), element-wise.",
    parameters=(Parameter("Bias", "float", 0.0, "The value of the bias; typical default 0.0."),
                Parameter("Threshold", "float", 0.5, "The value of the threshold; typical default 0.5.")),
    introduced="2_0",
    tables=(SupportTable("5_1", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("2_0", (4, 5), FLOATS)),
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 1, "float16": 1},
    onnx_route="Shrink (opset 9), attributes bias and lambd (DirectML EP: DML_ACTIVATION_SHRINK)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: select(X > p["Threshold"], X - p["Bias"], select(X < -p["Threshold"], X + p["Bias"], 0.0)),
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_shrink_operator_desc",
    notes=("The page has no 1_0 table: the operator starts at 2_0 with 4 to 5 dimensions.",
           "NaN takes neither branch: f(NaN) = 0, as written. A negative Threshold makes the first two "
           "branches overlap; the first wins.",
           "Integer tensors: the page is silent on how the FLOAT fields meet them. The harness computes the "
           "formula exactly with the float32 fields and converts the result as any real is converted to an "
           "integer type here: rounded half to even, saturated at the type's range (DirectML 1.15.4 was seen "
           "to do the same, through float32 arithmetic).",
           "Tolerance: WebNN has no shrink; 1 ULP for the one rounding of x -+ Bias."),
    integers=integers,
)
