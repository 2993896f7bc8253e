"""The judge of an output that is neither a copy nor an index (DYNAMIC_QUANTIZE_LINEAR's scale, zero
point and quantized tensor): each element within [lo, hi], its own interval (zero-width where the page
fixes one value), a wrong element named by its output index, the interval and the value expected."""
import numpy as np

from conformance.judge.compare import (WORST_SHOWN, Comparison, empty_interval_summary, hex_bits, jsonable,
                                       ulp_histogram, wrong_type_or_shape)
from conformance.judge.ulp import ulp_distance


def compare_bounded(data, expected, actual, lo=None, hi=None) -> Comparison:
    """data: the first input; expected: the oracle's (or what the device's other outputs make it); lo,
    hi: each element's bounds in the output's type (None: expected itself). NaN is within only where
    expected is NaN. A wrong element's input: data's element at its index where the output has data's
    shape, else data's least and greatest elements."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    wrong = wrong_type_or_shape(expected, actual)
    if wrong is not None:
        return wrong
    lo = expected if lo is None else np.broadcast_to(np.asarray(lo, dtype=expected.dtype), expected.shape)
    hi = expected if hi is None else np.broadcast_to(np.asarray(hi, dtype=expected.dtype), expected.shape)
    flat_e, flat_a, flat_lo, flat_hi = (v.reshape(-1) for v in (expected, actual, lo, hi))
    inside = (flat_a >= flat_lo) & (flat_a <= flat_hi)
    if expected.dtype.kind == "f":
        nan = np.isnan(flat_e) | np.isnan(flat_a)
        inside = np.where(nan, np.isnan(flat_e) & np.isnan(flat_a), inside)
        nan_mismatch = np.isnan(flat_e) != np.isnan(flat_a)
        distance = np.where(nan, 0, ulp_distance(flat_e, flat_a))
    else:
        nan_mismatch = np.zeros(flat_e.shape, dtype=bool)
        distance = ulp_distance(flat_e, flat_a)
    bad = ~inside
    distance = np.where(bad, distance, 0)
    result = Comparison(elements=int(expected.size), mismatches=int(bad.sum()),
                        nan_mismatches=int((nan_mismatch & bad).sum()),
                        max_ulp=int(distance.max()) if distance.size else 0,
                        max_fractional_ulp=0.0 if expected.dtype.kind == "f" else None,
                        histogram=ulp_histogram(distance, nan_mismatch & bad, np.zeros_like(bad)))
    result.d3d = empty_interval_summary()
    result.d3d["checked"] = int(expected.size)
    if not result.mismatches:
        return result
    positions = np.flatnonzero(bad)
    order = positions[np.argsort(-distance[positions], kind="stable")[:WORST_SHOWN]]
    index = np.unravel_index(order, expected.shape)
    data = np.asarray(data)
    whole = [jsonable(data.min()), jsonable(data.max())] if data.size else []
    result.worst = [{"index": [int(axis[k]) for axis in index],
                     "input": jsonable(data[tuple(int(axis[k]) for axis in index)]) if data.shape == expected.shape
                     else whole, "expected": jsonable(flat_e[p]),
                     "actual": jsonable(flat_a[p]), "lo": jsonable(flat_lo[p]), "hi": jsonable(flat_hi[p]),
                     "ulp": int(distance[p]), "bits": {"expected": hex_bits(flat_e[p]), "actual": hex_bits(flat_a[p])}}
                    for k, p in enumerate(order)]
    result.d3d.update(failed=result.mismatches, outside=result.mismatches, max_ratio="inf",
                      worst=[{**item, "ratio": "inf", "rule": "outside"} for item in result.worst])
    return result
