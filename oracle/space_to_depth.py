"""DML_SPACE_TO_DEPTH: OutputTensor {N, C * BlockSize * BlockSize, H / BlockSize, W / BlockSize}, blocks
of [BlockSize, BlockSize] of height and width moved to the depth: the inverse of DEPTH_TO_SPACE, the
depth read as (BlockHeight, BlockWidth, Channels) (the page's example; SPACE_TO_DEPTH1's remark).
A copy: bits kept (READS_BITS)."""
import numpy as np

from oracle.depth_space import ORDERS, space_to_depth

OPERATOR = "SPACE_TO_DEPTH"
DEFAULTS = {"BlockSize": None}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", BlockSize=None) -> np.ndarray:
    return space_to_depth(x, BlockSize, ORDERS[0])
