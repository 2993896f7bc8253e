"""DML_SLICE: OutputTensor[OutputCoordinates] = InputTensor[Offsets + Strides * OutputCoordinates], the
output's sizes being Sizes: in each dimension Sizes[i] elements from Offsets[i] on, Strides[i] apart. A
copy: float inputs keep their bits (READS_BITS), NaN payloads and signalling NaNs included."""
import numpy as np

OPERATOR = "SLICE"
DEFAULTS = {"Offsets": None, "Sizes": None, "Strides": None}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Offsets=None, Sizes=None, Strides=None) -> np.ndarray:
    output_coordinates = np.indices(tuple(Sizes), sparse=True)
    return x[tuple(offset + stride * o for o, offset, stride in zip(output_coordinates, Offsets, Strides))]
