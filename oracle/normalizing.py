"""The normalizations' shared float64 arithmetic (MEAN_VARIANCE_NORMALIZATION and its versions,
BATCH_NORMALIZATION and BATCH_NORMALIZATION_TRAINING): statistics over axes, the pages' formula
Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias, then the fused activation's own oracle on
that value rounded to the tensor type (the unfused layers, as oracle/element_wise_add1.py)."""
import numpy as np

PRESENT = "present"


def statistics(x: np.ndarray, axes, centred: bool = True):
    """(Mean, Variance) over axes (kept, of size 1): the population variance (divided by n), about
    the mean, or about 0 where not centred (MEAN_VARIANCE_NORMALIZATION2's UseMean FALSE)."""
    axes = tuple(sorted(int(a) for a in axes))
    mean = np.mean(x, axis=axes, keepdims=True)
    centre = mean if centred else 0.0
    return mean, np.mean((x - centre) ** 2, axis=axes, keepdims=True)


def normalized(x, mean, variance, epsilon, scale=None, bias=None, use_mean=True, use_variance=True):
    value = x - mean if use_mean else x
    if use_variance:
        value = value / np.sqrt(variance + float(np.float32(epsilon)))
    if scale is not None:
        value = scale * value
    if bias is not None:
        value = value + bias
    return value


def activated(value: np.ndarray, dtype: str, nan_rule: str, fused) -> np.ndarray:
    """FusedActivation(value): None, or the activation's oracle on value rounded to dtype."""
    if fused is None:
        return value
    import oracle  # this package: its registry imports this module while it discovers operators
    from oracle.rounding import round_to
    fields = {k: v for k, v in fused.items() if k != "Type"}
    return oracle.reference(fused["Type"], round_to(value, dtype), dtype, nan_rule=nan_rule, **fields)


def optional_inputs(x, names_present: tuple) -> dict:
    """The inputs a case binds, by name: x is one array or a tuple in the page's order, of the present ones."""
    arrays = x if isinstance(x, tuple) else (x,)
    return dict(zip(names_present, arrays, strict=True))


def mean_variance(x, dtype, nan_rule, axes, scale_tensor, bias_tensor, use_mean, use_variance, epsilon, fused):
    """The three MEAN_VARIANCE_NORMALIZATION versions' one computation."""
    names = ("Input",) + (("Scale",) if scale_tensor == PRESENT else ()) + (("Bias",) if bias_tensor == PRESENT
                                                                            else ())
    given = optional_inputs(x, names)
    data = given["Input"]
    mean, variance = statistics(data, axes, centred=use_mean)
    value = normalized(data, mean, variance, epsilon, given.get("Scale"), given.get("Bias"), use_mean, use_variance)
    return activated(value, dtype, nan_rule, fused)
