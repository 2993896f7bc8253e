"""DML_ACTIVATION_SHRINK: f(x) = x - Bias if x > Threshold, x + Bias if x < -Threshold, else 0.

The branches are taken in that order (a negative Threshold makes the first two overlap), and
NaN takes neither: f(NaN) = 0, as written.

Integer tensors (feature level 5_1): the page is silent on how the FLOAT fields meet an integer
tensor. The harness's choice is CLIP's documented rule: Bias and Threshold are cast to the tensor
type first (truncation toward zero, saturating at the type's range), the comparisons and the
arithmetic are then exact integer ones, and a result outside the type wraps (two's complement),
as 32-bit GPU integer arithmetic does.
"""
import numpy as np

from oracle.rounding import cast_bound_to_tensor_type, float_param

OPERATOR = "ACTIVATION_SHRINK"
DEFAULTS = {"Bias": 0.0, "Threshold": 0.5}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Bias=0.0, Threshold=0.5) -> np.ndarray:
    if x.dtype.kind in "iu":
        return _integer_shrink(x, dtype, Bias, Threshold)
    bias, threshold = float_param(Bias), float_param(Threshold)
    return np.where(x > threshold, x - bias, np.where(x < -threshold, x + bias, 0.0))


def _integer_shrink(x: np.ndarray, dtype: str, bias, threshold) -> np.ndarray:
    b, t = int(cast_bound_to_tensor_type(bias, dtype)), int(cast_bound_to_tensor_type(threshold, dtype))
    wide = x.astype(object)
    exact = np.where(wide > t, wide - b, np.where(wide < -t, wide + b, 0))
    info = np.iinfo(dtype)
    span = 1 << info.bits
    wrapped = [(int(v) - info.min) % span + info.min for v in exact.ravel()]
    return np.array(wrapped, dtype=x.dtype).reshape(x.shape)
