"""DML_DEPTH_TO_SPACE1: DEPTH_TO_SPACE with Order, a DML_DEPTH_SPACE_ORDER naming how the depth
dimension is read as (BlockHeight, BlockWidth, Channels) or (Channels, BlockHeight, BlockWidth)
(oracle/depth_space.py). A copy: bits kept (READS_BITS)."""
import numpy as np

from oracle.depth_space import ORDERS, depth_to_space

OPERATOR = "DEPTH_TO_SPACE1"
# The page gives no typical Order; the harness's default is the older operator's (DEPTH_COLUMN_ROW).
DEFAULTS = {"BlockSize": None, "Order": ORDERS[0]}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", BlockSize=None, Order=ORDERS[0]) -> np.ndarray:
    return depth_to_space(x, BlockSize, Order)
