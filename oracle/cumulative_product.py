"""DML_CUMULATIVE_PRODUCT: the running product along Axis (oracle/scan.py), in float64 (the judge bounds
this float64 product's own error: conformance/judge/accumulated.py); integers exact, wrapped to the type
as two's complement (the page is silent; wrapping is the same in any order)."""
import numpy as np

from oracle.arg_extreme import INCREASING
from oracle.scan import scan

OPERATOR = "CUMULATIVE_PRODUCT"
# ExecutionFlags changes what a device may compute, not what the page's formula is
DEFAULTS = {"Axis": None, "AxisDirection": INCREASING, "HasExclusiveProduct": 0, "ExecutionFlags": "NONE"}


def reference(x, dtype: str, nan_rule="d3d", Axis=None, AxisDirection=INCREASING, HasExclusiveProduct=0,
              ExecutionFlags="NONE"):
    return scan(x, int(Axis), AxisDirection, HasExclusiveProduct, np.multiply)
