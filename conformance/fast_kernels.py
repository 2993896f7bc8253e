"""Compiled inner loops of the acceleration layer (numba), one pass over a chunk.

These loops only summarise; they never judge an out-of-tolerance element on
their own. `float_stats` splits a chunk into *good* elements (within tolerance,
NaN where the oracle has NaN and only there) and *bad* ones. For the good ones
it returns what compare.compare would count (max distance, max fractional
error, histogram); the bad ones it marks in `scratch` (BAD), and
conformance/fast.py hands just those to compare.compare, which does the full
analysis (flushing, NaN, worst elements). Every quantity is computed exactly as
conformance/ulp.py and compare.py compute it:

- ULP distance on the ordered mapping of the bit patterns (-0 == +0), zero
  where either side is NaN;
- the fractional error (actual - reference) * 2**(mant_dig - 1 - ilogb(ref)),
  ilogb from frexp (so ilogb(0) == -1, as numpy's frexp gives), clamped at the
  smallest normal exponent; the product by a power of two is exact, as ldexp;
- the power-of-two histogram bins of compare.ulp_histogram (bin = bit length).

tests/test_speed_equivalence.py checks them against compare.compare.
If numba is missing, AVAILABLE is False and the harness uses compare.compare.
numba is imported on first use (load()): importing it and loading the cached
machine code takes ~0.5 s, more than a run of small cases spends verifying.
"""
import importlib.util
import threading

import numpy as np

AVAILABLE = importlib.util.find_spec("numba") is not None
HISTOGRAM_BINS = 64

# (bits type, magnitude mask, +inf bits, mantissa digits, smallest normal exponent)
FLOAT_LAYOUT = {np.dtype("float32"): (np.uint32, 0x7FFFFFFF, 0x7F800000, 24, -126),
                np.dtype("float16"): (np.uint16, 0x7FFF, 0x7C00, 11, -14)}


BAD = 255  # scratch mark of an element for compare.compare


def _float_stats(expected_bits, actual_bits, actual, reference, tolerance, magnitude_mask, inf_bits,
                 mantissa_digits, min_exponent, histogram, scratch):
    """-> (bad elements, max distance of the good, max |fractional| of the good as float64 bits).

    histogram[k] += good elements whose distance has bit length k; scratch[i] = BAD marks the
    bad ones (other values: the bit length). reference: float64, as long as the chunk.
    """
    n = expected_bits.shape[0]
    bad = 0
    max_distance = 0
    good_zero = 0
    max_fraction = np.int64(0)
    sign_bit = magnitude_mask + 1
    zero_scale = 1023 + mantissa_digits  # ilogb(0) is -1 through frexp
    for i in range(n):
        e = np.int64(expected_bits[i])
        a = np.int64(actual_bits[i])
        e_magnitude = e & magnitude_mask
        a_magnitude = a & magnitude_mask
        e_nan = e_magnitude > inf_bits
        a_nan = a_magnitude > inf_bits
        e_ordered = -e_magnitude if e & sign_bit else e_magnitude
        a_ordered = -a_magnitude if a & sign_bit else a_magnitude
        distance = abs(e_ordered - a_ordered)
        distance = 0 if (e_nan | a_nan) else distance
        is_bad = (distance > tolerance) | (e_nan != a_nan)
        bad += np.int64(is_bad)
        max_distance = max(max_distance, 0 if is_bad else distance)
        good_zero += np.int64((distance == 0) & (not is_bad))
        # bit length of the distance (< 2**53, so exact through float64's exponent)
        length = (np.float64(distance).view(np.int64) >> 52) - 1022
        length = length if distance > 0 else 0
        scratch[i] = np.uint8(BAD if is_bad else length)
        r = reference[i]
        t = np.float64(actual[i])
        field = (np.float64(r).view(np.int64) >> 52) & 0x7FF
        scale = 1023 + mantissa_digits - 1 - max(field - 1023, min_exponent)
        scale = zero_scale if r == 0.0 else scale
        error_bits = np.float64((t - r) * np.int64(scale << 52).view(np.float64)).view(np.int64)
        error_bits &= 0x7FFFFFFFFFFFFFFF  # |error|: for non-negative floats the bits order as values
        same = (t == r) | ((t != t) & (r != r))
        finite = error_bits < 0x7FF0000000000000
        max_fraction = max(max_fraction, error_bits if (finite and not same and not is_bad) else 0)
    histogram[0] += good_zero
    if good_zero + bad < n:
        # Four sub-histograms break the store-to-load chain of repeated bins.
        local = np.zeros((4, HISTOGRAM_BINS), dtype=np.int64)
        for i in range(n):
            length = scratch[i]
            if length != 0 and length != BAD:
                local[i & 3, length] += 1
        for k in range(1, HISTOGRAM_BINS):
            histogram[k] += local[0, k] + local[1, k] + local[2, k] + local[3, k]
    return bad, max_distance, max_fraction


_compiled = None
_lock = threading.Lock()


def load():
    """The compiled float_stats (numba's on-disk cache makes this ~0.5 s after the first time)."""
    global _compiled
    if _compiled is None:
        with _lock:
            if _compiled is None:
                import numba
                _compiled = numba.njit(nogil=True, cache=True, error_model="numpy")(_float_stats)
    return _compiled


def loaded() -> bool:
    return _compiled is not None


def float_stats(*args):
    return load()(*args)


def warm_up():
    """Compile (or load from numba's cache) the specialisations the harness uses."""
    if not AVAILABLE:
        return
    for dtype, (bits, mask, inf, digits, low) in FLOAT_LAYOUT.items():
        values = np.zeros(4, dtype=dtype)
        float_stats(values.view(bits), values.view(bits), values.astype(np.float32), np.zeros(4), 0,
                    mask, inf, digits, low, np.zeros(HISTOGRAM_BINS, np.int64), np.empty(4, np.uint8))
