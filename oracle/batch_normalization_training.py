"""DML_BATCH_NORMALIZATION_TRAINING: (Output, OutputMean, OutputVariance). Mean and Variance (population:
divided by n) over the dimensions where ScaleTensor's size is 1 (the page: "computed on the input across the
set of dimensions for which ScaleTensor and BiasTensor sizes equal one"), in Scale's shape; Output =
FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias + FusedAdd), FusedAddTensor
optional. Inputs in their own shapes: Input, Scale, Bias[, FusedAdd]."""
import numpy as np

from oracle.normalizing import PRESENT, activated, normalized, optional_inputs, statistics

OPERATOR = "BATCH_NORMALIZATION_TRAINING"
DEFAULTS = {"Epsilon": 0.00001, "FusedActivation": None, "FusedAddTensor": PRESENT, "ExecutionFlags": "NONE"}
OWN_SHAPES = True


def output_dtype(dtype: str) -> tuple:
    """Output, OutputMean and OutputVariance: the input's type."""
    return dtype, dtype, dtype


def reduced_axes(scale_shape) -> tuple:
    return tuple(i for i, n in enumerate(scale_shape) if n == 1)


def reference(x, dtype: str, nan_rule="d3d", Epsilon=0.00001, FusedActivation=None, FusedAddTensor=PRESENT,
              ExecutionFlags="NONE"):
    names = ("Input", "Scale", "Bias") + (("FusedAdd",) if FusedAddTensor == PRESENT else ())
    given = optional_inputs(x, names)
    data, scale, bias = given["Input"], given["Scale"], given["Bias"]
    mean, variance = statistics(data, reduced_axes(scale.shape))
    value = normalized(data, mean, variance, Epsilon, scale, bias)
    if "FusedAdd" in given:
        value = value + given["FusedAdd"]
    return (activated(value, dtype, nan_rule, FusedActivation), np.broadcast_to(mean, scale.shape),
            np.broadcast_to(variance, scale.shape))
