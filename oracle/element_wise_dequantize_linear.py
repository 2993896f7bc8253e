"""DML_ELEMENT_WISE_DEQUANTIZE_LINEAR: f(input, scale, zero_point) = (input - zero_point) * scale.

input - zero_point exactly (int64: 32-bit values cannot overflow it), then times the scale in
float64, rounded once to the output type by oracle.evaluate: FLOAT32, or FLOAT16 where the case's
OutputType says (the scale then is FLOAT16 too; the pages' 6_0 table).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_DEQUANTIZE_LINEAR"
DEFAULTS = {"OutputType": None}  # not a DirectML field: the type of ScaleTensor and OutputTensor
TYPE_FIELDS = ("OutputType",)


def output_dtype(dtype: str, OutputType=None) -> str:
    """The output has ScaleTensor's type: FLOAT32 unless the case chooses FLOAT16."""
    return OutputType or "float32"


def dequantized(values, scale, zero_point) -> np.ndarray:
    """(values - zero_point) * scale: the difference exact, the product in float64, unrounded (the
    dequantizing rule of DEQUANTIZE and ELEMENT_WISE_QUANTIZED_LINEAR_ADD too)."""
    difference = np.asarray(values).astype(np.int64) - np.asarray(zero_point).astype(np.int64)
    return difference.astype(np.float64) * np.asarray(scale, dtype=np.float64)


def reference(x, dtype: str, nan_rule="d3d", OutputType=None) -> np.ndarray:
    values, scale, zero_point = x
    return dequantized(values, scale, zero_point)
