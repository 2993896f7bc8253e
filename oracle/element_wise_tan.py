"""DML_ELEMENT_WISE_TAN: f(x) = tan(x), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_TAN"
DEFAULTS = {"ScaleBias": None}
reference = after_scale_bias(np.tan)
