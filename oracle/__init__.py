"""The CPU reference: DirectML operator formulas in float64, rounded exactly.

    oracle.evaluate(op, x, dtype, **params) -> numpy.ndarray of dtype

op is the DirectML operator name without DML_ and _OPERATOR_DESC; params use
the DirectML field names; missing ones take the page's typical defaults.
The keyword nan_rule ("d3d" or "propagate") chooses how min/max treat NaN.
"""
import numpy as np

from oracle import celu, clip, constant_pow, scaled_elu
from oracle.rounding import round_to

OPERATORS = {
    "ACTIVATION_CELU": (celu.activation_celu, celu.DEFAULTS),
    "ACTIVATION_SCALED_ELU": (scaled_elu.activation_scaled_elu, scaled_elu.DEFAULTS),
    "ELEMENT_WISE_CLIP": (clip.element_wise_clip, clip.DEFAULTS),
    "ELEMENT_WISE_CONSTANT_POW": (constant_pow.element_wise_constant_pow, constant_pow.DEFAULTS),
}
NEEDS_DTYPE = {"ELEMENT_WISE_CLIP"}


def _normalise(op: str) -> str:
    name = op.upper()
    if name.startswith("DML_"):
        name = name[4:]
    for suffix in ("_OPERATOR_DESC", "_OPERATOR"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.startswith("OPERATOR_"):
        name = name[len("OPERATOR_"):]
    if name not in OPERATORS:
        raise KeyError(f"unknown operator {op!r}; known: {', '.join(sorted(OPERATORS))}")
    return name


def reference(op: str, x: np.ndarray, dtype: str, nan_rule: str = "d3d", **params) -> np.ndarray:
    """The unrounded result: float64 for float targets, exact integers where possible."""
    with np.errstate(all="ignore"):
        return bind(op, dtype, nan_rule=nan_rule, **params)(x)


def bind(op: str, dtype: str, nan_rule: str = "d3d", **params):
    """reference() with its operator and parameters resolved once: a function of x alone.

    The acceleration layer (conformance/fast.py) calls it once per chunk; it
    runs the same operator function on the same float64 values as reference().
    It does not set numpy's error state: callers that want silence wrap it in
    np.errstate(all="ignore"), as reference() does.
    """
    name = _normalise(op)
    function, defaults = OPERATORS[name]
    unknown = set(params) - set(defaults)
    if unknown:
        raise TypeError(f"{name} has no parameter(s) {', '.join(sorted(unknown))}; "
                        f"it has {', '.join(defaults) or 'none'}")
    arguments = {**defaults, **params, "nan_rule": nan_rule}
    keep_integers = name in NEEDS_DTYPE and not params.get("ScaleBias")
    if name in NEEDS_DTYPE:
        arguments["dtype"] = str(np.dtype(dtype))

    def bound(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        if x.dtype.kind not in "iu" or not keep_integers:
            x = x.astype(np.float64)
        return function(x, **arguments)
    return bound


def evaluate(op: str, x: np.ndarray, dtype: str, **params) -> np.ndarray:
    return round_to(reference(op, x, dtype, **params), str(np.dtype(dtype)))
