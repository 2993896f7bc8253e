"""DML_MAX_POOLING1: DML_MAX_POOLING with an optional OutputIndicesTensor (the index into InputTensor,
as one contiguous 1-D array, of each window's maximum; of equal values the first encountered)."""
import numpy as np

from oracle import windows
from oracle.max_pooling import maximum

OPERATOR = "MAX_POOLING1"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None,
            "OutputIndicesTensor": "present", "IndicesType": None}


TYPE_FIELDS = ("IndicesType", "OutputIndicesTensor")  # each chooses the outputs' types


def output_dtype(dtype: str, OutputIndicesTensor="present", IndicesType=None):
    """OutputTensor's type, the input's; OutputIndicesTensor's, UINT32 unless UINT64 is chosen."""
    return dtype if OutputIndicesTensor == "absent" else (dtype, IndicesType or "uint32")


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", OutputIndicesTensor="present", IndicesType=None,
              **fields):
    values, indices = windows.max_pool(x, fields, maximum(x, nan_rule))
    if OutputIndicesTensor == "absent":
        return values
    return values, indices.astype(IndicesType or "uint32")
