"""AVERAGE_POOLING, AVERAGE_POOLING1, LP_POOLING, LP_POOLING1 and QUANTIZED_LINEAR_AVERAGE_POOLING: the oracle
against hand-computed windows, every case through the oracle (inside its own bound) and ONNX Runtime's CPU
provider, and the judge's window sums: simulated devices summing each window the legal ways pass on 10^5
outputs, while an average that counts the padding when told not to, float16 summed in half without the
permission, and a quantized average that forgets a zero point, fail."""
from pathlib import Path

import numpy as np
import pytest

import oracle
from accumulation_devices import devices, rounded, store, sum_rows
from conformance import backends, statuses
from conformance.caseset.caseload import load_file
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.judge.bounded import compare_bounded
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import get
from oracle.windows import taps

CASES = Path(__file__).resolve().parent.parent / "cases"
OPERATORS = ("AVERAGE_POOLING", "AVERAGE_POOLING1", "LP_POOLING", "LP_POOLING1", "QUANTIZED_LINEAR_AVERAGE_POOLING")
QUANTIZED = "QUANTIZED_LINEAR_AVERAGE_POOLING"
PADDED = {"Strides": [1, 1], "WindowSize": [3, 3], "StartPadding": [1, 1], "EndPadding": [1, 1]}


def windows_of(x, params):
    """Each output's window taps as rows (padding as 0 terms), and the outputs' shape."""
    index, valid = taps(x.shape, params)
    terms = np.where(valid, x.astype(np.float64)[index], 0.0)
    return terms.reshape(-1, terms.shape[-1]), valid.shape[:-1], valid.reshape(-1, valid.shape[-1]).sum(axis=1)


def averaged(x, params, order="sequential", precision="float32", rounding="nearest", flush=False, divisor=None):
    """A simulated device: each window summed in precision by order, divided in float32, stored."""
    rows, shape, inside = windows_of(x, params)
    total = sum_rows(rows, order, precision, rounding, flush=flush)
    if divisor is None:
        divisor = np.prod(params["WindowSize"]) if params["IncludePadding"] else inside
    return store(rounded(total / divisor, "float32", rounding), x.dtype, rounding).reshape(shape)


def outside(op, x, params, actual):
    """How many output elements lie outside the judge's d3d interval."""
    dtype = x.dtype.name
    exact = oracle.reference(op, x, dtype, **params)
    result = compare_accumulated(get(op), (x,), params, dtype, oracle.evaluate(op, x, dtype, **params), exact,
                                 np.asarray(actual, dtype=dtype), ulp_tolerance=0)
    return result.d3d["failed"]


def test_the_oracle_is_hand_computed_windows():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    fields = {"Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [1, 1], "EndPadding": [0, 0]}
    counted = oracle.evaluate("AVERAGE_POOLING", x, "float32", **fields, IncludePadding=1)
    inside = oracle.evaluate("AVERAGE_POOLING", x, "float32", **fields, IncludePadding=0)
    assert counted[0, 0].tolist() == [[0.25, 0.75, 1.25], [1.25, 3.0, 4.0], [2.75, 6.0, 7.0]]
    assert inside[0, 0].tolist() == [[1.0, 1.5, 2.5], [2.5, 3.0, 4.0], [5.5, 6.0, 7.0]]
    row = np.array([1, 2, 3, 4, 5], dtype=np.float32).reshape(1, 1, 1, 5)
    dilated = {"Strides": [1, 1], "WindowSize": [1, 2], "StartPadding": [0, 0], "EndPadding": [0, 0],
               "Dilations": [1, 3]}
    assert oracle.evaluate("AVERAGE_POOLING1", row, "float32", **dilated, IncludePadding=0).tolist() == \
        [[[[2.5, 3.5]]]]
    pair = np.array([-3, 4], dtype=np.float32).reshape(1, 1, 1, 2)
    whole = {"Strides": [1, 1], "WindowSize": [1, 2], "StartPadding": [0, 0], "EndPadding": [0, 0]}
    assert [oracle.evaluate("LP_POOLING", pair, "float32", **whole, P=p)[0, 0, 0, 0] for p in (1, 2)] == [7, 5]
    assert oracle.reference("LP_POOLING1", pair, "float32", **whole, Dilations=[1, 1], P=3)[0, 0, 0, 0] == \
        pytest.approx(91 ** (1 / 3), rel=1e-15)


def run(name, chosen):
    return {r["id"]: r for r in runner.run(chosen, backends.create(name, announce=lambda m: None), "6_2",
                                           ResultsWriter(None)).records}


def test_every_case_passes_through_the_oracle_and_the_cpu_provider():
    chosen = [c for op in OPERATORS for c in load_file(CASES / f"{op.lower()}.yaml")]
    assert {r["status"] for r in run("python:oracle:evaluate", chosen).values()} == {statuses.PASS}
    records = run("cpu", chosen)
    counts = {s: sum(r["status"] == s for r in records.values()) for s in statuses.ALL}
    # not reachable: ExecutionFlags other than NONE (the provider compiles with its own)
    assert counts[statuses.FAIL] == 0 and counts[statuses.PASS] >= 170, counts


def test_simulated_devices_summing_windows_the_legal_ways_pass_on_a_hundred_thousand_outputs():
    rng = np.random.default_rng(26)
    x = rng.uniform(-10, 10, (1, 16, 82, 82)).astype(np.float32)
    params = {**PADDED, "StartPadding": [0, 0], "EndPadding": [0, 0], "IncludePadding": 0}
    allowed = interval(get("AVERAGE_POOLING"), (x,), params, "float32")
    for order, rounding, _, flush in devices("float32"):
        got = averaged(x, params, order, "float32", rounding, flush)
        assert got.size >= 10 ** 5
        bad = (got < allowed.lo) | (got > allowed.hi)
        assert not bad.any(), (order, rounding, flush, got[bad][:3], allowed.lo[bad][:3], allowed.hi[bad][:3])
    half = x[:, :4].astype(np.float16)
    for order in ("sequential", "pairwise"):
        assert outside("AVERAGE_POOLING", half, params, averaged(half, params, order)) == 0
    l2 = {**params, "P": 2}
    del l2["IncludePadding"]
    rows, shape, _ = windows_of(x, l2)
    bounds = interval(get("LP_POOLING"), (x,), l2, "float32")
    for order in ("sequential", "pairwise", "blocked32"):
        for fused in (False, True):
            got = np.sqrt(sum_rows((rows, rows), order, fused=fused)).astype(np.float32).reshape(shape)
            assert ((got >= bounds.lo) & (got <= bounds.hi)).all(), (order, fused)


def test_counting_the_padding_when_told_not_to_is_caught_and_the_other_way_round():
    x = np.random.default_rng(1).uniform(1, 2, (1, 2, 6, 6)).astype(np.float32)
    inside, counted = {**PADDED, "IncludePadding": 0}, {**PADDED, "IncludePadding": 1}
    assert outside("AVERAGE_POOLING", x, inside, averaged(x, inside)) == 0
    assert outside("AVERAGE_POOLING", x, counted, averaged(x, counted)) == 0
    edges = 2 * (6 * 6 - 4 * 4)  # the outputs whose window reaches into the padding
    assert outside("AVERAGE_POOLING", x, inside, averaged(x, inside, divisor=9)) == edges
    assert outside("AVERAGE_POOLING", x, counted, averaged(x, counted, divisor=windows_of(x, counted)[2])) == edges
    cancelling = np.random.default_rng(5).uniform(-1000, 1000, x.shape).astype(np.float32)
    rows, shape, _ = windows_of(cancelling, counted)
    for order in ("sequential", "pairwise"):  # each tap times 1/9 in float32, then summed
        scaled = sum_rows(rounded(rows * np.float64(np.float32(1 / 9)), "float32"), order).astype(np.float32)
        assert outside("AVERAGE_POOLING", cancelling, counted, scaled.reshape(shape)) == 0, order
    dilated = {**inside, "Dilations": [2, 2], "StartPadding": [2, 2], "EndPadding": [2, 2]}
    assert outside("AVERAGE_POOLING1", x, dilated, averaged(x, dilated)) == 0
    assert outside("AVERAGE_POOLING1", x, dilated, averaged(x, dilated, divisor=9)) > 0


def test_float16_summed_in_half_over_a_32x32_window_is_caught_without_the_permission():
    x = np.random.default_rng(2).uniform(3, 4, (1, 8, 32, 32)).astype(np.float16)
    params = {"Strides": [1, 1], "WindowSize": [32, 32], "StartPadding": [0, 0], "EndPadding": [0, 0],
              "IncludePadding": 0}
    in_half = averaged(x, params, "sequential", "float16")  # partial sums past 2048 lose a unit an add
    assert outside("AVERAGE_POOLING", x, params, averaged(x, params, "sequential", "float32")) == 0
    assert outside("AVERAGE_POOLING", x, params, in_half) == 8
    allowed = {**params, "ExecutionFlags": "ALLOW_HALF_PRECISION_COMPUTATION"}
    assert outside("AVERAGE_POOLING", x, allowed, in_half) == 0
    assert outside("AVERAGE_POOLING", x, allowed, averaged(x, params, "pairwise", "float16")) == 0


def test_the_quantized_oracle_dequantizes_averages_and_rounds_ties_to_even():
    x = np.array([[10, 20], [30, 41]], dtype=np.uint8).reshape(1, 1, 2, 2)
    ones = (1, 1, 1, 1)
    scales = (np.full(ones, 0.5, np.float32), np.full(ones, 10, np.uint8), np.full(ones, 0.25, np.float32),
              np.full(ones, 3, np.uint8))
    fields = {"Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [0, 0], "EndPadding": [0, 0],
              "Dilations": [1, 1], "IncludePadding": 0}
    # (0 + 5 + 10 + 15.5) / 4 = 7.625; / 0.25 = 30.5, a tie: 30 (even), + 3
    assert oracle.evaluate(QUANTIZED, (x, *scales), "uint8", **fields).tolist() == [[[[33]]]]


def test_a_quantized_average_is_judged_by_its_bounds_exact_sums_pass_and_a_forgotten_zero_point_fails():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, (1, 4, 9, 9)).astype(np.uint8)
    per_channel = (1, 4, 1, 1)
    scale, zero = rng.uniform(0.01, 0.5, per_channel).astype(np.float32), rng.integers(0, 100, per_channel)
    out_scale, out_zero = rng.uniform(0.01, 0.5, per_channel).astype(np.float32), rng.integers(0, 100, per_channel)
    inputs = (x, scale, zero.astype(np.uint8), out_scale, out_zero.astype(np.uint8))
    params = {**PADDED, "Dilations": [1, 1], "IncludePadding": 0}
    lo, hi = get(QUANTIZED).outputs[0].bounds(inputs, params)
    expected = oracle.evaluate(QUANTIZED, inputs, "uint8", **params)

    def device(zero_point, count_padding=False):
        """Exact integer window sums of x - zero_point, then the scales in float32, rounded, shifted."""
        sums = windows_of(x.astype(np.int64) - zero_point, params)
        total = sums[0].sum(axis=1).reshape(sums[1])
        count = 9 if count_padding else sums[2].reshape(sums[1])
        value = np.float32(total) * scale / np.float32(count) / out_scale
        return np.clip(np.rint(value) + out_zero, 0, 255).astype(np.uint8)

    def failed(actual):
        return compare_bounded(x, expected, actual, lo, hi).mismatches

    assert failed(device(zero)) == 0
    assert failed(device(0)) > expected.size // 2
    assert failed(device(zero, count_padding=True)) >= 4 * (9 * 9 - 7 * 7) // 2


def test_dml_direct_describes_the_quantized_pooling_output_as_output_tensor_not_output_scale_tensor():
    """OutputScaleTensor and OutputZeroPointTensor are inputs named Output...: the description's one output
    is OutputTensor (the worker once took the first tensor named Output..., which DirectML refused)."""
    import json

    from conformance.dmldirect import layout
    from conformance.dmldirect.describe import OperatorDescription
    chosen = [c for c in load_file(CASES / "quantized_linear_average_pooling.yaml")
              if "5x5" in c.id or "ZeroPointTensor=absent" in c.id][:2]
    for case in chosen:
        request = layout.request(case.op, case.dtype, case.shape, case.params, False, case.inputs, (),
                                 case.outputs[0], case.outputs)
        description = OperatorDescription.from_case(json.loads(json.dumps(request)))
        assert tuple(description.output.shape) == tuple(case.outputs[0]), (description.output.shape, case.outputs)
        assert [t.shape for t in description.inputs] == [tuple(i.shape) for i in case.inputs]
        assert len(description.output_slots) == 1 and len(description.input_slots) == 5, \
            (description.input_slots, description.output_slots)
        assert description.input_slots.count(True) == len(case.inputs)


def test_lp_pooling_without_the_absolute_value_is_caught_and_float32_pow_devices_pass():
    x = np.random.default_rng(4).uniform(-10, 10, (1, 3, 8, 8)).astype(np.float32)
    for p in (1, 3):
        params = {**PADDED, "P": p}
        rows, shape, _ = windows_of(x, params)
        magnitude = np.abs(rows).astype(np.float32)
        powered = np.power(magnitude, np.float32(p), dtype=np.float32)  # pow: exp2(p * log2|x|) in float32
        for order in ("sequential", "pairwise"):
            total = sum_rows(powered, order).astype(np.float32)
            got = np.power(total, np.float32(1.0 / p), dtype=np.float32).reshape(shape)
            assert outside("LP_POOLING", x, params, got) == 0, (p, order)
        signed = sum_rows(np.power(rows, p), "sequential").astype(np.float32)  # the page's X^P taken literally
        with np.errstate(invalid="ignore"):
            literal = np.power(signed, np.float32(1.0 / p), dtype=np.float32).reshape(shape)
        assert outside("LP_POOLING", x, params, literal) > x.size // 2, p
