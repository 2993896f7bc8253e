"""DML_ARGMIN: each output element the index of the minimum-valued element of its slice of
InputTensor along Axes (oracle/arg_extreme.py: ties by AxisDirection, NaN by nan_rule). The index is
written in OutputTensor's type, OutputType (INT64 unless the case chooses INT32, UINT64 or UINT32)."""
import numpy as np

from oracle.arg_extreme import INCREASING, arg_extreme, output_dtype  # noqa: F401 (the module's output_dtype)

OPERATOR = "ARGMIN"
DEFAULTS = {"Axes": None, "AxisDirection": INCREASING, "OutputType": None}
TYPE_FIELDS = ("OutputType",)
READS_BITS = True  # compared, not computed: float16 and float32 keep their own values


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Axes=None, AxisDirection=INCREASING,
              OutputType=None) -> np.ndarray:
    return arg_extreme(x, Axes, AxisDirection, nan_rule, minimum=True)
