"""DML_CONVOLUTION_INTEGER: OutputTensor (INT32) = the forward cross-correlation of (FilterTensor -
FilterZeroPoint) with (InputTensor - InputZeroPoint), exact in int64 and wrapped to INT32 as two's
complement (the page is silent; a sum of at most 2^15 products of 8-bit differences cannot wrap).
The sums are CONVOLUTION's (oracle/convolution.py: Strides, Dilations, Start/EndPadding, GroupCount);
a padded position reads a difference of 0, as ONNX ConvInteger pads with the zero point (the page is
silent). An absent zero point is 0; FilterZeroPointTensor {1, OutputChannelCount, 1, ...} is per output
channel, {1, 1, ...} per tensor."""
import numpy as np

from oracle.convolution import convolve, window_fields

OPERATOR = "CONVOLUTION_INTEGER"
OWN_SHAPES = True
DEFAULTS = {"FilterType": None, "InputZeroPointTensor": "present", "FilterZeroPointTensor": "present",
            "Strides": None, "Dilations": None, "StartPadding": None, "EndPadding": None, "GroupCount": 1,
            "ExecutionFlags": "NONE"}
TYPE_FIELDS = ("FilterType",)


def output_dtype(dtype: str, FilterType=None) -> str:
    return "int32"


def per_output_channel(zero_point, rank: int) -> np.ndarray:
    """A {1, M, 1, ...} (or one-element) tensor as {M, 1, 1, ...}: against the filter's FilterBatchCount."""
    values = np.asarray(zero_point).astype(np.int64).reshape(-1)
    return values.reshape((values.size,) + (1,) * (rank - 1))


def differences(x, x_zero, w, w_zero):
    """(Input - InputZeroPoint, Filter - FilterZeroPoint) in int64."""
    x = np.asarray(x).astype(np.int64) - np.asarray(x_zero).astype(np.int64).reshape(-1)[0]
    w = np.asarray(w).astype(np.int64) - per_output_channel(w_zero, np.ndim(w))
    return x, w


def unpack(x, InputZeroPointTensor, FilterZeroPointTensor) -> tuple:
    given = iter(x)
    data = next(given)
    x_zero = next(given) if InputZeroPointTensor == "present" else 0
    w = next(given)
    w_zero = next(given) if FilterZeroPointTensor == "present" else 0
    return data, x_zero, w, w_zero


def reference(x, dtype: str, nan_rule="d3d", FilterType=None, InputZeroPointTensor="present",
              FilterZeroPointTensor="present", Strides=None, Dilations=None, StartPadding=None, EndPadding=None,
              GroupCount=1, ExecutionFlags="NONE") -> np.ndarray:
    fields = {"Strides": Strides, "Dilations": Dilations, "StartPadding": StartPadding, "EndPadding": EndPadding,
              "GroupCount": GroupCount}
    data, x_zero, w, w_zero = unpack(x, InputZeroPointTensor, FilterZeroPointTensor)
    return convolve(*differences(data, x_zero, w, w_zero), window_fields(fields)).astype(np.int32)
