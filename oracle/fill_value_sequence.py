"""DML_FILL_VALUE_SEQUENCE: the page's pseudocode, for each coordinate of OutputTensor in order,
OutputTensor[coordinate] = Value; Value += Delta, from Value = ValueStart. ValueStart and ValueDelta are
DML_SCALAR_UNIONs of ValueDataType, which must match the output's type.

Integers: element i is ValueStart + i * ValueDelta wrapped to the type (two's complement; accumulating and
multiplying agree modulo 2^bits), exact. Floats: the page's accumulation rounds at every step, a device
computing each element apart computes ValueStart + i * ValueDelta; this gives that value rounded once (the
exact one), and tests/judge accept what sequence_bounds allows (conformance/specs/fill_value_sequence.py).
No input: x is (); OutputSizes is OutputTensor's sizes (the case's shape)."""
import numpy as np

from oracle.generated import union_value, value_type

OPERATOR = "FILL_VALUE_SEQUENCE"
DEFAULTS = {"ValueDataType": None, "ValueStart": None, "ValueDelta": None, "OutputSizes": None}
READS_BITS = True


def reference(x, dtype: str, nan_rule="d3d", ValueDataType=None, ValueStart=None, ValueDelta=None,
              OutputSizes=None) -> np.ndarray:
    value_type(ValueDataType, dtype)
    sizes = tuple(OutputSizes)
    start, delta = union_value(ValueStart, dtype, "ValueStart"), union_value(ValueDelta, dtype, "ValueDelta")
    i = np.arange(int(np.prod(sizes, dtype=np.int64)), dtype=np.uint64)
    if np.dtype(dtype).kind == "f":
        with np.errstate(all="ignore"):  # i * delta is exact in float64 below 2^29 elements
            exact = np.float64(start) + i.astype(np.float64) * np.float64(delta)
            return exact.astype(dtype).reshape(sizes)
    wrapped = np.uint64(start.astype(np.uint64)) + i * np.uint64(delta.astype(np.uint64))  # modulo 2^64
    return wrapped.astype(dtype).reshape(sizes)
