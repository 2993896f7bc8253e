"""Compiled inner loops of the acceleration layer (numba), one pass over a chunk.

These loops only summarise; they never decide on their own. `float_stats`
returns what `compare.compare` would report for a chunk *when nothing in it
mismatches* (the common case); as soon as one element is out of tolerance or
a NaN mismatches, conformance/fast.py hands the chunk to compare.compare, which
does the full analysis (flushing, worst elements). Every quantity is computed
exactly as conformance/ulp.py and compare.py compute it:

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


def _float_stats(expected_bits, actual_bits, actual, reference, tolerance, magnitude_mask, inf_bits,
                 mantissa_digits, min_exponent, histogram, scratch):
    """-> (bad, max distance, max |fractional| as float64 bits or -1 if no reference).

    histogram[k] += elements whose distance has bit length k (all elements: the
    caller only trusts this when bad == 0, where nothing is NaN-mismatched or flushed).
    scratch: a uint8 array at least as long as the chunk.
    """
    n = expected_bits.shape[0]
    bad = 0
    max_distance = 0
    nonzero = 0
    with_reference = reference.shape[0] != 0
    max_fraction = np.int64(0) if with_reference else np.int64(-1)
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
        bad += np.int64((distance > tolerance) | (e_nan != a_nan))
        max_distance = max(max_distance, distance)
        nonzero += np.int64(distance != 0)
        # bit length of the distance (< 2**53, so exact through float64's exponent)
        length = (np.float64(distance).view(np.int64) >> 52) - 1022
        scratch[i] = np.uint8(length if distance > 0 else 0)
        if with_reference:
            r = reference[i]
            t = np.float64(actual[i])
            field = (np.float64(r).view(np.int64) >> 52) & 0x7FF
            scale = 1023 + mantissa_digits - 1 - max(field - 1023, min_exponent)
            scale = zero_scale if r == 0.0 else scale
            error_bits = np.float64((t - r) * np.int64(scale << 52).view(np.float64)).view(np.int64)
            error_bits &= 0x7FFFFFFFFFFFFFFF  # |error|: for non-negative floats the bits order as values
            same = (t == r) | ((t != t) & (r != r))
            finite = error_bits < 0x7FF0000000000000
            max_fraction = max(max_fraction, error_bits if (finite and not same) else 0)
    histogram[0] += n - nonzero
    if nonzero:
        # Four sub-histograms break the store-to-load chain of repeated bins.
        local = np.zeros((4, HISTOGRAM_BINS), dtype=np.int64)
        for i in range(n):
            if scratch[i]:
                local[i & 3, scratch[i]] += 1
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
        for reference in (np.zeros(4), np.zeros(0)):
            float_stats(values.view(bits), values.view(bits), values.astype(np.float32), reference, 0,
                        mask, inf, digits, low, np.zeros(HISTOGRAM_BINS, np.int64), np.empty(4, np.uint8))
