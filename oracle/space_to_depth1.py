"""DML_SPACE_TO_DEPTH1: SPACE_TO_DEPTH with Order, a DML_DEPTH_SPACE_ORDER naming how the output's
depth is laid out, (BlockHeight, BlockWidth, Channels) or (Channels, BlockHeight, BlockWidth)
(oracle/depth_space.py). A copy: bits kept (READS_BITS)."""
import numpy as np

from oracle.depth_space import ORDERS, space_to_depth

OPERATOR = "SPACE_TO_DEPTH1"
# The page gives no typical Order; the harness's default is the older operator's (DEPTH_COLUMN_ROW).
DEFAULTS = {"BlockSize": None, "Order": ORDERS[0]}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", BlockSize=None, Order=ORDERS[0]) -> np.ndarray:
    return space_to_depth(x, BlockSize, Order)
