"""DML_ELEMENT_WISE_ERF: f(x) = 2 / sqrt(pi) * integral from 0 to x of exp(-t^2) dt, after the
optional ScaleBias."""
import math

import numpy as np

from oracle.scale_bias import after_scale_bias

OPERATOR = "ELEMENT_WISE_ERF"
DEFAULTS = {"ScaleBias": None}
_ERF = np.frompyfunc(math.erf, 1, 1)  # numpy has no erf; math.erf is accurate to float64


def erf(values) -> np.ndarray:
    return np.asarray(_ERF(np.asarray(values, dtype=np.float64)), dtype=np.float64)


reference = after_scale_bias(erf)
