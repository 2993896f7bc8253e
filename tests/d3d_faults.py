"""Devices with faults the Direct3D precision rules forbid (and one they allow), for the d3d
model's sharpness tests: python:d3d_faults:NAME, with oracle.evaluate's signature."""
import numpy as np

import oracle
from oracle.minmax import dml_max, dml_min
from oracle.rounding import float_param, round_to


def _celu(x, alpha, exp):
    x = np.asarray(x, dtype=np.float64)
    return dml_max(0.0, x) + dml_min(0.0, alpha * (exp(x / alpha) - 1.0))


def celu_exp_error_2_15(op, x, dtype, **params):
    """CELU whose exp has relative error 2^-15 (Direct3D allows 2^-21)."""
    if op != "ACTIVATION_CELU":
        return oracle.evaluate(op, x, dtype, **params)
    alpha = float_param(params.get("Alpha", 1.0))
    with np.errstate(all="ignore"):
        return round_to(_celu(x, alpha, lambda v: np.exp(v) * (1 + 2.0 ** -15)), dtype)


def celu_as_directml_computes_it(op, x, dtype, **params):
    """CELU as a float32 shader computes it: exp(x) - 1 with an exp a few ULP off near 1,
    which Direct3D allows (DirectML's -5.96e-8 for CELU(-1e-45) is this)."""
    alpha = np.float32(float_param(params.get("Alpha", 1.0)))
    with np.errstate(all="ignore"):
        x32 = np.asarray(x, dtype=np.float32)
        e = np.exp2(np.float32(np.log2(np.e)) * (x32 * (np.float32(1) / alpha)))
        e = np.where((x32 < 0) & (x32 > -1e-6), np.nextafter(e, np.float32(0)), e)  # 1 - 2^-24 near 0
        y = np.fmax(np.float32(0), x32) + np.fmin(np.float32(0), alpha * (e - np.float32(1)))  # Direct3D min/max
    return y.astype(dtype)


def celu_wrong_sign_tiny(op, x, dtype, **params):
    """CELU that turns tiny negative results positive."""
    result = oracle.evaluate(op, x, dtype, **params)
    tiny = (np.asarray(x) < 0) & (np.asarray(x) > -1e-3)
    return np.where(tiny, -result, result).astype(dtype)


def off_by_one_ulp(op, x, dtype, **params):
    """Every finite non-zero float output one ULP away from the exactly rounded value."""
    result = oracle.evaluate(op, x, dtype, **params)
    if result.dtype.kind != "f":
        return result
    moved = np.nextafter(result, np.array(np.inf, dtype=result.dtype))
    return np.where(np.isfinite(result) & (result != 0), moved, result)


def pow_exp_log_2_12(op, x, dtype, **params):
    """pow(x, y) as exp(y * log(x)) with relative error 2^-12."""
    if op != "ELEMENT_WISE_CONSTANT_POW":
        return oracle.evaluate(op, x, dtype, **params)
    y = float_param(params.get("Exponent", 1.0))
    with np.errstate(all="ignore"):
        value = np.exp(y * np.log(np.asarray(x, dtype=np.float64))) * (1 + 2.0 ** -12)
    return round_to(value, dtype)


def flush_float16_denormals(op, x, dtype, **params):
    """Subnormal outputs written as zero (Direct3D allows it for float32, not for float16)."""
    result = oracle.evaluate(op, x, dtype, **params)
    if result.dtype.kind != "f":
        return result
    tiny = np.finfo(result.dtype).smallest_normal
    return np.where((result != 0) & (np.abs(result) < tiny), np.zeros_like(result), result)


def swallow_nan(op, x, dtype, **params):
    """NaN where the page says NaN comes back as 0."""
    result = oracle.evaluate(op, x, dtype, **params)
    return np.where(np.isnan(result), np.zeros_like(result), result) if result.dtype.kind == "f" else result
