"""DML_SCALE_BIAS: g(x) = x * Scale + Bias, applied before the operator."""
import numpy as np

from oracle.rounding import float_param


def apply_scale_bias(x: np.ndarray, scale_bias) -> np.ndarray:
    if scale_bias is None:
        return x
    scale = float_param(scale_bias.get("Scale", 1.0))
    bias = float_param(scale_bias.get("Bias", 0.0))
    return x * scale + bias
