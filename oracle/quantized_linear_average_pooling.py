"""DML_QUANTIZED_LINEAR_AVERAGE_POOLING: "mathematically equivalent to dequantizing the inputs, then
performing average pooling, and then quantizing the output": (InputTensor - InputZeroPoint) * InputScale
(exact integers, the product in float64), AVERAGE_POOLING1's windows and divisor (the padding a
dequantized 0), then ELEMENT_WISE_QUANTIZE_LINEAR's rule with OutputScale and OutputZeroPoint (ties to
even, saturated). Each scale and zero point is per tensor ({1, 1, 1, 1}) or per channel ({1, C, 1, 1});
an absent zero point is 0."""
import numpy as np

from oracle.average_pooling import average
from oracle.element_wise_quantize_linear import quantized

OPERATOR = "QUANTIZED_LINEAR_AVERAGE_POOLING"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None, "Dilations": None,
            "IncludePadding": None, "OutputType": None, "InputZeroPointTensor": "present",
            "OutputZeroPointTensor": "present"}
TYPE_FIELDS = ("OutputType",)
OWN_SHAPES = True


def output_dtype(dtype: str, OutputType=None) -> str:
    """OutputTensor's type (OutputZeroPointTensor's): InputTensor's unless the case chooses."""
    return OutputType or dtype


def operands(x, params) -> tuple:
    """(input, input scale, input zero point, output scale, output zero point), an absent zero point 0."""
    given = iter(x)
    data, scale = next(given), next(given)
    zero = next(given) if params.get("InputZeroPointTensor", "present") == "present" else 0
    out_scale = next(given)
    out_zero = next(given) if params.get("OutputZeroPointTensor", "present") == "present" else 0
    return data, scale, zero, out_scale, out_zero


def dequantized_average(x, fields) -> np.ndarray:
    data, scale, zero, _, _ = operands(x, fields)
    values = (np.asarray(data, np.float64) - np.asarray(zero, np.float64)) * np.asarray(scale, np.float64)
    return average(values, fields)


def reference(x, dtype: str, nan_rule="d3d", OutputType=None, **fields) -> np.ndarray:
    _, _, _, out_scale, out_zero = operands(x, fields)
    return quantized(dequantized_average(x, fields), out_scale, out_zero, output_dtype(dtype, OutputType))
