"""min and max as the DirectML formulas use them.

Direct3D's min/max return the non-NaN operand when exactly one operand is
NaN ("d3d"); IEEE-754 arithmetic and ONNX Runtime's CPU provider propagate
it ("propagate"). A case may choose; "d3d" is the default.

Between +0 and -0, max gives +0 and min gives -0 (IEEE 754-2019 maximum and
minimum): numpy's own choice depends on where an element sits in the array.
"""
import numpy as np

NAN_RULES = ("d3d", "propagate")


def dml_min(a, b, nan_rule: str = "d3d"):
    result = np.fmin(a, b) if nan_rule == "d3d" else np.minimum(a, b)
    both_zero = (np.asarray(a) == 0) & (np.asarray(b) == 0)
    # -((-a) + (-b)) is -0 unless both are +0.
    return np.where(both_zero, -(np.negative(a) + np.negative(b)), result)


def dml_max(a, b, nan_rule: str = "d3d"):
    result = np.fmax(a, b) if nan_rule == "d3d" else np.maximum(a, b)
    both_zero = (np.asarray(a) == 0) & (np.asarray(b) == 0)
    # a + b is +0 unless both are -0.
    return np.where(both_zero, np.add(a, b), result)
