"""DML_ACTIVATION_SCALED_ELU: f(x) = Gamma * x if x > 0 else Gamma * (Alpha * e^x - Alpha)."""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_SCALED_ELU"
DEFAULTS = {"Alpha": 1.6732, "Gamma": 1.0507}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", **fields) -> np.ndarray:
    alpha, gamma = float_param(fields["Alpha"]), float_param(fields["Gamma"])
    # Alpha * e^x - Alpha == Alpha * expm1(x), without the cancellation near 0.
    return np.where(x > 0, gamma * x, gamma * (alpha * np.expm1(x)))


def float32_plan(nan_rule="d3d", **fields) -> dict | None:
    """reference() for float32 in one compiled pass (conformance/judge/fast_kernels_jit.py FORMULAS):
    Gamma * x if x > 0 else Gamma * (Alpha * t) with t = np.expm1(x), the operations above in their
    order (tests/test_speed_equivalence.py holds the two equal)."""
    if nan_rule != "d3d":
        return None
    return {"formula": "positive_or_scaled", "p0": float_param(fields["Alpha"]), "p1": float_param(fields["Gamma"]),
            "expm1_divisor": 1.0}
