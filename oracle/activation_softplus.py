"""DML_ACTIVATION_SOFTPLUS: f(x) = ln(1 + exp(Steepness * x)) / Steepness.

ln(1 + exp(t)) is computed as logaddexp(0, t): the same number, without overflow for large t
or the loss of exp(t) beside 1 for negative t.
"""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_SOFTPLUS"
DEFAULTS = {"Steepness": 1.0}


def softplus(t: np.ndarray) -> np.ndarray:
    """ln(1 + exp(t)); also PARAMETRIC_SOFTPLUS's."""
    return np.logaddexp(0.0, t)


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Steepness=1.0) -> np.ndarray:
    steepness = float_param(Steepness)
    return softplus(steepness * x) / steepness
