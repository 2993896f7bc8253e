"""compare.compare of float32 and float16 elements in compiled passes, for elements that fail in bulk.

A device that fails every element (a flushed range, a wrong formula, float16 stored toward zero)
would send each through compare.compare's numpy passes and the d3d interval evaluation,
microseconds per element. Here one compiled pass (fast_kernels_jit.float_bad_stats) counts,
flushes, bins and keeps the worst; the d3d intervals of the elements off the exactly rounded value
are evaluated by fused_intervals (the formula in generated compiled loops, intervals.Evaluator's
operations), a second pass (float_d3d_verdicts) judges them, and only the few elements kept for the
record are described in Python. One input or several (each of the output's flat length): where an
input is subnormal, what the oracle gives with it flushed is computed beforehand (numpy, those
elements only). The result is compare.compare's Comparison, field for field
(tests/test_speed_equivalence.py, tests/test_pairs.py).
"""
import numpy as np

from conformance.caseset import operands
from conformance.judge.compare import (WORST_SHOWN, Comparison, bit_patterns, empty_interval_summary, histogram_bins,
                                       jsonable)
from conformance.judge.d3d import RULES
from conformance.judge.fast_kernels import FLOAT_LAYOUT, as_float
from conformance.judge.ulp import ulp_distance

_INT64_MAX = np.iinfo(np.int64).max


def applies(judge, expected, zero_results) -> bool:
    """float32 or float16 elements, judged (or not) in their own type, with f(+-0) (one input) or a
    function of the flushed inputs (several) in that type."""
    if expected.dtype not in FLOAT_LAYOUT or (judge is not None and judge.dtype != expected.dtype):
        return False
    return zero_results is None or callable(zero_results) or all(np.asarray(z).dtype == expected.dtype
                                                                  for z in zero_results)


def _flush_candidates(x, zero_results, bits):
    """(rows, candidates) of float_bad_stats: for each element with a subnormal input, the bits of
    the oracle's answers with the subnormal inputs flushed."""
    n = x[0].size if operands.several(x) else x.size
    rows = np.full(n, -1, np.int64)
    if zero_results is None:
        return rows, np.zeros((1, 1), np.int64)
    if not callable(zero_results):  # one input: f(+0) and f(-0), the one row of candidates
        rows[operands.subnormal(x)] = 0
        return rows, np.array([[np.asarray(z).view(bits) for z in zero_results]], dtype=np.int64)
    inside = np.flatnonzero(operands.subnormal(x))
    if not inside.size:
        return rows, np.zeros((1, 1), np.int64)
    rows[inside] = np.arange(inside.size)
    found = zero_results(operands.take(x, inside))
    return rows, np.stack([np.asarray(f).view(bits) for f in found], axis=1).astype(np.int64)


def compare(kernels, x, expected, actual, tolerance, flush_allowed, zero_results, reference, judge) -> Comparison:
    """compare.compare(x, expected, actual, ...) of flat float32 or float16 arrays (x: one input or a
    tuple of several, each as long; reference: float64)."""
    from conformance.judge import fused_intervals
    n = expected.size
    reference = np.asarray(reference, dtype=np.float64)  # a bitwise operator's is float16 (its bits)
    layout = FLOAT_LAYOUT[expected.dtype]
    bits, mask, inf, digits, low = layout
    histogram = np.zeros(64, dtype=np.int64)
    worst_keys, worst = np.empty(WORST_SHOWN, np.int64), np.empty(WORST_SHOWN, np.int64)
    differing = np.empty(n, np.int64)
    rows, candidates = _flush_candidates(x, zero_results if flush_allowed else None, bits)
    mismatches, nan_mismatches, flushed, max_distance, fraction_bits, kept, differ = kernels.float_bad_stats(
        expected.view(bits), actual.view(bits), as_float(actual), reference, tolerance,
        bool(flush_allowed), rows, candidates,
        mask, inf, _normal_bits(expected.dtype), digits, low, histogram, worst_keys, worst, differing)
    result = Comparison(
        elements=n, mismatches=mismatches, nan_mismatches=nan_mismatches, flushed=flushed, max_ulp=max_distance,
        max_fractional_ulp=float(np.int64(fraction_bits).view(np.float64)) if n else None,
        worst=[_element(k, x, expected, actual, worst_keys[j]) for j, k in enumerate(worst[:kept])],
        histogram={"bins": histogram_bins(histogram), "nan": nan_mismatches, "flushed": flushed})
    if judge is None:
        return result
    where = differing[:differ]
    d3d = empty_interval_summary()
    if differ:
        xs, es, acts, refs = (x, expected, actual, reference) if differ == n else \
            (operands.take(x, where), expected[where], actual[where], reference[where])
        lo, hi, num, may_nan = fused_intervals.bounds(judge, xs, es)
        es, acts = as_float(es), as_float(acts)
        denormal = judge.denormals_flushed(xs, es, acts)
        ratio, semantic = np.empty(differ), np.empty(differ, np.int8)
        ratio_keys, failed_worst = np.empty(WORST_SHOWN), np.empty(WORST_SHOWN, np.int64)
        low, high = (float(v) for v in judge.range) if judge.range is not None else (0.0, 0.0)
        failed, outside, broken, lowering, finite, max_ratio, failed_kept = kernels.float_d3d_verdicts(
            es, acts, refs,
            np.ascontiguousarray(lo, np.float64), np.ascontiguousarray(hi, np.float64),
            np.ascontiguousarray(num, bool), np.ascontiguousarray(may_nan, bool), bool(judge.keeps_sign),
            judge.range is not None, low, high, denormal, ratio, semantic, ratio_keys, failed_worst)
        d3d.update(checked=int(differ), failed=int(failed), outside=int(outside), semantic=int(broken),
                   lowering_defined=int(lowering), max_ratio=float(max_ratio) if finite else "inf")
        d3d["worst"] = [_interval_element(int(where[k]), x, expected, actual, lo[k], hi[k], ratio[k], semantic[k])
                        for k in failed_worst[:failed_kept]]
        for item, position in zip(result.worst, worst[:kept]):  # compare._with_bounds
            k = int(np.searchsorted(where, position))
            item["lo"], item["hi"] = (jsonable(lo[k]), jsonable(hi[k])) if num[k] else (None, None)
    result.d3d = d3d
    return result


def _normal_bits(dtype):
    """The bits of the smallest normal value of a float type."""
    return int(np.array(np.finfo(dtype).smallest_normal, dtype=dtype).view(FLOAT_LAYOUT[dtype][0]))


def _element(position, x, expected, actual, key):
    """compare._element's dict of a kept element (key: its ULP sort key)."""
    position = int(position)
    return {"index": [position], "input": operands.element(x, position, jsonable),
            "expected": jsonable(expected[position]),
            "actual": jsonable(actual[position]), "ulp": "nan" if key == _INT64_MAX else int(key),
            "bits": bit_patterns(x, expected, actual, position)}


def _interval_element(position, x, expected, actual, lo, hi, ratio, semantic):
    """compare.interval_summary's dict of a kept element outside the rules."""
    e, a = expected[position:position + 1], actual[position:position + 1]
    ulp = "nan" if np.isnan(a[0]) != np.isnan(e[0]) else int(ulp_distance(e, a)[0])
    return {"index": [position], "input": operands.element(x, position, jsonable), "expected": jsonable(e[0]),
            "actual": jsonable(a[0]), "lo": jsonable(lo), "hi": jsonable(hi), "ratio": jsonable(ratio),
            "rule": RULES[semantic] or "outside", "ulp": ulp, "bits": bit_patterns(x, expected, actual, position)}
