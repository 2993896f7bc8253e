"""DML_MEAN_VARIANCE_NORMALIZATION: MEAN_VARIANCE_NORMALIZATION1's computation over axes {2, 3}
(CrossChannel FALSE) or {1, 2, 3} (TRUE) of the 4-D input."""
from oracle.normalizing import PRESENT, mean_variance

OPERATOR = "MEAN_VARIANCE_NORMALIZATION"
DEFAULTS = {"CrossChannel": 0, "NormalizeVariance": 1, "Epsilon": 0.00001, "FusedActivation": None,
            "ScaleTensor": PRESENT, "BiasTensor": PRESENT, "ExecutionFlags": "NONE"}


def axes(cross_channel) -> tuple:
    return (1, 2, 3) if cross_channel else (2, 3)


def reference(x, dtype: str, nan_rule="d3d", CrossChannel=0, NormalizeVariance=1, Epsilon=0.00001,
              FusedActivation=None, ScaleTensor=PRESENT, BiasTensor=PRESENT, ExecutionFlags="NONE"):
    return mean_variance(x, dtype, nan_rule, axes(CrossChannel), ScaleTensor, BiasTensor, True,
                         bool(NormalizeVariance), Epsilon, FusedActivation)
