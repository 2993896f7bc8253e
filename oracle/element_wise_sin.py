"""DML_ELEMENT_WISE_SIN: f(x) = sin(x), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_SIN"
DEFAULTS = {"ScaleBias": None}
reference = after_scale_bias(np.sin)
