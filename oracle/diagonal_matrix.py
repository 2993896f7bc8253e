"""DML_DIAGONAL_MATRIX: OutputTensor[coordinate] = Value where coordinate.y + Offset == coordinate.x, else 0,
over the last two dimensions (y the row, x the column), the leading ones a batch. Value is a FLOAT: in an
integer tensor truncated toward zero (the page: 10.6 becomes 10), in FLOAT16 rounded. No input: x is ();
OutputSizes is OutputTensor's sizes (the case's shape)."""
import numpy as np

from oracle.generated import diagonal_offsets, float_field

OPERATOR = "DIAGONAL_MATRIX"
DEFAULTS = {"Offset": 0, "Value": 1.0, "OutputSizes": None}
READS_BITS = True


def reference(x, dtype: str, nan_rule="d3d", Offset=0, Value=1.0, OutputSizes=None) -> np.ndarray:
    on = diagonal_offsets(tuple(OutputSizes)) == Offset
    return np.where(on, float_field(Value, dtype), np.zeros((), dtype=dtype)).astype(dtype)
