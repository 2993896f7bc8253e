"""DML_ELEMENT_WISE_ASINH: f(x) = asinh(x) = ln(x + sqrt(x * x + 1)), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_ASINH"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.arcsinh)
