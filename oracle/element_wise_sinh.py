"""DML_ELEMENT_WISE_SINH: f(x) = sinh(x), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_SINH"
DEFAULTS = {"ScaleBias": None}
reference = after_scale_bias(np.sinh)
