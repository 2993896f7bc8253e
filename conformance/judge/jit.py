"""numba, imported after the harness has chosen its code generation: the one way the harness's
modules import it, so that every process builds, and finds in numba's on-disk cache, the same
machine code whatever it imported first."""
import os
import sys


def _prefer_wide_vectors():
    """LLVM gives AVX-512 processors 256-bit vectors by default ("prefer-256-bit"); these loops
    verify 10-15% faster with 512-bit ones (measured on a Xeon with AVX-512). Only before numba
    is imported, and never over NUMBA_CPU_NAME / NUMBA_CPU_FEATURES set by the user.

    numba keys its on-disk cache by the target's CPU features, so this must not depend on what a
    process imported first: before, a run that imported fused_intervals before fast_kernels.load()
    compiled every loop that `conformance compile` had cached (tests/test_precompile.py)."""
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


_prefer_wide_vectors()

import numba  # noqa: E402  (after the choice above, which numba reads once, at import)
from numba.core import event  # noqa: E402

from conformance.judge import compiling  # noqa: E402


class _Announce(event.Listener):
    """numba:compile starts only where the on-disk cache had nothing: the compiles a user waits for."""

    def on_start(self, ev):
        compiling.compiling(numba.config.CACHE_DIR or os.path.join(os.path.dirname(__file__), "__pycache__"))

    def on_end(self, ev):
        pass


event.register("numba:compile", _Announce())

__all__ = ["numba"]
