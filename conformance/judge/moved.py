"""The data movement family's judge (TILE, SLICE, PADDING...): every output element is one input
element copied unchanged, so each must equal the oracle's exactly (a zero-width interval; NaN for
NaN counts as equal whatever its payload, as compare.differing says). A wrong element is named by
its output index and the input index it was to be copied from (the spec's source_index), never by
the input value that happens to sit at the output's flat index."""
import numpy as np

from conformance.caseset import operands
from conformance.judge.compare import (WORST_SHOWN, Comparison, differing, empty_interval_summary, hex_bits,
                                       jsonable, ulp_histogram, wrong_type_or_shape)
from conformance.judge.ulp import ulp_distance


def compare_moved(spec, x, expected, actual, params: dict, output=None) -> Comparison:
    """x: the input (or inputs, in the page's order, each of its own shape); expected: the oracle's
    output; actual: the device's. output: which of several outputs this is, where each copies from
    elsewhere (SPLIT's OutputTensors[k]: source_index takes it as a keyword). The d3d figures are the
    same verdicts, as zero-width intervals."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    wrong = wrong_type_or_shape(expected, actual)
    if wrong is not None:
        return wrong
    bound = spec.outputs_for(params)
    undefined = bound[0].undefined if len(bound) == 1 else None  # several: several.py applies each one's
    if undefined is not None:  # the page leaves these elements open (ROI_POOLING's empty bins): any value
        actual = np.where(undefined(x if operands.several(x) else (x,), params), expected, actual)
    flat_e, flat_a = expected.reshape(-1), actual.reshape(-1)
    bad = differing(flat_e, flat_a)
    if spec.source_alternatives is not None and bad.any():
        bad = _allowed_alternatives(spec, x, flat_e, flat_a, bad, expected.shape, params)
    if expected.dtype.kind == "f":
        nan_mismatch = np.isnan(flat_e) != np.isnan(flat_a)
        distance = np.where(np.isnan(flat_e) | np.isnan(flat_a), 0, ulp_distance(flat_e, flat_a))
    else:
        nan_mismatch = np.zeros_like(bad)
        distance = ulp_distance(flat_e, flat_a)
    if spec.source_alternatives is not None:  # an element the page allows is 0 ULP from what it may be
        nan_mismatch, distance = nan_mismatch & bad, np.where(bad, distance, 0)
    result = Comparison(elements=int(expected.size), mismatches=int(bad.sum()),
                        nan_mismatches=int(nan_mismatch.sum()), max_ulp=int(distance.max()) if distance.size else 0,
                        max_fractional_ulp=0.0 if expected.dtype.kind == "f" else None,
                        histogram=ulp_histogram(distance, nan_mismatch, np.zeros_like(bad)))
    result.d3d = empty_interval_summary()
    if not result.mismatches:
        return result
    positions = np.flatnonzero(bad)
    key = np.where(nan_mismatch[positions], np.iinfo(np.int64).max, distance[positions])
    order = positions[np.argsort(-key, kind="stable")[:WORST_SHOWN]]
    inputs = x if operands.several(x) else (x,)
    outputs = np.unravel_index(order, expected.shape)
    # (which input, per element; the index in it, one array per input dimension)
    sources = spec.source_index(outputs, inputs, params, **({} if output is None else {"output": output}))
    names = [i.short for i in spec.input_tensors(params)]  # a tensor array's each: Inputs[1]
    result.worst = []
    for k, position in enumerate(order):
        which = int(np.broadcast_to(sources[0], order.shape)[k])
        source = tuple(int(np.broadcast_to(axis, order.shape)[k]) for axis in sources[1])
        # which < 0: the page fills this element with a constant of its own (no input element)
        value = np.asarray(inputs[which])[source] if which >= 0 else flat_e[position]
        result.worst.append({
            "index": [int(axis[k]) for axis in outputs], "source": list(source) if which >= 0 else None,
            "source_input": names[which] if which >= 0 else None, "input": jsonable(value),
            "expected": jsonable(flat_e[position]), "actual": jsonable(flat_a[position]),
            "lo": jsonable(flat_e[position]), "hi": jsonable(flat_e[position]),
            "ulp": "nan" if nan_mismatch[position] else int(distance[position]),
            "bits": {"input": hex_bits(value), "expected": hex_bits(flat_e[position]),
                     "actual": hex_bits(flat_a[position])}})
    # Zero-width intervals: every differing element is outside its interval [expected, expected]
    result.d3d.update(checked=result.mismatches, failed=result.mismatches, outside=result.mismatches,
                      max_ratio="inf",
                      worst=[{**item, "ratio": "inf", "rule": "outside"} for item in result.worst])
    return result


def _allowed_alternatives(spec, x, flat_expected, flat_actual, bad, shape, params):
    """bad, less the elements equal to a copy the page allows instead (spec.source_alternatives); an
    alternative of which -1 is the page's constant there, the oracle's value."""
    positions = np.flatnonzero(bad)
    inputs = x if operands.several(x) else (x,)
    bad = bad.copy()
    for which, source in spec.source_alternatives(np.unravel_index(positions, shape), inputs, params):
        which = np.broadcast_to(which, positions.shape)
        values = flat_expected[positions].astype(flat_actual.dtype)
        for k, array in enumerate(inputs):
            chosen = which == k
            if chosen.any():
                values[chosen] = np.asarray(array)[tuple(np.broadcast_to(s, positions.shape)[chosen] for s in source)]
        bad[positions] &= differing(values, flat_actual[positions])
    return bad
