"""The DML_DEPTH_SPACE_ORDER layouts that DEPTH_TO_SPACE(1) and SPACE_TO_DEPTH(1) share, as the
enumeration's page writes them ("dimensions in parenthesis are flattened together"):

- DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW: depth [Batch, (BlockHeight, BlockWidth, Channels), Height, Width]
- DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH: depth [Batch, (Channels, BlockHeight, BlockWidth), Height, Width]
- both: space [Batch, Channels, (Height, BlockHeight), (Width, BlockWidth)]

Each transform unflattens one layout, moves its axes to the other's places and flattens again:
a copy, every element's bits kept."""
import numpy as np

# In DirectML.h's declaration order: the enum values are 0 and 1.
ORDERS = ("DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW", "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH")
# The depth dimension's parts, outermost first, per order
DEPTH = {ORDERS[0]: ("BlockHeight", "BlockWidth", "Channels"), ORDERS[1]: ("Channels", "BlockHeight", "BlockWidth")}
SPACE = ("Batch", "Channels", "Height", "BlockHeight", "Width", "BlockWidth")


def _depth_axes(order: str) -> tuple:
    if order not in DEPTH:
        raise ValueError(f"Order {order!r}; DML_DEPTH_SPACE_ORDER has {', '.join(ORDERS)}")
    return ("Batch",) + DEPTH[order] + ("Height", "Width")


def depth_to_space(x: np.ndarray, block: int, order: str) -> np.ndarray:
    batch, depth, height, width = x.shape
    sizes = {"Batch": batch, "Channels": depth // (block * block), "Height": height, "Width": width,
             "BlockHeight": block, "BlockWidth": block}
    axes = _depth_axes(order)
    unflattened = x.reshape([sizes[a] for a in axes]).transpose([axes.index(a) for a in SPACE])
    return unflattened.reshape(batch, sizes["Channels"], height * block, width * block)


def space_to_depth(x: np.ndarray, block: int, order: str) -> np.ndarray:
    batch, channels, height, width = x.shape
    unflattened = x.reshape(batch, channels, height // block, block, width // block, block)
    axes = _depth_axes(order)
    moved = unflattened.transpose([SPACE.index(a) for a in axes])
    return moved.reshape(batch, channels * block * block, height // block, width // block)
