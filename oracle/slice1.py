"""DML_SLICE1, its page's pseudo-code:

    CopyStart = InputWindowOffsets
    for dimension i: if InputWindowStrides[i] < 0: CopyStart[i] += InputWindowSizes[i] - 1
    OutputTensor[OutputCoordinates] = InputTensor[CopyStart + InputWindowStrides * OutputCoordinates]

The output's sizes are the case's OutputSizes (no field: the output tensor's own sizes), else
MaxCopiedElements[i] = 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]|, every element the window
reaches. A copy: float inputs keep their bits (READS_BITS)."""
import numpy as np

OPERATOR = "SLICE1"
DEFAULTS = {"InputWindowOffsets": None, "InputWindowSizes": None, "InputWindowStrides": None, "OutputSizes": None}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", InputWindowOffsets=None, InputWindowSizes=None,
              InputWindowStrides=None, OutputSizes=None) -> np.ndarray:
    copy_start = [offset + (size - 1 if stride < 0 else 0)
                  for offset, size, stride in zip(InputWindowOffsets, InputWindowSizes, InputWindowStrides)]
    if OutputSizes is None:
        OutputSizes = [1 + (size - 1) // abs(stride) for size, stride in zip(InputWindowSizes, InputWindowStrides)]
    output_coordinates = np.indices(tuple(OutputSizes), sparse=True)
    return x[tuple(start + stride * o for o, start, stride in zip(output_coordinates, copy_start, InputWindowStrides))]
