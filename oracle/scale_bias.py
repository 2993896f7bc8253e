"""DML_SCALE_BIAS: g(x) = x * Scale + Bias, applied before the operator."""
from fractions import Fraction

import numpy as np

from oracle.rounding import float_param


def apply_scale_bias(x: np.ndarray, scale_bias) -> np.ndarray:
    if scale_bias is None:
        return x
    scale = float_param(scale_bias.get("Scale", 1.0))
    bias = float_param(scale_bias.get("Bias", 0.0))
    return x * scale + bias


def after_scale_bias(function):
    """reference() of an operator f(g(x)) with one float function f and the optional ScaleBias g."""
    def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
        return function(apply_scale_bias(x, ScaleBias))
    return reference


def apply_scale_bias_to_integers(x: np.ndarray, scale_bias) -> np.ndarray:
    """g(x) for an integer tensor, exactly: x * Scale + Bias in rational arithmetic (Scale and
    Bias are float32 fields), truncated toward zero as a float stored in an integer tensor is.
    Returns Python ints (an object array) so that no int64 passes through float64; the caller
    saturates to the tensor type (oracle.rounding.round_to)."""
    if scale_bias is None:
        return x
    scale = Fraction(float_param(scale_bias.get("Scale", 1.0)))
    bias = Fraction(float_param(scale_bias.get("Bias", 0.0)))
    return np.array([int(v * scale + bias) for v in x.ravel().tolist()], dtype=object).reshape(x.shape)
