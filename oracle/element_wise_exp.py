"""DML_ELEMENT_WISE_EXP: f(x) = exp(x), the natural exponential, after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_EXP"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.exp)
