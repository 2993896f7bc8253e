"""DML_ELEMENT_WISE_ATANH: f(x) = atanh(x) = ln((1 + x) / (1 - x)) / 2, after the optional ScaleBias;
+-inf at +-1, NaN beyond."""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_ATANH"
DEFAULTS = {"ScaleBias": None}

reference = after_scale_bias(np.arctanh)
