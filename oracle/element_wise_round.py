"""DML_ELEMENT_WISE_ROUND: each element to an integral value, in the direction RoundingMode names.

HALVES_TO_NEAREST_EVEN: nearest integer, halves to the even one; TOWARD_ZERO: truncation;
TOWARD_INFINITY: nearest integer, halves away from zero. The sign of a zero result
follows the input (-0.3 -> -0), as IEEE 754's roundToIntegral operations give it.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_ROUND"
# In DirectML.h's declaration order: the enum values are 0, 1 and 2.
MODES = ("DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN", "DML_ROUNDING_MODE_TOWARD_ZERO",
         "DML_ROUNDING_MODE_TOWARD_INFINITY")
# The page gives no typical mode; ONNX's Round (halves to even) is the one ONNX Runtime asks for.
DEFAULTS = {"RoundingMode": MODES[0]}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", RoundingMode=MODES[0]) -> np.ndarray:
    if RoundingMode == MODES[0]:
        return np.rint(x)
    truncated = np.trunc(x)
    if RoundingMode == MODES[1]:
        return truncated
    if RoundingMode == MODES[2]:
        # x - trunc(x) is exact; a fraction of one half or more moves one step away from zero.
        away = np.where(np.abs(x - truncated) >= 0.5, np.sign(x), 0.0)
        return np.where(np.isinf(x), x, np.copysign(truncated + away, x))
    raise ValueError(f"RoundingMode {RoundingMode!r}; DML_ROUNDING_MODE has {', '.join(MODES)}")
