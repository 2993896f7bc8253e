"""DML_MEAN_VARIANCE_NORMALIZATION2 (the page's description is "TBD"; inferred from
MEAN_VARIANCE_NORMALIZATION1, see the spec's notes): Output = FusedActivation(Scale * ((Input - C) /
D) + Bias), C the Mean over Axes where UseMean (else 0), D = sqrt(Variance + Epsilon) where UseVariance
(else 1), Variance the mean of (Input - C)^2 (with UseMean FALSE: of Input^2, RMS normalization)."""
from oracle.normalizing import PRESENT, mean_variance

OPERATOR = "MEAN_VARIANCE_NORMALIZATION2"
DEFAULTS = {"Axes": None, "UseMean": 1, "UseVariance": 1, "Epsilon": 0.00001, "FusedActivation": None,
            "ScaleTensor": PRESENT, "BiasTensor": PRESENT, "ExecutionFlags": "NONE"}


def reference(x, dtype: str, nan_rule="d3d", Axes=None, UseMean=1, UseVariance=1, Epsilon=0.00001,
              FusedActivation=None, ScaleTensor=PRESENT, BiasTensor=PRESENT, ExecutionFlags="NONE"):
    return mean_variance(x, dtype, nan_rule, Axes, ScaleTensor, BiasTensor, bool(UseMean), bool(UseVariance),
                         Epsilon, FusedActivation)
