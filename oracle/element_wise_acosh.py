"""DML_ELEMENT_WISE_ACOSH: f(x) = acosh(x) = ln(x + sqrt(x * x - 1)), after the optional ScaleBias;
NaN below 1."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_ACOSH"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.arccosh)
