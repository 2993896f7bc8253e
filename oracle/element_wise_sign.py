"""DML_ELEMENT_WISE_SIGN: f(x) = -1 if x < 0, 1 if x > 0, 0 otherwise.

"Otherwise" takes in both zeros and, by the same comparisons, NaN: SIGN(NaN) = 0,
where IEEE-minded libraries (numpy, ONNX Runtime's CPU provider) give NaN.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_SIGN"
DEFAULTS = {}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    if x.dtype.kind in "iu":
        return np.sign(x)  # exact in the input's own type; unsigned gives 0 or 1
    return np.where(x < 0, -1.0, np.where(x > 0, 1.0, 0.0))
