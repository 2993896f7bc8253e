"""Exact rounding of float64 reference values to the target data type.

numpy converts float64 to float32 and to float16 with a single correctly
rounded step (round half to even, subnormals and overflow to inf included),
so the rounding is one astype; integer targets saturate to the type's range
after rounding half to even.
"""
import numpy as np

FLOAT_TYPES = ("float32", "float16")
INTEGER_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    target = np.dtype(dtype)
    if target.kind == "f":
        if np.asarray(values).dtype == target:
            return np.array(values)  # already exact (a bitwise operator's bits, NaN payloads kept)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(values, dtype=np.float64).astype(target)
    if np.asarray(values).dtype.kind in "iuO":  # exact integers: own type or Python ints
        return saturate_integers(np.asarray(values), dtype)
    info = np.iinfo(target)
    rounded = np.rint(np.asarray(values, dtype=np.float64))
    clipped = np.clip(rounded, float(info.min), float(info.max))
    out = clipped.astype(target)
    # float64 cannot hold 2**63 - 1 or 2**64 - 1: the clip rounds them up.
    out[rounded >= float(info.max)] = info.max
    out[np.isnan(rounded)] = 0
    return out


def saturate_integers(values: np.ndarray, dtype: str) -> np.ndarray:
    info = np.iinfo(np.dtype(dtype))
    if values.dtype == np.dtype(dtype):
        return values.copy()
    as_object = values.astype(object)
    return np.array([min(max(int(v), info.min), info.max) for v in as_object.ravel()],
                    dtype=dtype).reshape(values.shape)


def float_param(value: float) -> float:
    """A FLOAT field of a DirectML description holds a float32."""
    return float(np.float32(value))


def cast_bound_to_tensor_type(value: float, dtype: str):
    """CLIP: Min and Max are cast to a non-float tensor type before clipping.

    The page: truncation toward zero for integers, round half to even for
    float16. A bound outside an integer type's range saturates (the page is
    silent there; saturation is what a clamp to that type means).
    """
    value = float_param(value)
    target = np.dtype(dtype)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return np.array(value, dtype=np.float64).astype(target)
    if np.isnan(value):
        return target.type(0)
    info = np.iinfo(target)
    if np.isinf(value):
        return target.type(info.max if value > 0 else info.min)
    truncated = int(value)  # toward zero, exact for any finite float
    return target.type(min(max(truncated, info.min), info.max))
