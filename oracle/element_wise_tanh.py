"""DML_ELEMENT_WISE_TANH: f(x) = tanh(x), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_TANH"
DEFAULTS = {"ScaleBias": None}
reference = after_scale_bias(np.tanh)
