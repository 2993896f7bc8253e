"""DML_ELEMENT_WISE_RECIP: f(x) = 1 / x, after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_RECIP"
DEFAULTS = {"ScaleBias": None}
reference = after_scale_bias(np.reciprocal)
