"""What the operators of no input tensor share (FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX,
DIAGONAL_MATRIX1): a DML_SCALAR_UNION read as the member its DML_TENSOR_DATA_TYPE names, and a FLOAT field
in an integer tensor. No OPERATOR: a helper of those oracles."""
import math

import numpy as np


def union_value(value, dtype: str, field: str = "Value"):
    """A DML_SCALAR_UNION field as the member of dtype holds it (None: 0): a float rounded half to even
    into FLOAT16/FLOAT32/FLOAT64, an integer exact to the last bit of a 64-bit one (one of the type)."""
    target = np.dtype(dtype)
    if value is None:
        return target.type(0)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return np.array(value, dtype=np.float64).astype(target)[()]
    info = np.iinfo(target)
    if not float(value).is_integer() or not info.min <= int(value) <= info.max:
        raise ValueError(f"{field} {value!r} is not a {dtype} value")
    return target.type(int(value))


def value_type(value_data_type, dtype: str) -> str:
    """ValueDataType, which every page of these operators says must match OutputTensor.DataType."""
    if value_data_type not in (None, dtype):
        raise ValueError(f"ValueDataType {value_data_type} must match OutputTensor.DataType {dtype}")
    return dtype


def float_field(value, dtype: str):
    """A FLOAT field (a float32) in the tensor's type: a float type rounds it half to even; an integer type
    truncates it toward zero (DIAGONAL_MATRIX's page: 10.6 becomes 10), saturating at the type's range and
    NaN 0 (D3D's float-to-integer conversion; the page is silent there)."""
    single = np.float32(value)
    target = np.dtype(dtype)
    if target.kind == "f":
        return single.astype(target)
    info = np.iinfo(target)
    if math.isnan(single):
        return target.type(0)
    if math.isinf(single):
        return target.type(info.max if single > 0 else info.min)
    return target.type(min(max(int(single), info.min), info.max))


def diagonal_offsets(sizes) -> np.ndarray:
    """x - y of each element of a tensor whose last two dimensions are a matrix (y the row, x the
    column), broadcast over the leading (batch) dimensions: the diagonal an element lies on."""
    rows = np.arange(sizes[-2]).reshape(-1, 1)
    columns = np.arange(sizes[-1]).reshape(1, -1)
    return np.broadcast_to(columns - rows, tuple(sizes))
