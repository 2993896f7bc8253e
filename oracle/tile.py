"""DML_TILE: OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i], each dimension's elements
repeated Repeats[i] times in tiled copies (numpy's tile): the output element at index o is the input
element at o[i] mod InputTensor.Sizes[i] in every dimension i. A copy: float inputs keep their bits
(READS_BITS), NaN payloads and signalling NaNs included."""
import numpy as np

OPERATOR = "TILE"
DEFAULTS = {"Repeats": None}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Repeats=None) -> np.ndarray:
    output_sizes = tuple(n * r for n, r in zip(x.shape, Repeats))
    output_index = np.indices(output_sizes, sparse=True)
    return x[tuple(o % n for o, n in zip(output_index, x.shape))]
