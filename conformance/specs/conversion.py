"""Direct3D's data conversion rules (D3D11.3 functional spec, 3.2 and 22.13) as acceptance sets: for
each element converted from one tensor type to another, the values the rules allow, as [lo, hi] in
the target type (OperatorSpec.accepted; CAST is the operator that is nothing else).

- float to a narrower float: "round-to-zero must be used" (3.2.2), while IEEE and ONNX round to
  nearest even: either (the project's rule for a float16 store, judge/intervals.py); beyond the
  target's range toward zero gives its largest finite value, to nearest an infinity. NaN stays NaN
  (any payload), infinities stay infinities. A float32 result that is subnormal may be 0 (float32 has
  no denormals in Direct3D's arithmetic), a float16 one may not.
- float to a wider float: exact. A float32 subnormal input may be read as a sign-preserved zero.
- float to integer (ftoi, ftou): toward zero, NaN gives 0, clamped to the range; to a 64-bit integer
  no Direct3D instruction states it: NaN and values beyond the range may give any value.
- integer to float (itof, utof): "round to nearest even mode is strongly recommended but not
  required": either neighbour of the exact value (beyond a float16's range, its largest or infinity).
- integer to integer: sign-extended, zero-padded or clamped to the target's range (3.2.3.9 to 3.2.3.13).
  Where the sign changes (a negative value to an unsigned type, an unsigned one beyond a signed
  type's range), HLSL's cast reinterprets the bits instead (at 32 bits, or 64 where either type has
  64) and the store clamps that: any value between the two readings is accepted.
"""
import numpy as np

ANY_VALUE_64 = ("int64", "uint64")  # float to these: no Direct3D rule for NaN or beyond the range


def accepted(x: np.ndarray, target: str):
    """(lo, hi, may be a number, may be NaN) of each element of x (flat, in its own type) converted
    to target: lo and hi float64 for a float target, of the target's type for an integer one."""
    x, target = np.asarray(x), np.dtype(target)
    with np.errstate(over="ignore", invalid="ignore"):
        return _accepted(x, target)


def _accepted(x, target):
    if target.kind == "f":
        lo, hi = (_float_from_float if x.dtype.kind == "f" else _float_from_integer)(x, target)
        nan = np.isnan(lo)
        return lo, hi, ~nan, nan
    if x.dtype.kind == "f":
        lo, hi = _integer_from_float(x, target)
    else:
        lo, hi = _integer_from_integer(x, target)
    return lo, hi, np.ones(x.shape, dtype=bool), np.zeros(x.shape, dtype=bool)


def _float_from_float(x, target):
    exact = x.astype(np.float64)
    if target.itemsize >= x.dtype.itemsize:
        lo = hi = exact
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            nearest = exact.astype(target)
            away = np.abs(nearest.astype(np.float64)) > np.abs(exact)
            toward_zero = np.where(away, np.nextafter(nearest, target.type(0)), nearest)
        lo = np.minimum(nearest, toward_zero).astype(np.float64)
        hi = np.maximum(nearest, toward_zero).astype(np.float64)
    if x.dtype == np.float32:  # a subnormal input may be read as zero
        lo, hi = _with_zero(lo, hi, _subnormal(x))
    if target == np.float32:  # a subnormal result may be written as zero
        lo, hi = _with_zero(lo, hi, _subnormal(hi) | _subnormal(lo))
    return lo, hi


def _float_from_integer(x, target):
    nearest = x.astype(target)  # correctly rounded (numpy's C conversions)
    above, below = _compare_exactly(nearest, x)
    with np.errstate(over="ignore"):
        lo = np.where(above, np.nextafter(nearest, target.type(-np.inf)), nearest).astype(np.float64)
        hi = np.where(below, np.nextafter(nearest, target.type(np.inf)), nearest).astype(np.float64)
    return lo, hi


def _compare_exactly(rounded, x):
    """(rounded > x, rounded < x), exactly, for integers x of up to 64 bits and their floats."""
    if x.dtype.itemsize <= 4:
        wide, exact = rounded.astype(np.float64), x.astype(np.float64)
        return wide > exact, wide < exact
    finite = np.isfinite(rounded)
    as_int = np.array([int(r) if f else 0 for r, f in zip(rounded.ravel(), finite.ravel())], dtype=object)
    values = x.astype(object).ravel()
    above = np.where(finite.ravel(), as_int > values, rounded.ravel() > 0).reshape(x.shape)
    below = np.where(finite.ravel(), as_int < values, rounded.ravel() < 0).reshape(x.shape)
    return above.astype(bool), below.astype(bool)


def _integer_from_float(x, target):
    info = np.iinfo(target)
    exact = x.astype(np.float64)
    if x.dtype == np.float32:  # a subnormal read as zero truncates to 0 as well
        exact = np.where(_subnormal(x), 0.0, exact)
    whole = np.trunc(np.where(np.isnan(exact), 0.0, exact))
    low, high = whole <= float(info.min), whole >= float(info.max)
    value = np.zeros(x.shape, dtype=target)
    inside = ~low & ~high
    value[inside] = whole[inside].astype(target)
    value[low], value[high] = info.min, info.max
    lo, hi = value.copy(), value.copy()
    if target.name in ANY_VALUE_64:
        undefined = np.isnan(exact) | (whole < float(info.min)) | (whole >= float(info.max) + 1.0)
        lo[undefined], hi[undefined] = info.min, info.max
    return lo, hi


def _integer_from_integer(x, target):
    """Between the clamp (3.2.3.13) and HLSL's cast: the bits reinterpreted at 32 bits (64 where
    either type has 64), then clamped to the target's range by the store."""
    clamped = np.clip(x, *integer_bounds(x.dtype, target)).astype(target)
    if (x.dtype.kind == "u") == (target.kind == "u"):
        return clamped, clamped
    bits = 64 if max(x.dtype.itemsize, target.itemsize) == 8 else 32
    info = np.iinfo(target)
    wrapped = [int(v) % (1 << bits) for v in x.ravel().tolist()]
    if target.kind == "i":
        wrapped = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in wrapped]
    stored = np.array([min(max(v, int(info.min)), int(info.max)) for v in wrapped], dtype=target).reshape(x.shape)
    return np.minimum(clamped, stored), np.maximum(clamped, stored)


def integer_bounds(source: np.dtype, target: np.dtype):
    """The target's range within the source's, in the source type (clip's bounds)."""
    s, t = np.iinfo(source), np.iinfo(target)
    return source.type(max(s.min, t.min)), source.type(min(s.max, t.max))


def _subnormal(v) -> np.ndarray:
    v = np.asarray(v)
    tiny = np.finfo(np.float32).smallest_normal
    return (v != 0) & (np.abs(v) < tiny)


def _with_zero(lo, hi, where):
    return np.where(where, np.minimum(lo, 0.0), lo), np.where(where, np.maximum(hi, 0.0), hi)
