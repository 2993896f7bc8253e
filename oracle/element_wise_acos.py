"""DML_ELEMENT_WISE_ACOS: f(x) = acos(x), after the optional ScaleBias; NaN outside [-1, 1]."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_ACOS"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.arccos)
