"""DML_ELEMENT_WISE_COS: f(x) = cos(x) (radians), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_COS"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.cos)
