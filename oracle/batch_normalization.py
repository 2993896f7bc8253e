"""DML_BATCH_NORMALIZATION: Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) +
Bias), Mean, Variance, Scale and Bias given tensors broadcast to Input (any dimension of size 1).
Spatial is deprecated from 4_0 and changes no value."""
from oracle.normalizing import activated, normalized

OPERATOR = "BATCH_NORMALIZATION"
DEFAULTS = {"Spatial": 1, "Epsilon": 0.00001, "FusedActivation": None, "ExecutionFlags": "NONE"}


def reference(x, dtype: str, nan_rule="d3d", Spatial=1, Epsilon=0.00001, FusedActivation=None,
              ExecutionFlags="NONE"):
    data, mean, variance, scale, bias = x
    return activated(normalized(data, mean, variance, Epsilon, scale, bias), dtype, nan_rule, FusedActivation)
