"""DML_DIAGONAL_MATRIX1: the page's pseudocode, for each coordinate of OutputTensor:
    topX = coordinate.x - coordinate.y
    useValue = (DiagonalFillEnd >= DiagonalFillBegin) ^ (topX >= DiagonalFillBegin) ^ (topX < DiagonalFillEnd)
    OutputTensor[coordinate] = Value if useValue, else InputTensor[coordinate] where it is bound, else 0.
Value is a DML_SCALAR_UNION of ValueDataType (the output's type). x is () without the optional InputTensor,
else that input, its bits copied. OutputSizes is OutputTensor's sizes (the case's shape)."""
import numpy as np

from oracle.generated import diagonal_offsets, union_value, value_type

OPERATOR = "DIAGONAL_MATRIX1"
DEFAULTS = {"ValueDataType": None, "Value": None, "DiagonalFillBegin": 0, "DiagonalFillEnd": 1, "OutputSizes": None,
            "InputTensor": "absent"}
READS_BITS = True


def filled(sizes, begin: int, end: int) -> np.ndarray:
    """useValue of every element."""
    top_x = diagonal_offsets(tuple(sizes))
    return (end >= begin) ^ (top_x >= begin) ^ (top_x < end)


def reference(x, dtype: str, nan_rule="d3d", ValueDataType=None, Value=None, DiagonalFillBegin=0, DiagonalFillEnd=1,
              OutputSizes=None, InputTensor="absent") -> np.ndarray:
    value = union_value(Value, value_type(ValueDataType, dtype))
    given = x[0] if isinstance(x, tuple) and x else None if isinstance(x, tuple) else x
    other = np.zeros(tuple(OutputSizes), dtype=dtype) if given is None else np.asarray(given)
    return np.where(filled(OutputSizes, DiagonalFillBegin, DiagonalFillEnd), value, other).astype(dtype)
