"""DML_ACTIVATION_PARAMETRIC_SOFTPLUS: f(x) = Alpha * ln(1 + exp(Beta * x)).

The page gives no typical values: Alpha = Beta = 1 (plain softplus) are the harness's.
"""
import numpy as np

from oracle.activation_softplus import softplus
from oracle.rounding import float_param

OPERATOR = "ACTIVATION_PARAMETRIC_SOFTPLUS"
DEFAULTS = {"Alpha": 1.0, "Beta": 1.0}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=1.0, Beta=1.0) -> np.ndarray:
    return float_param(Alpha) * softplus(float_param(Beta) * x)
