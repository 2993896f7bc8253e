"""DML_ELEMENT_WISE_LOGICAL_NOT: f(x) = !x, 1 where x == 0 and 0 elsewhere, in x's own type."""
import numpy as np

OPERATOR = "ELEMENT_WISE_LOGICAL_NOT"
DEFAULTS = {}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    return (x == 0).astype(x.dtype)
