"""DML_QUANTIZED_LINEAR_CONVOLUTION: OutputTensor = quantize(S * InputScale * FilterScale[m], OutputScale,
OutputZeroPoint), S = the exact integer convolution of the differences (oracle/convolution_integer.py)
plus BiasTensor[m] (INT32, in the accumulator's scale InputScale * FilterScale, as ONNX QLinearConv's
bias: the page only says it is added to the result). That is the page's "dequantizing the inputs,
convolving, and then quantizing the output": the dequantized sum is S * InputScale * FilterScale[m]
exactly. The quantization is ELEMENT_WISE_QUANTIZE_LINEAR's (float64, ties to even, saturated); an
absent zero point is 0; FilterScale and FilterZeroPoint are per tensor or per output channel."""
import numpy as np

from oracle.convolution import convolve, window_fields
from oracle.convolution_integer import differences
from oracle.element_wise_quantize_linear import quantized

OPERATOR = "QUANTIZED_LINEAR_CONVOLUTION"
OWN_SHAPES = True
OPTIONAL = ("InputZeroPointTensor", "FilterZeroPointTensor", "BiasTensor", "OutputZeroPointTensor")
DEFAULTS = {"FilterType": None, "OutputType": None, **{name: "present" for name in OPTIONAL}, "Strides": None,
            "Dilations": None, "StartPadding": None, "EndPadding": None, "GroupCount": 1, "ExecutionFlags": "NONE"}
TYPE_FIELDS = ("FilterType", "OutputType")


def output_dtype(dtype: str, FilterType=None, OutputType=None) -> str:
    return OutputType or dtype


def unpack(x, present: dict) -> dict:
    """The inputs by short name, in the page's order; an absent zero point 0, an absent bias None."""
    given, found = iter(x), {}
    for name in ("Input", "InputScale", "InputZeroPoint", "Filter", "FilterScale", "FilterZeroPoint", "Bias",
                 "OutputScale", "OutputZeroPoint"):
        optional = name + "Tensor" in OPTIONAL
        found[name] = next(given) if not optional or present[name + "Tensor"] == "present" else (
            None if name == "Bias" else 0)
    return found


def accumulated(t: dict, fields: dict) -> np.ndarray:
    """S: the integer sums plus the bias, exact in int64 (OutputChannel along dimension 1)."""
    total = convolve(*differences(t["Input"], t["InputZeroPoint"], t["Filter"], t["FilterZeroPoint"]),
                     window_fields(fields))
    if t["Bias"] is not None:
        total = total + np.asarray(t["Bias"]).astype(np.int64).reshape(1, -1, *(1,) * (total.ndim - 2))
    return total


def real_value(t: dict, total: np.ndarray) -> np.ndarray:
    """S * InputScale * FilterScale[m] / OutputScale in float64: the value the quantization rounds."""
    filter_scale = np.asarray(t["FilterScale"], dtype=np.float64).reshape(1, -1, *(1,) * (total.ndim - 2))
    scale = np.asarray(t["InputScale"], dtype=np.float64).reshape(-1)[0] * filter_scale
    return total.astype(np.float64) * scale / np.asarray(t["OutputScale"], dtype=np.float64).reshape(-1)[0]


def reference(x, dtype: str, nan_rule="d3d", FilterType=None, OutputType=None, InputZeroPointTensor="present",
              FilterZeroPointTensor="present", BiasTensor="present", OutputZeroPointTensor="present", Strides=None,
              Dilations=None, StartPadding=None, EndPadding=None, GroupCount=1, ExecutionFlags="NONE"):
    present = {"InputZeroPointTensor": InputZeroPointTensor, "FilterZeroPointTensor": FilterZeroPointTensor,
               "BiasTensor": BiasTensor, "OutputZeroPointTensor": OutputZeroPointTensor}
    fields = {"Strides": Strides, "Dilations": Dilations, "StartPadding": StartPadding, "EndPadding": EndPadding,
              "GroupCount": GroupCount}
    t = unpack(x, present)
    value = real_value(t, accumulated(t, fields))
    zero = np.asarray(t["OutputZeroPoint"]).astype(np.int64).reshape(-1)[0]
    return quantized(value, 1.0, zero, output_dtype(dtype, FilterType, OutputType))
