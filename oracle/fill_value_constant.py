"""DML_FILL_VALUE_CONSTANT: OutputTensor[coordinate] = Value for every coordinate. Value is a DML_SCALAR_UNION of
ValueDataType, which must match the output's type: the value as that member holds it, to the last bit of
an INT64. No input: x is (); OutputSizes is OutputTensor's sizes (the case's shape)."""
import numpy as np

from oracle.generated import union_value, value_type

OPERATOR = "FILL_VALUE_CONSTANT"
DEFAULTS = {"ValueDataType": None, "Value": None, "OutputSizes": None}
READS_BITS = True


def reference(x, dtype: str, nan_rule="d3d", ValueDataType=None, Value=None, OutputSizes=None) -> np.ndarray:
    return np.full(tuple(OutputSizes), union_value(Value, value_type(ValueDataType, dtype)), dtype=dtype)
