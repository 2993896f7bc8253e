"""DML_ELEMENT_WISE_ATAN: f(x) = atan(x), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_ATAN"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.arctan)
