"""DML_SLICE_GRAD: the backpropagation of SLICE1. OutputGradientTensor (sizes: the case's OutputSizes,
else InputWindowOffsets + InputWindowSizes) is 0 but where SLICE1, given the same window, would read
an element: there it is the InputGradientTensor element SLICE1 would have copied there,

    CopyStart = InputWindowOffsets, + InputWindowSizes - 1 where InputWindowStrides < 0
    OutputGradientTensor[CopyStart + InputWindowStrides * c] = InputGradientTensor[c]

Strides are non-zero, so no two elements land on one place. Copies keep their bits (READS_BITS); the
other elements are +0."""
import numpy as np

OPERATOR = "SLICE_GRAD"
DEFAULTS = {"InputWindowOffsets": None, "InputWindowSizes": None, "InputWindowStrides": None, "OutputSizes": None}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", InputWindowOffsets=None, InputWindowSizes=None,
              InputWindowStrides=None, OutputSizes=None) -> np.ndarray:
    if OutputSizes is None:
        OutputSizes = [offset + size for offset, size in zip(InputWindowOffsets, InputWindowSizes)]
    copy_start = [offset + (size - 1 if stride < 0 else 0)
                  for offset, size, stride in zip(InputWindowOffsets, InputWindowSizes, InputWindowStrides)]
    result = np.zeros(tuple(OutputSizes), dtype=x.dtype)
    c = np.indices(x.shape, sparse=True)
    result[tuple(start + stride * axis for axis, start, stride in zip(c, copy_start, InputWindowStrides))] = x
    return result
