"""DML_ELEMENT_WISE_SQRT: f(x) = sqrt(x), after the optional ScaleBias (sqrt(-0) = -0, x < 0 gives NaN)."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_SQRT"
DEFAULTS = {"ScaleBias": None}
reference = after_scale_bias(np.sqrt)
