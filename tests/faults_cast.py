"""Injected CAST faults (backend python:faults_cast:<fault>): each is the oracle with one conversion rule
broken as a device might break it; a case the fault does not touch gets the oracle's exact output."""
import numpy as np

import oracle


def _target(dtype, params) -> np.dtype:
    return np.dtype(params.get("OutputType") or dtype)


def float_to_integer_rounded_to_nearest(op, x, dtype, **params):
    """Float to integer rounded half to even where Direct3D's ftoi and ftou truncate toward zero."""
    target, x = _target(dtype, params), np.asarray(x)
    if x.dtype.kind != "f" or target.kind == "f":
        return oracle.evaluate(op, x, dtype, **params)
    with np.errstate(invalid="ignore"):
        return oracle.evaluate(op, np.rint(x), dtype, **params)


def float16_by_truncated_mantissa(op, x, dtype, **params):
    """FLOAT32 to FLOAT16 by dropping the low 13 mantissa bits of each float32: an exponent out of
    float16's range gives an infinity or zero (float16 subnormals lost), and a NaN whose payload lies in
    the dropped bits becomes an infinity."""
    x = np.asarray(x)
    if x.dtype != np.float32 or _target(dtype, params) != np.float16:
        return oracle.evaluate(op, x, dtype, **params)
    bits = x.view(np.uint32).astype(np.int64)
    sign = (bits >> 16) & 0x8000
    exponent, mantissa = (bits >> 23) & 0xFF, (bits >> 13) & 0x3FF
    rebased = exponent - 127 + 15
    half = np.where(exponent == 0xFF, sign | 0x7C00 | mantissa,
                    np.where(rebased >= 31, sign | 0x7C00,
                             np.where(rebased <= 0, sign, sign | (rebased << 10) | mantissa)))
    return half.astype(np.uint16).view(np.float16)


def unsigned_target_wraps(op, x, dtype, **params):
    """An unsigned integer target keeps the low bits of the value (modulo 2^bits) where Direct3D clamps
    it to the target's range."""
    target, x = _target(dtype, params), np.asarray(x)
    if target.kind != "u":
        return oracle.evaluate(op, x, dtype, **params)
    if x.dtype.kind == "f":
        whole = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0))
        values = [int(v) for v in whole.ravel()]
    else:
        values = [int(v) for v in x.ravel().tolist()]
    modulus = 1 << (8 * target.itemsize)
    return np.array([v % modulus for v in values], dtype=target).reshape(x.shape)


def float16_toward_zero(op, x, dtype, **params):
    """Not a fault: a narrower float target rounded toward zero, as Direct3D's conversion rules say
    (a value beyond the range gives the largest finite one). The d3d judge accepts it."""
    x = np.asarray(x)
    expected = oracle.evaluate(op, x, dtype, **params)
    target = _target(dtype, params)
    if x.dtype.kind != "f" or target.kind != "f" or target.itemsize >= x.dtype.itemsize:
        return expected
    with np.errstate(invalid="ignore"):
        exact = x.astype(np.float64)
        away = np.abs(expected.astype(np.float64)) > np.abs(exact)
    return np.where(away, np.nextafter(expected, target.type(0)), expected).astype(target)
