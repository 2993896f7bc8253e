"""DML_DEPTH_TO_SPACE: OutputTensor {N, C / (BlockSize * BlockSize), H * BlockSize, W * BlockSize}, the
depth's blocks of [BlockSize, BlockSize] moved to height and width. The page gives no order; its
example, and DEPTH_TO_SPACE1's remark (equivalent with DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW), make
it depth [Batch, (BlockHeight, BlockWidth, Channels), Height, Width]. A copy: bits kept (READS_BITS)."""
import numpy as np

from oracle.depth_space import ORDERS, depth_to_space

OPERATOR = "DEPTH_TO_SPACE"
DEFAULTS = {"BlockSize": None}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", BlockSize=None) -> np.ndarray:
    return depth_to_space(x, BlockSize, ORDERS[0])
