"""The verifier's compiled loops built ahead of a run (`conformance compile`).

numba compiles a loop the first time it is called with a set of argument types, and caches the
machine code (NUMBA_CACHE_DIR, or the package's __pycache__); fused_intervals compiles one loop per
formula shape. A fresh machine pays that during its first run: 5 to 26 s per operator on 2 cores
(ACTIVATION_CELU's compiled reference, comparison, bad-element statistics and interval loops), inside
the first chunks of a sweep. This module pays it ahead, once a machine, as installing does: for each
operator, type and parameter set of the given cases that the compiled loops verify, it verifies a
small made-up tensor through the very calls a run makes (Verifier.check with the compiled loops),
with elements exact, one ULP off, NaN and flushed, so that every loop the run will call is built.
Nothing it computes is kept but numba's cache.
"""
import dataclasses
import time

import numpy as np

from conformance import specs
from conformance.judge import fast, fast_kernels
from conformance.judge.expected import expected_for

ELEMENTS = 1 << 16


def kinds(cases) -> list:
    """One case per operator, type, NaN rule and parameter set that the compiled loops verify."""
    seen, chosen = set(), []
    for case in cases:
        if case.dtype not in ("float32", "float16") or not _compiled(case):
            continue
        key = (case.op, case.dtype, case.nan_rule, repr(sorted(case.params.items())))
        if key not in seen:
            seen.add(key)
            chosen.append(case)
    return chosen


def _compiled(case) -> bool:
    """An element-wise operator, of one input or several (a pair sweep's), with an output of its
    input's type: what the compiled loops verify."""
    spec = specs.get(case.op)
    return spec.family.pointwise and spec.tensor_type("OutputTensor", case.dtype, case.params) == case.dtype


def sample(dtype: str, n: int = ELEMENTS) -> np.ndarray:
    """n inputs spread over every bit pattern of dtype (both signs, zeros, subnormals, normals,
    infinities and NaN), so that every branch of an operator's formula is taken."""
    bits = np.linspace(0, (1 << 32) - 1 if dtype == "float32" else (1 << 16) - 1, n)
    unsigned = np.uint32 if dtype == "float32" else np.uint16
    return bits.astype(np.uint64).astype(unsigned).view(np.dtype(dtype))


def device_output(expected: np.ndarray) -> np.ndarray:
    """expected with every third element one ULP up, some NaN and the subnormals flushed: a device
    whose elements take each path of the comparison."""
    actual = expected.copy()
    bits = actual.view(np.uint32 if actual.dtype == np.float32 else np.uint16)
    finite = np.isfinite(actual)
    bits[::3][finite[::3]] += 1
    actual[5::97] = np.nan
    tiny = np.finfo(actual.dtype).smallest_normal
    actual[(np.abs(expected) < tiny) & (expected != 0)] = 0
    return actual


def compile_one(case) -> str:
    """Verify a made-up tensor of case's kind through the compiled loops -> a line saying so."""
    x = sample(case.dtype)
    if case.several:  # every input the sample, each turned by a different amount
        x = tuple(np.roll(x, 7919 * k) for k in range(len(case.inputs)))
    made = dataclasses.replace(case, shape=(ELEMENTS,), generator={"kind": "precompile"}, own_values=None)
    with np.errstate(all="ignore"):
        expected = expected_for(made, x)[0]
    start = time.perf_counter()
    with fast.Verifier(jobs=1, kernel="always") as verifier:
        if case.several:
            verifier.add_chunk(fast.Tally(made.shape, made.dtype), made, x, device_output(expected), 0)
        else:
            verifier.check(made, x, device_output(expected))
    return f"  {case.op} {case.dtype} {case.params}: {time.perf_counter() - start:.1f} s"


def compile_for(cases, out=print, map_=map, processes: int = 1) -> float:
    """Build the compiled loops every case of cases will call; -> the seconds it took. map_ runs
    compile_one over the kinds: the builtin here, or a pool's map over `processes` processes (numba
    compiles holding one core; each loop is cached on disk by whichever process builds it)."""
    if not fast_kernels.AVAILABLE:
        out("numba is not installed: nothing to compile (the numpy paths need nothing)")
        return 0.0
    began = time.perf_counter()
    fast_kernels.load()
    chosen = kinds(cases)
    for line in map_(compile_one, chosen):
        out(line)
    seconds = time.perf_counter() - began
    out(f"compiled the loops of {len(chosen)} operator, type and parameter sets in {seconds:.1f} s"
        f"{f' ({processes} processes)' if processes > 1 else ''}")
    return seconds
