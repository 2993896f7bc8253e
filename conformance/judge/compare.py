"""Compare a device's output with the oracle's, element by element: ULP figures, and the
d3d acceptance intervals (conformance/judge/d3d.py) for the elements that differ."""
from dataclasses import dataclass, field

import numpy as np

from conformance.caseset import operands
from conformance.judge.ulp import fractional_ulp_error, ulp_distance

WORST_SHOWN = 10


@dataclass
class Comparison:
    elements: int
    mismatches: int = 0
    nan_mismatches: int = 0
    flushed: int = 0
    max_ulp: int = 0
    max_fractional_ulp: float | None = None
    worst: list = field(default_factory=list)
    histogram: dict | None = None  # every element's ULP distance in power-of-two bins (ulp_histogram)
    problem: str | None = None  # shape or dtype mismatch: nothing element-wise to say
    d3d: dict | None = None  # the interval figures (interval_summary); None: not judged
    # Several outputs (judge/several.py): each one's {name, elements, mismatches, max_ulp[, problem]}
    outputs: list | None = None

    @property
    def passed(self) -> bool:
        return self.problem is None and self.mismatches == 0

    @property
    def within_intervals(self) -> bool:
        return self.problem is None and self.d3d is not None and self.d3d["failed"] == 0

    def passed_under(self, model: str) -> bool:
        return self.within_intervals if model == "d3d" else self.passed


def compare(x: np.ndarray, expected: np.ndarray, actual: np.ndarray, tolerance: int,
            flush_allowed: bool = True, zero_results=None, reference=None, judge=None) -> Comparison:
    """x: the input, or a tuple of inputs (several, in the page's order, broadcastable to the
    output); expected: oracle output in the target type; actual: device output.

    zero_results: (f(+0), f(-0)) in the target type, used where a flushing
    device read a subnormal input as zero; for several inputs a function of the flat inputs giving
    the oracle's outputs with subnormal inputs flushed (expected.zero_results). reference: the unrounded float64
    oracle value, for the fractional ULP error (reported, not judged). judge: the
    case's judge.d3d.IntervalJudge, for the interval figures (None: not judged).
    """
    return compare_group([(x, expected, actual, tolerance, flush_allowed, zero_results, reference)], judge)[0]


def compare_group(items, judge=None, ulp=None) -> list:
    """[compare(*item, judge=judge) for item in items]: items (x, expected, actual, tolerance,
    flush_allowed, zero_results, reference) of one judge (one operator, type, parameter set and NaN
    rule). The elements of every item that differ from the exactly rounded value get their
    intervals in one judge.elements call: its fixed cost, not its arithmetic, is what a small
    case spends. ulp: per item, the Comparison without its d3d figures where the caller has
    it already (an item with no element out of tolerance, summarised), or None."""
    results = [_compare_ulp(*item) if known is None else known
               for item, known in zip(items, ulp or [None] * len(items))]
    if judge is None:
        return results
    judged = [(result, _Differing(x, np.asarray(expected), np.asarray(actual), reference))
              for result, (x, expected, actual, *_, reference) in zip(results, items) if result.problem is None]
    verdicts = _elements(judge, [differing for _, differing in judged])
    for (result, differing), verdict in zip(judged, verdicts):
        result.d3d = _interval_summary(differing, verdict)
        _with_bounds(result.worst, differing, verdict)
    return results


def wrong_type_or_shape(expected: np.ndarray, actual: np.ndarray) -> Comparison | None:
    """The Comparison of an output of another data type or shape than the oracle's (every element a
    mismatch, the problem said), or None where both agree."""
    if actual.dtype != expected.dtype:
        return Comparison(expected.size, mismatches=expected.size,
                          problem=f"output data type {actual.dtype}, expected {expected.dtype}")
    if actual.shape != expected.shape:
        return Comparison(expected.size, mismatches=expected.size,
                          problem=f"output shape {actual.shape}, expected {expected.shape}")
    return None


def _compare_ulp(x, expected, actual, tolerance, flush_allowed, zero_results, reference) -> Comparison:
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    wrong = wrong_type_or_shape(expected, actual)
    if wrong is not None:
        return wrong
    flat_x, flat_e, flat_a = operands.flat(x, expected.shape), expected.reshape(-1), actual.reshape(-1)
    if expected.dtype.kind != "f":
        distance = ulp_distance(flat_e, flat_a)
        bad = distance > tolerance
        flushed = np.zeros_like(bad)
        if flush_allowed and zero_results is not None and bad.any():  # float inputs, integer output (comparisons)
            flushed = _flushed_among(bad, flat_x, flat_e, flat_a, tolerance, zero_results)
            bad &= ~flushed
        return _summarise(flat_x, flat_e, flat_a, np.where(flushed, 0, distance), bad, np.zeros_like(bad),
                          int(flushed.sum()), expected.shape, None,
                          ulp_histogram(distance, np.zeros_like(bad), flushed))

    e_nan, a_nan = np.isnan(flat_e), np.isnan(flat_a)
    nan_mismatch = e_nan != a_nan
    distance = np.where(e_nan | a_nan, 0, ulp_distance(flat_e, flat_a))
    bad = (distance > tolerance) | nan_mismatch
    flushed = np.zeros_like(bad)
    if flush_allowed and bad.any():
        flushed = _flushed_among(bad, flat_x, flat_e, flat_a, tolerance, zero_results)
        bad &= ~flushed
        nan_mismatch &= ~flushed
    fractional = None
    if reference is not None and flat_e.size:
        error = np.abs(fractional_ulp_error(np.asarray(reference).reshape(-1), flat_a, expected.dtype))
        finite = np.isfinite(error) & ~flushed
        fractional = float(error[finite].max()) if finite.any() else 0.0
    return _summarise(flat_x, flat_e, flat_a, np.where(flushed, 0, distance), bad, nan_mismatch,
                      int(flushed.sum()), expected.shape, fractional, ulp_histogram(distance, nan_mismatch, flushed))


HISTOGRAM_BINS = 64  # the bit lengths 0..63 of an int64 distance
_POWERS_OF_TWO = np.array([1 << k for k in range(HISTOGRAM_BINS - 1)], dtype=np.int64)


def bin_index(distance) -> np.ndarray:
    """The histogram bin of each ULP distance: its bit length (0; 1; 2-3 -> 2; 4-7 -> 3; ...)."""
    return np.searchsorted(_POWERS_OF_TWO, distance, side="right")


def bin_range(index: int) -> list:
    """[low, high] of a histogram bin."""
    return [0, 0] if index == 0 else [1 << (index - 1), (1 << index) - 1]


def histogram_bins(counts) -> list:
    """Counts per bin index -> [[low, high, count], ...] of the non-empty bins."""
    return [[*bin_range(k), int(n)] for k, n in enumerate(counts) if n]


def ulp_histogram(distance, nan_mismatch, flushed) -> dict:
    """Elements by ULP distance in power-of-two bins, for the reports' histogram:
    {"bins": [[low, high, count], ...] (non-empty bins: 0, 1, 2-3, 4-7, ...),
     "nan": NaN mismatches, "flushed": flushed denormals} (those two have no distance)."""
    counted = ~(nan_mismatch | flushed)
    bins = histogram_bins(np.bincount(bin_index(distance[counted])))
    return {"bins": bins, "nan": int(nan_mismatch.sum()), "flushed": int(flushed.sum())}


def differing(expected, actual) -> np.ndarray:
    """Elements whose value is not the exactly rounded one (NaN for NaN counts as the same)."""
    if expected.dtype.kind != "f":
        return expected != actual
    e_nan, a_nan = np.isnan(expected), np.isnan(actual)
    return np.where(e_nan | a_nan, e_nan != a_nan, ulp_distance(expected, actual) != 0)


def empty_interval_summary() -> dict:
    return {"checked": 0, "failed": 0, "outside": 0, "semantic": 0, "lowering_defined": 0,
            "max_ratio": None, "worst": []}


class _Differing:
    """The elements of flat-able x/expected/actual that differ from the exactly rounded value (an
    identical element is inside its interval): the ones judged against their intervals."""

    def __init__(self, x, expected, actual, reference):
        self.shape = expected.shape
        self.x, self.e, self.a = operands.flat(x, self.shape), expected.reshape(-1), actual.reshape(-1)
        self.where = np.flatnonzero(differing(self.e, self.a))
        self.reference = (self.e if reference is None else np.asarray(reference).reshape(-1))[self.where]


def _elements(judge, groups) -> list:
    """judge.elements of every group's differing elements in one call, split back by group (None
    where a group has none)."""
    sizes = [group.where.size for group in groups]
    if not any(sizes):
        return [None] * len(groups)
    present = [group for group in groups if group.where.size]
    verdicts = judge.elements(operands.join([operands.take(g.x, g.where) for g in present]),
                              np.concatenate([g.e[g.where] for g in present]),
                              np.concatenate([g.a[g.where] for g in present]),
                              np.concatenate([g.reference for g in present]))
    stops = np.cumsum(sizes)
    return [verdicts.part(stop - size, stop) if size else None for size, stop in zip(sizes, stops)]


def _interval_summary(group: _Differing, verdicts) -> dict:
    """The d3d figures of one group's differing elements, from their verdicts."""
    summary = empty_interval_summary()
    if verdicts is None:
        return summary
    where, flat_x, flat_e, flat_a, shape = group.where, group.x, group.e, group.a, group.shape
    failed = verdicts.failed
    finite = np.isfinite(verdicts.ratio)
    summary.update(checked=int(where.size), failed=int(failed.sum()), outside=int(verdicts.outside.sum()),
                   semantic=int((verdicts.semantic != 0).sum()), lowering_defined=int(verdicts.lowering.sum()),
                   max_ratio=float(verdicts.ratio.max()) if finite.all() else "inf")
    if failed.any():
        bad = np.flatnonzero(failed)
        order = bad[np.argsort(-verdicts.ratio[bad], kind="stable")[:WORST_SHOWN]]
        from conformance.judge.d3d import RULES
        distance = ulp_distance(flat_e[where[order]], flat_a[where[order]])
        summary["worst"] = [
            {"index": [int(i) for i in np.unravel_index(where[k], shape)] if shape else [],
             "input": operands.element(flat_x, where[k], jsonable), "expected": jsonable(flat_e[where[k]]),
             "actual": jsonable(flat_a[where[k]]), "lo": jsonable(verdicts.lo[k]),
             "hi": jsonable(verdicts.hi[k]), "ratio": jsonable(verdicts.ratio[k]),
             "rule": RULES[verdicts.semantic[k]] or "outside",
             "ulp": "nan" if np.isnan(flat_a[where[k]]) != np.isnan(flat_e[where[k]]) else int(d),
             "bits": bit_patterns(flat_x, flat_e, flat_a, where[k])}
            for k, d in zip(order, distance)]
    return summary


def _with_bounds(worst: list, group: _Differing, verdicts):
    """Add each worst element's interval [lo, hi] (None where it can only be NaN). A worst element
    is out of tolerance, so it differs from the exactly rounded value: its bounds are in verdicts."""
    if not worst:
        return
    shape = group.shape
    flat = [int(np.ravel_multi_index(item["index"], shape)) if shape else 0 for item in worst]
    for item, k in zip(worst, np.searchsorted(group.where, flat)):
        item["lo"], item["hi"] = ((jsonable(verdicts.lo[k]), jsonable(verdicts.hi[k])) if verdicts.num[k]
                                  else (None, None))


def _flushed_among(bad, x, expected, actual, tolerance, zero_results):
    """The elements of bad that flushing explains; the others are not looked at (the explanation is
    element by element: a block where most elements are off pays for those only)."""
    where = np.flatnonzero(bad)
    flushed = np.zeros_like(bad)
    flushed[where] = _explained_by_flushing(operands.take(x, where), expected[where], actual[where], tolerance,
                                            zero_results)
    return flushed


def _explained_by_flushing(x, expected, actual, tolerance, zero_results):
    """Direct3D may flush subnormals to sign-preserved zero, on input and on output. The oracle on
    flushed inputs is asked only for the elements with a subnormal input."""
    output_flush = (operands.is_subnormal(expected) & (actual == 0) if expected.dtype.kind == "f"
                    else np.zeros(expected.shape, dtype=bool))
    input_flush = np.zeros(expected.shape, dtype=bool)
    if zero_results is not None:
        inside = np.flatnonzero(operands.subnormal(x))
        if inside.size:
            found = zero_results(operands.take(x, inside)) if callable(zero_results) else zero_results
            got = actual[inside]
            hit = np.zeros(inside.size, dtype=bool)
            for f_zero in found:  # several inputs: the oracle on each set of them flushed
                candidate = np.broadcast_to(np.asarray(f_zero, dtype=expected.dtype), got.shape)
                same_nan = np.isnan(candidate) & np.isnan(got)
                close = ulp_distance(candidate, got) <= tolerance
                if expected.dtype.kind == "f":
                    close |= operands.is_subnormal(candidate) & (got == 0)
                hit |= same_nan | (close & ~np.isnan(candidate) & ~np.isnan(got))
            input_flush[inside] = hit
    return output_flush | input_flush


def _summarise(x, expected, actual, distance, bad, nan_mismatch, flushed, shape, fractional, histogram=None):
    mismatches = int(bad.sum())
    result = Comparison(elements=int(expected.size), mismatches=mismatches,
                        nan_mismatches=int(nan_mismatch.sum()), flushed=flushed,
                        max_ulp=int(distance.max()) if distance.size else 0,
                        max_fractional_ulp=fractional, histogram=histogram)
    if mismatches:
        bad_positions = np.flatnonzero(bad)
        # NaN mismatches first, then the largest distances.
        key = np.where(nan_mismatch[bad_positions], np.iinfo(np.int64).max, distance[bad_positions])
        order = bad_positions[np.argsort(-key, kind="stable")[:WORST_SHOWN]]
        result.worst = [_element(position, x, expected, actual, distance, nan_mismatch, shape)
                        for position in order]
    return result


def _element(position, x, expected, actual, distance, nan_mismatch, shape):
    return {"index": [int(i) for i in np.unravel_index(position, shape)] if shape else [],
            "input": operands.element(x, position, jsonable), "expected": jsonable(expected[position]),
            "actual": jsonable(actual[position]),
            "ulp": "nan" if nan_mismatch[position] else int(distance[position]),
            "bits": bit_patterns(x, expected, actual, position)}


def hex_bits(value) -> str:
    """A scalar's bits in its own type, as hex: float32 NaN '0x7fc00000', float16 -0.0 '0x8000', int8 -1 '0xff'."""
    value = np.asarray(value)
    return f"0x{int(value.reshape(1).view(f'u{value.dtype.itemsize}')[0]):0{2 * value.dtype.itemsize}x}"


def bit_patterns(x, expected, actual, position) -> dict:
    """{"input", "expected", "actual"}: hex_bits of one element of flat arrays (several inputs: a list),
    so a report shows a NaN's payload, a signed zero or a flushed denormal that the decimals hide.
    An expected NaN is any NaN (any passes): it shows as the type's quiet NaN, whatever sign or payload
    the oracle's arithmetic left on it, so that every verification path writes the same record."""
    wanted = expected[position]
    if isinstance(wanted, np.floating) and np.isnan(wanted):
        wanted = wanted.dtype.type(np.nan)
    return {"input": operands.element(x, position, hex_bits), "expected": hex_bits(wanted),
            "actual": hex_bits(actual[position])}


def jsonable(value):
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and not np.isfinite(value):
        return repr(value)  # 'nan', 'inf', '-inf': JSON has no such numbers
    return value


def describe(comparison: Comparison, tolerance: int, model: str = "ulp") -> str:
    """A one-paragraph mismatch message in numpy.testing's manner, for the deciding model."""
    if comparison.problem:
        return comparison.problem
    if model == "d3d" and comparison.d3d is not None:
        return describe_intervals(comparison)
    lines = [f"Mismatched elements: {comparison.mismatches} / {comparison.elements}"
             f" (tolerance {tolerance} ULP, max {comparison.max_ulp} ULP"
             + (f", {comparison.nan_mismatches} NaN mismatches" if comparison.nan_mismatches else "")
             + (f", {comparison.flushed} flushed" if comparison.flushed else "") + ")"]
    for item in comparison.worst:
        lines.append(f"  at {_where(item)}: {_input(item)}, expected "
                     f"{item['expected']!r}, actual {item['actual']!r} ({item['ulp']} ULP)")
    return "\n".join(lines)


def describe_intervals(comparison: Comparison) -> str:
    figures = comparison.d3d
    lines = [f"Elements outside the Direct3D rules: {figures['failed']} / {comparison.elements}"
             f" ({figures['outside']} outside their interval, {figures['semantic']} breaking a rule; "
             f"{figures['lowering_defined']} lowering-defined; max {comparison.max_ulp} ULP)"]
    for item in figures["worst"]:
        if "allowed" in item:  # an index: in the set the page allows or not, no interval
            lines.append(f"  at {_where(item)}: {_input(item)}; expected {item['expected']!r}, "
                         f"actual {item['actual']!r}")
            continue
        lines.append(f"  at {_where(item)}: {_input(item)}, expected {item['expected']!r}, "
                     f"actual {item['actual']!r}, interval [{item['lo']!r}, {item['hi']!r}] "
                     f"({item['rule']}, {item['ulp']} ULP)")
    return "\n".join(lines)


def _where(item) -> str:
    """A worst element's output index, after its output's name where there are several (OutputIndex(0, 2))."""
    return f"{item.get('output', '')}{tuple(item['index'])}"


def _input(item) -> str:
    """The input an element is judged by: its value, and for a copied element (data movement) the
    input and index it comes from; for an index output (judge/indices.py) the indices allowed."""
    if "allowed" in item:
        return index_input_text(item)
    if "source" in item:
        if item["source"] is None:
            return f"the page's constant {item['input']!r}"
        return f"copied from {item['source_input']}{tuple(item['source'])} = {item['input']!r}"
    return f"input {item['input']!r}"


def index_input_text(item: dict) -> str:
    """An index output's worst element (judge/indices.py), its input side in one line: its slice, the
    indices allowed, the values at the index expected and at the one that came."""
    allowed = f"allowed {', '.join(map(str, item['allowed']))}"
    if "slice" not in item:
        return allowed
    values = item["input"]
    there = " (outside the slice)" if values["actual"] is None else f" = {values['actual']!r}"
    return (f"{item['slice']}, {allowed}: at {item['expected']} = {values['expected']!r}, "
            f"at {item['actual']}{there}")
