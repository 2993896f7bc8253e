"""DML_MEAN_VARIANCE_NORMALIZATION1: Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance +
Epsilon)) + Bias), Mean and Variance (population: divided by n) over Axes; NormalizeVariance FALSE:
FusedActivation(Scale * (Input - Mean) + Bias). ScaleTensor and BiasTensor are optional ("present" or
"absent"); x holds the bound ones in the page's order (Input, Scale, Bias), broadcast to Input."""
from oracle.normalizing import PRESENT, mean_variance

OPERATOR = "MEAN_VARIANCE_NORMALIZATION1"
DEFAULTS = {"Axes": None, "NormalizeVariance": 1, "Epsilon": 0.00001, "FusedActivation": None,
            "ScaleTensor": PRESENT, "BiasTensor": PRESENT, "ExecutionFlags": "NONE"}


def reference(x, dtype: str, nan_rule="d3d", Axes=None, NormalizeVariance=1, Epsilon=0.00001,
              FusedActivation=None, ScaleTensor=PRESENT, BiasTensor=PRESENT, ExecutionFlags="NONE"):
    return mean_variance(x, dtype, nan_rule, Axes, ScaleTensor, BiasTensor, True, bool(NormalizeVariance), Epsilon,
                         FusedActivation)
