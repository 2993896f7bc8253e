"""DML_ACTIVATION_GELU: f(x) = 0.5 * x * (1 + erf(x / sqrt(2))).

1 + erf(x / sqrt(2)) is computed as erfc(-x / sqrt(2)): the same number, without the
cancellation for negative x. At x = -inf the formula is -inf * 0 = NaN (IEEE), as written.
"""
import math

import numpy as np

OPERATOR = "ACTIVATION_GELU"
DEFAULTS = {}
_erfc = np.frompyfunc(math.erfc, 1, 1)


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    return 0.5 * x * np.asarray(_erfc(-x / math.sqrt(2.0)), dtype=np.float64)
