"""DML_PADDING1: PADDING (oracle/padding.py: the same modes and shapes) with PaddingValue a
DML_SCALAR_UNION of PaddingValueDataType, which must be the output's type: the value is one of the
tensor's own type, exact to the last bit of an int64 (no FLOAT between). The page gives no default
value: unset, it is 0."""
import numpy as np

from oracle.padding import MODES, padded

OPERATOR = "PADDING1"
DEFAULTS = {"PaddingMode": MODES[0], "PaddingValueDataType": None, "PaddingValue": None, "StartPadding": None,
            "EndPadding": None}
READS_BITS = True


def typed_value(value, dtype: str):
    """PaddingValue as the union of the tensor's type holds it (None: 0); an integer must be one of the type."""
    target = np.dtype(dtype)
    if value is None:
        return target.type(0)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return np.array(value, dtype=np.float64).astype(target)
    info = np.iinfo(target)
    if not float(value).is_integer() or not info.min <= int(value) <= info.max:
        raise ValueError(f"PADDING1 PaddingValue {value!r} is not a {dtype} value")
    return target.type(int(value))


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", PaddingMode=MODES[0], PaddingValueDataType=None,
              PaddingValue=None, StartPadding=None, EndPadding=None) -> np.ndarray:
    if PaddingValueDataType not in (None, dtype):
        raise ValueError(f"PADDING1: PaddingValueDataType {PaddingValueDataType} must be the output's type {dtype}")
    return padded(x, PaddingMode, typed_value(PaddingValue, dtype), StartPadding, EndPadding)
