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
import os
import sys
import threading

import numpy as np

AVAILABLE = importlib.util.find_spec("numba") is not None

# (bits type, magnitude mask, +inf bits, mantissa digits, smallest normal exponent)
FLOAT_LAYOUT = {np.dtype("float32"): (np.uint32, 0x7FFFFFFF, 0x7F800000, 24, -126),
                np.dtype("float16"): (np.uint16, 0x7FFF, 0x7C00, 11, -14)}

_module = None
_lock = threading.Lock()


def load():
    """The compiled loops: conformance.judge.fast_kernels_jit (imports numba; its on-disk cache makes
    this ~0.5 s after the first time, a few seconds the first time)."""
    global _module
    if _module is None:
        with _lock:
            if _module is None:
                _prefer_wide_vectors()
                from conformance.judge import fast_kernels_jit
                _module = fast_kernels_jit
    return _module


def _prefer_wide_vectors():
    """LLVM gives AVX-512 processors 256-bit vectors by default ("prefer-256-bit"); these loops
    verify 10-15% faster with 512-bit ones (measured on a Xeon with AVX-512). Only before numba
    is imported, and never over NUMBA_CPU_NAME / NUMBA_CPU_FEATURES set by the user."""
    if "numba" in sys.modules or "NUMBA_CPU_FEATURES" in os.environ or "NUMBA_CPU_NAME" in os.environ:
        return
    try:
        import llvmlite.binding as llvm
        features = llvm.get_host_cpu_features().flatten()
        name = llvm.get_host_cpu_name()
    except Exception:  # pragma: no cover - an llvmlite without these: keep numba's defaults
        return
    if "+avx512f" in features.split(","):
        os.environ["NUMBA_CPU_NAME"] = name
        os.environ["NUMBA_CPU_FEATURES"] = features + ",-prefer-256-bit"


def loaded() -> bool:
    return _module is not None
