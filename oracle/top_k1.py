"""DML_TOP_K1: TOP_K with AxisDirection: DML_AXIS_DIRECTION_DECREASING gives the K largest, largest
first (TOP_K); DML_AXIS_DIRECTION_INCREASING the K smallest, smallest first. Equal values by ascending
index in both directions ("irrespective of the value of AxisDirection")."""
from oracle.arg_extreme import DECREASING
from oracle.top_k import READS_BITS, TYPE_FIELDS, output_dtype, top_k  # noqa: F401

OPERATOR = "TOP_K1"
DEFAULTS = {"Axis": None, "K": None, "AxisDirection": DECREASING, "IndexType": None}


def reference(x, dtype: str, nan_rule="d3d", Axis=None, K=None, AxisDirection=DECREASING, IndexType=None) -> tuple:
    values, indices = top_k(x, Axis, K, largest=AxisDirection == DECREASING)
    return values, indices.astype(IndexType or "uint32")
