"""DML_ELEMENT_WISE_CLIP1: f(x) = max(Min, min(x, Max)), after the optional ScaleBias.

Min and Max are DML_SCALAR_UNIONs of MinMaxDataType, which must be the output's type: they hold
values of the tensor's own type (no cast, unlike CLIP's FLOAT fields), so integer bounds are exact
to the last bit of an int64. Unset bounds (the page gives no typical ones) are the type's lowest and
highest finite values, what ONNX Runtime writes for a Clip without min or max.
"""
import numpy as np

from oracle.minmax import dml_max, dml_min
from oracle.scale_bias import apply_scale_bias, apply_scale_bias_to_integers

OPERATOR = "ELEMENT_WISE_CLIP1"
DEFAULTS = {"ScaleBias": None, "MinMaxDataType": None, "Min": None, "Max": None}


def typed_bound(value, dtype: str, highest: bool):
    """A bound as the DML_SCALAR_UNION of the tensor type holds it: a float of that type (as float64)
    or an exact Python int; None is the type's lowest or highest finite value."""
    target = np.dtype(dtype)
    info = np.finfo(target) if target.kind == "f" else np.iinfo(target)
    if value is None:
        return (float if target.kind == "f" else int)(info.max if highest else info.min)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return float(np.array(value, dtype=np.float64).astype(target))
    if not float(value).is_integer() or not info.min <= int(value) <= info.max:
        raise ValueError(f"CLIP1 bound {value!r} is not a {dtype} value")
    return int(value)


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None, MinMaxDataType=None, Min=None,
              Max=None) -> np.ndarray:
    if MinMaxDataType not in (None, dtype):
        raise ValueError(f"CLIP1: MinMaxDataType {MinMaxDataType} must be the output's type {dtype}")
    low, high = typed_bound(Min, dtype, False), typed_bound(Max, dtype, True)
    if x.dtype.kind in "iu":
        if ScaleBias is None:
            return np.maximum(np.array(low, x.dtype), np.minimum(x, np.array(high, x.dtype)))
        g = apply_scale_bias_to_integers(x, ScaleBias)
        return np.array([max(low, min(v, high)) for v in g.ravel().tolist()], dtype=object).reshape(x.shape)
    clipped_above = dml_min(apply_scale_bias(x, ScaleBias), np.float64(high), nan_rule)
    return dml_max(np.float64(low), clipped_above, nan_rule)
