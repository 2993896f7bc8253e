"""Faults of a device's quantizing operators (backend python:faults_quantize:<fault>): each computes
ELEMENT_WISE_QUANTIZED_LINEAR_ADD as a broken kernel would. (QUANTIZE's blocked scale taken per tensor
needs QUANTIZE, which is not shipped yet.)"""
import numpy as np

import oracle
from oracle.element_wise_dequantize_linear import dequantized


def zero_point_ignored(op, x, dtype, **params):
    """Every zero point read as 0 (a kernel that drops the _Maybenull_ tensors it was given)."""
    a, a_scale, a_zero, b, b_scale, b_zero, scale, zero = x
    zeros = [np.zeros_like(v) for v in (a_zero, b_zero, zero)]
    return oracle.evaluate(op, (a, a_scale, zeros[0], b, b_scale, zeros[1], scale, zeros[2]), dtype, **params)


def round_half_away(op, x, dtype, **params):
    """The quotient rounded half away from zero (HLSL's round() on some hardware) where the rule is ties to even."""
    a, a_scale, a_zero, b, b_scale, b_zero, scale, zero = x
    quotient = (dequantized(a, a_scale, a_zero) + dequantized(b, b_scale, b_zero)) / scale.astype(np.float64)
    rounded = np.sign(quotient) * np.floor(np.abs(quotient) + 0.5) + zero.astype(np.float64)
    target = np.dtype(oracle.output_dtype(op, dtype, **params))
    return np.clip(np.nan_to_num(rounded), np.iinfo(target).min, np.iinfo(target).max).astype(target)
