"""DML_MAX_POOLING2: DML_MAX_POOLING1 with Dilations, the distance between a window's positions in each
spatial dimension (DML_MAX_POOLING1 when every dilation is 1). OutputIndicesTensor, where bound, is the
index into InputTensor (as one contiguous 1-D array) of the maximum, the first of equal values."""
import numpy as np

from oracle import windows
from oracle.max_pooling import maximum

OPERATOR = "MAX_POOLING2"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None, "Dilations": None,
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
