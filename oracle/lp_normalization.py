"""DML_LP_NORMALIZATION: each element over the Lp norm of its slice along Axis, P 1 (sum |x|) or 2
(sqrt(sum x^2)). The page gives no formula: the oracle is Input / (norm + Epsilon), one of the readings
the spec's judge accepts (its notes)."""
import numpy as np

OPERATOR = "LP_NORMALIZATION"
DEFAULTS = {"Axis": None, "Epsilon": 0.00001, "P": 2, "ExecutionFlags": "NONE"}


def norm(x: np.ndarray, axis: int, p: int) -> np.ndarray:
    if int(p) == 1:
        return np.sum(np.abs(x), axis=int(axis), keepdims=True)
    return np.sqrt(np.sum(x * x, axis=int(axis), keepdims=True))


def reference(x, dtype: str, nan_rule="d3d", Axis=None, Epsilon=0.00001, P=2, ExecutionFlags="NONE"):
    return x / (norm(x, Axis, P) + float(np.float32(Epsilon)))
