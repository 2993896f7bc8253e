"""DML_ELEMENT_WISE_LOG: f(x) = ln(x), after the optional ScaleBias.

The page: a negative x gives "indefinite" (NaN), 0 gives -INF (so does -0).
"""
import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_LOG"
DEFAULTS = {"ScaleBias": None}
reference = after_scale_bias(np.log)
