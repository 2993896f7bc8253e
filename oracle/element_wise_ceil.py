"""DML_ELEMENT_WISE_CEIL: f(x) = ceil(x), the smallest integer >= x, after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_CEIL"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.ceil)
