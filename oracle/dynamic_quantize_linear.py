"""DML_DYNAMIC_QUANTIZE_LINEAR, literally: InputMax = Max(InputTensor), InputMin = Min(InputTensor),
OutputScale = (InputMax - InputMin) / (Max - Min), OutputZeroPoint = Min - InputMin / OutputScale,
OutputTensor = clamp(round(InputValue / OutputScale) + OutputZeroPoint, Min, Max); UINT8: Min 0, Max
255; INT8: -128, 127.

The page does not widen the range to hold 0 (ONNX's DynamicQuantizeLinear does) nor say how the zero
point becomes an integer: rounded with ELEMENT_WISE_QUANTIZE_LINEAR's rule (ties to even) and saturated
to the output type here. The scale is stored as FLOAT32; the zero point and the output are computed
with the stored scale (the value the device's OutputScaleTensor holds)."""
import numpy as np

from oracle.element_wise_quantize_linear import quantized

OPERATOR = "DYNAMIC_QUANTIZE_LINEAR"
DEFAULTS = {"OutputType": None}  # not a DirectML field: OutputTensor's and OutputZeroPointTensor's type
TYPE_FIELDS = ("OutputType",)


def output_dtype(dtype: str, OutputType=None) -> tuple:
    """OutputTensor, OutputScaleTensor (FLOAT32), OutputZeroPointTensor: UINT8 unless the case chooses INT8."""
    chosen = OutputType or "uint8"
    return chosen, "float32", chosen


def exact_scale(x, target: str) -> float:
    """(InputMax - InputMin) / (Max - Min) in float64 (unrounded but for the float64 division)."""
    bounds = np.iinfo(target)
    x = np.asarray(x, dtype=np.float64)
    return (float(x.max()) - float(x.min())) / (int(bounds.max) - int(bounds.min))


def zero_point(x, scale, target: str):
    """Min - InputMin / OutputScale, rounded (ties to even) and saturated: quantized(InputMin, ...) of
    Min - round(InputMin / scale) is the same integer."""
    bounds = np.iinfo(target)
    inner = np.rint(-float(np.min(np.asarray(x, dtype=np.float64))) / np.asarray(scale, dtype=np.float64))
    return np.clip(inner + int(bounds.min), bounds.min, bounds.max).astype(target)


def quantize(x, scale, zero, target: str):
    """OutputTensor from a scale and zero point (the oracle's, or a device's own)."""
    return quantized(x, scale.reshape(-1)[0], zero.reshape(-1)[0], target)


def reference(x, dtype: str, nan_rule="d3d", OutputType=None):
    target = output_dtype(dtype, OutputType)[0]
    ones = (1,) * np.ndim(x)
    scale = np.full(ones, np.float32(exact_scale(x, target)), dtype=np.float64)
    zero = zero_point(x, scale, target).reshape(ones)
    return quantize(x, scale, zero, target), scale, zero
