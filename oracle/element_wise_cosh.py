"""DML_ELEMENT_WISE_COSH: f(x) = cosh(x), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_COSH"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.cosh)
