"""DML_ELEMENT_WISE_DEQUANTIZE_LINEAR: f(input, scale, zero_point) = (input - zero_point) * scale.

input - zero_point exactly (int64: 32-bit values cannot overflow it), then times the scale in
float64, rounded once to the output type (FLOAT32) by oracle.evaluate.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_DEQUANTIZE_LINEAR"
DEFAULTS = {}


def output_dtype(dtype: str) -> str:
    """The output has ScaleTensor's type: FLOAT32 in every case here."""
    return "float32"


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    values, scale, zero_point = x
    difference = values.astype(np.int64) - zero_point.astype(np.int64)
    return difference.astype(np.float64) * scale.astype(np.float64)
