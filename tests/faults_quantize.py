"""Faults of a device's quantizing operators (backend python:faults_quantize:<fault>): each computes
QUANTIZE, DEQUANTIZE, ELEMENT_WISE_QUANTIZED_LINEAR_ADD or DYNAMIC_QUANTIZE_LINEAR as a broken kernel
would."""
import numpy as np

import oracle
from oracle.element_wise_dequantize_linear import dequantized
from oracle.quantization import spread

BLOCKED = ("QUANTIZE", "DEQUANTIZE")


def _half_away(values):
    return np.sign(values) * np.floor(np.abs(values) + 0.5)


def _saturated(values, dtype):
    bounds = np.iinfo(dtype)
    return np.clip(np.nan_to_num(values), bounds.min, bounds.max).astype(dtype)


def _dynamic(x, params, rounding, with_zero_point=True):
    """DYNAMIC_QUANTIZE_LINEAR's outputs with the oracle's scale and zero point, OutputTensor rounded by
    rounding and the zero point added or not."""
    output, scale, zero = oracle.evaluate("DYNAMIC_QUANTIZE_LINEAR", x, str(x.dtype), **params)
    values = rounding(x.astype(np.float64) / np.float64(scale.reshape(-1)[0]))
    return _saturated(values + (int(zero.reshape(-1)[0]) if with_zero_point else 0), output.dtype), scale, zero


def zero_point_ignored(op, x, dtype, **params):
    """Every zero point read as 0 (QUANTIZED_LINEAR_ADD: the three inputs; DYNAMIC_QUANTIZE_LINEAR: the
    output quantized without the zero point it reports)."""
    if op == "DYNAMIC_QUANTIZE_LINEAR":
        return _dynamic(x, params, np.rint, with_zero_point=False)
    if op in BLOCKED:
        return oracle.evaluate(op, x[:2] + tuple(np.zeros_like(z) for z in x[2:]), dtype, **params)
    from conformance import specs
    roles = [i.role for i in specs.get(op).input_tensors(params)]  # the zero points the case binds
    return oracle.evaluate(op, tuple(np.zeros_like(v) if r == "zero_point" else v for v, r in zip(x, roles)), dtype,
                           **params)


def round_half_away(op, x, dtype, **params):
    """The quotient rounded half away from zero (HLSL's round() on some hardware) where the rule is ties to even."""
    if op == "DYNAMIC_QUANTIZE_LINEAR":
        return _dynamic(x, params, _half_away)
    if op == "QUANTIZE":
        values, scale, *zero = x
        quotient = values.astype(np.float64) / spread(scale, values.shape).astype(np.float64)
        shifted = _half_away(quotient) + (spread(zero[0], values.shape).astype(np.float64) if zero else 0)
        return _saturated(shifted, oracle.output_dtype(op, dtype, **params))
    if len(x) != 8:  # an absent zero point: the ties cases bind all three
        return oracle.evaluate(op, x, dtype, **params)
    a, a_scale, a_zero, b, b_scale, b_zero, scale, zero = x
    quotient = (dequantized(a, a_scale, a_zero) + dequantized(b, b_scale, b_zero)) / scale.astype(np.float64)
    return _saturated(_half_away(quotient) + zero.astype(np.float64), oracle.output_dtype(op, dtype, **params))


def block_size_per_tensor(op, x, dtype, **params):
    """QUANTIZE's and DEQUANTIZE's blocked scale and zero point taken per tensor: every element the first
    block's."""
    values, *quantization = x
    return oracle.evaluate(op, (values,) + tuple(np.full_like(t, t.reshape(-1)[0]) for t in quantization),
                           dtype, **params)
