"""DML_ELEMENT_WISE_QUANTIZE_LINEAR: f(input, scale, zero_point) = clamp(round(input / scale) + zero_point,
Min, Max), Min and Max the output type's (UINT8: 0 and 255; INT8, where the case's OutputType says:
-128 and 127).

input / scale in float64 (an INT32 input exactly), rounded to the nearest integer with ties to even
(the page says "round"; ONNX's QuantizeLinear rounds ties to even), plus the zero point, saturated to
the output type. The page is silent on NaN: 0 here (no case has one).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_QUANTIZE_LINEAR"
DEFAULTS = {"OutputType": None}  # not a DirectML field: the type of ZeroPointTensor and OutputTensor
TYPE_FIELDS = ("OutputType",)


def output_dtype(dtype: str, OutputType=None) -> str:
    """The output has ZeroPointTensor's type: UINT8 unless the case chooses INT8."""
    return OutputType or "uint8"


def scale_dtype(dtype: str) -> str:
    """The page: FLOAT32 for an INT32 input, else the input's type."""
    return "float32" if dtype == "int32" else dtype


def quantized(values, scale, zero_point, target: str) -> np.ndarray:
    """clamp(round(values / scale) + zero_point, Min, Max) in float64, ties to even, NaN to 0, Min and
    Max those of the integer type target: the rounding rule of every quantizing page (QUANTIZE,
    DYNAMIC_QUANTIZE_LINEAR, ELEMENT_WISE_QUANTIZED_LINEAR_ADD take it from here)."""
    quotient = np.asarray(values, dtype=np.float64) / np.asarray(scale, dtype=np.float64)
    shifted = np.rint(quotient) + np.asarray(zero_point, dtype=np.float64)
    bounds = np.iinfo(target)
    return np.clip(np.nan_to_num(shifted, nan=0.0), bounds.min, bounds.max).astype(target)


def reference(x, dtype: str, nan_rule="d3d", OutputType=None) -> np.ndarray:
    values, scale, zero_point = x
    return quantized(values, scale, zero_point, output_dtype(dtype, OutputType))
