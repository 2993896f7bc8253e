"""DML_CAST: f(x) = cast(x), each element converted to the output tensor's data type (the case's
OutputType). The page says no more; the conversion is Direct3D's (D3D11.3 functional spec, 3.2 and
22.13), each result exactly rounded where the rules allow a choice:
- float to a narrower float: to nearest even (the rules also allow toward zero: the spec's accepted set);
- float to integer: toward zero (ftoi, ftou), NaN gives 0, out of range saturates to the type's
  limits (ftoi's clamp, then 3.2.3.13's clamp to a narrower type);
- integer to float: to nearest even (itof: "strongly recommended");
- integer to integer: clamped to the target's range (3.2.3.9 to 3.2.3.13).
Integer inputs keep their type (64-bit values exact); float inputs arrive as float64 (exact).
"""
import numpy as np

OPERATOR = "CAST"
DEFAULTS = {"OutputType": None}  # not a DirectML field: OutputTensor's data type
TYPE_FIELDS = ("OutputType",)


def output_dtype(dtype: str, OutputType=None) -> str:
    """OutputTensor's type: the case's OutputType; unset, the input's own."""
    return OutputType or dtype


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", OutputType=None) -> np.ndarray:
    target = np.dtype(output_dtype(dtype, OutputType))
    if target.kind == "f":
        if x.dtype.kind == "f":
            return x  # float64, exact: rounded once to the target by oracle.evaluate
        return x.astype(target)  # one correctly rounded conversion (not through float64: no double rounding)
    if x.dtype.kind == "f":
        return float_to_integer(x, target)
    return integer_to_integer(x, target)


def float_to_integer(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """Toward zero, NaN to 0, saturated to the target's range."""
    info = np.iinfo(target)
    whole = np.trunc(np.where(np.isnan(x), 0.0, x))
    out = np.zeros(x.shape, dtype=target)
    low, high = whole <= float(info.min), whole >= float(info.max)  # float(max) of 64 bits rounds up: >=
    inside = ~low & ~high
    out[inside] = whole[inside].astype(target)
    out[low], out[high] = info.min, info.max
    return out


def integer_to_integer(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """Clamped to the target's range (in the source type, whose range holds both bounds)."""
    source, wanted = np.iinfo(x.dtype), np.iinfo(target)
    low, high = max(source.min, wanted.min), min(source.max, wanted.max)
    return np.clip(x, x.dtype.type(low), x.dtype.type(high)).astype(target)
