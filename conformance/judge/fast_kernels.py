"""Compiled inner loops of the acceleration layer (numba), one pass over a chunk.

These loops only summarise; they never judge an out-of-tolerance element on
their own. `float_stats` splits a chunk into *good* elements (within tolerance,
NaN where the oracle has NaN and only there) and *bad* ones. For the good ones
it returns what compare.compare would count (max distance, max fractional
error, histogram); the bad ones it marks in `scratch`, and
conformance/judge/fast.py hands just those to compare.compare, which does the full
analysis (flushing, NaN, worst elements). Every quantity is computed exactly as
conformance/judge/ulp.py and compare.py compute it:

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

# (bits type, magnitude mask, +inf bits, mantissa digits, smallest normal exponent)
FLOAT_LAYOUT = {np.dtype("float32"): (np.uint32, 0x7FFFFFFF, 0x7F800000, 24, -126),
                np.dtype("float16"): (np.uint16, 0x7FFF, 0x7C00, 11, -14)}



def as_float(values):
    """float values as the compiled loops read them: float32 as they are, float16 as float64 (exact,
    and numpy converts float16 to float64 faster than to float32)."""
    return values if values.dtype == np.float32 else values.astype(np.float64)


_module = None
_lock = threading.Lock()


def load():
    """The compiled loops: conformance.judge.fast_kernels_jit (imports numba; its on-disk cache makes
    this ~0.5 s after the first time, a few seconds the first time)."""
    global _module
    if _module is None:
        with _lock:
            if _module is None:
                from conformance.judge import fast_kernels_jit
                _module = fast_kernels_jit
    return _module


def loaded() -> bool:
    return _module is not None

