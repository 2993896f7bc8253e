"""DML_ELEMENT_WISE_POW: f(input, exponent) = pow(input, exponent), after the optional ScaleBias.

ScaleBias, "g(x) = x * scale + bias applied to each input element", maps both inputs: pow(g(input),
g(exponent)). That is what DirectML computes (docs/several-inputs-lavapipe.md: every element of the
ScaleBias cases is pow(Sx + B, Se + B) on lavapipe; pow(Sx + B, e) matched 14 of 120).

"Negative bases are supported for exponents with integral values, otherwise this operator returns
NaN"; "when the input tensor and exponent tensor both have integral data type, this operator
guarantees exact results". Floats: C's pow in float64 (numpy.power), NaN for a negative base with a
non-integral exponent, pow(+-0, e) signed only for odd integral e. Integers: exact powers in the
tensor's type (numpy's integer power wraps, the page is silent on overflow); a negative exponent
gives 1 / x^-e truncated: x^-e for x = +-1, else 0 (0 to a negative power is not defined: 0 here).
"""
import numpy as np

from oracle.scale_bias import apply_scale_bias

OPERATOR = "ELEMENT_WISE_POW"
DEFAULTS = {"ScaleBias": None}


def reference(x, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
    base, exponent = x
    if base.dtype.kind in "iu" and ScaleBias is None:
        positive = np.power(base, np.where(exponent < 0, 0, exponent).astype(exponent.dtype))
        unit = np.where((exponent % 2 == 0) | (base == 1), 1, base).astype(base.dtype)  # +-1 to a negative power
        return np.where(exponent >= 0, positive, np.where(np.abs(base) == 1, unit, 0)).astype(base.dtype)
    base = apply_scale_bias(base, ScaleBias)
    exponent = apply_scale_bias(exponent.astype(np.float64), ScaleBias)
    result = np.power(base, exponent)
    integral = np.floor(exponent) == exponent
    odd = integral & (np.abs(np.fmod(exponent, 2.0)) == 1.0)
    result = np.where((base == 0) & ~odd, np.abs(result), result)
    return np.where((base < 0) & ~integral, np.nan, result)
