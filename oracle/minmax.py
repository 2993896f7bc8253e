"""min and max as the DirectML formulas use them.

Direct3D's min/max return the non-NaN operand when exactly one operand is
NaN ("d3d"); IEEE-754 arithmetic and ONNX Runtime's CPU provider propagate
it ("propagate"). A case may choose; "d3d" is the default.
"""
import numpy as np

NAN_RULES = ("d3d", "propagate")


def dml_min(a, b, nan_rule: str = "d3d"):
    return np.fmin(a, b) if nan_rule == "d3d" else np.minimum(a, b)


def dml_max(a, b, nan_rule: str = "d3d"):
    return np.fmax(a, b) if nan_rule == "d3d" else np.maximum(a, b)
