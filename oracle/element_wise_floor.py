"""DML_ELEMENT_WISE_FLOOR: f(x) = floor(x), the largest integer <= x, after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_FLOOR"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.floor)
