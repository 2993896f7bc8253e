"""DML_ACTIVATION_CELU: f(x) = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1))."""
import numpy as np

from oracle.minmax import dml_max, dml_min
from oracle.rounding import float_param

OPERATOR = "ACTIVATION_CELU"
DEFAULTS = {"Alpha": 1.0}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=1.0) -> np.ndarray:
    alpha = float_param(Alpha)
    return dml_max(0.0, x, nan_rule) + dml_min(0.0, alpha * np.expm1(x / alpha), nan_rule)


def float32_plan(nan_rule="d3d", Alpha=1.0) -> dict | None:
    """reference() for float32 in one compiled pass (conformance/judge/fast_kernels_jit.py FORMULAS):
    dml_max(0, x) + dml_min(0, p0 * t) with t = np.expm1(x / Alpha), the operations above in their
    order (tests/test_speed_equivalence.py holds the two equal). None: no plan (NaN propagated)."""
    if nan_rule != "d3d":
        return None
    alpha = float_param(Alpha)
    return {"formula": "max0_plus_min0", "p0": alpha, "p1": 0.0, "expm1_divisor": alpha}
