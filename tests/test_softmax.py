"""ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX and their "1" versions: the oracle against the pages (HARDMAX1's
examples; the "1" pages' remark that Axes {DimensionCount - 1} is the original), the sound judge against
simulated devices (float32 summed sequentially and pairwise, float16 with float32 sums, float16 summed in
half with the permission: pass; softmax without the maximum subtracted at logits up to 1e4, float16
summed in half without the permission: caught), hardmax's one-hot judge (the first of ties exact, NaN
wide), every case through the oracle and ONNX Runtime's CPU provider, and the shapes refused at load."""
import math
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter

CASE_FILES = Path(__file__).resolve().parent.parent / "cases"
OPERATORS = ("ACTIVATION_SOFTMAX", "ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX", "ACTIVATION_LOG_SOFTMAX1",
             "ACTIVATION_HARDMAX", "ACTIVATION_HARDMAX1")
PAGE_INPUT = np.array([[[12, 0], [-101, 11]], [[3, 234], [0, -101]]], dtype=np.float32)  # HARDMAX1's page
HALF = "ALLOW_HALF_PRECISION_COMPUTATION"


def run(name, cases):
    return runner.run(cases, backends.create(name, announce=lambda m: None), "6_0", ResultsWriter(None)).records


def one_case(tmp_path, op, dtype, shape, params="", flags="NONE"):
    """A case of op in this shape (its input given by the test), as a case file would make it."""
    fields = params + (f"\n      ExecutionFlags: {flags}" if "HARDMAX" not in op else "")
    path = tmp_path / f"{op.lower()}.yaml"
    path.write_text(f"operator: {op}\ngroups:\n  - name: test\n    dtypes: [{dtype}]\n    shapes: [{list(shape)}]\n"
                    f"    params: {{{fields.strip().replace(chr(10) + '      ', ', ')}}}\n"
                    "    inputs:\n      - {kind: uniform, low: -1, high: 1}\n")
    cases = load_file(path)
    assert len(cases) == 1, [c.id for c in cases]
    return cases[0]


def d3d_failed(case, x, actual) -> int:
    comparison = compare_case(case, x, actual)
    return comparison.d3d["failed"]


# ---- the oracle -------------------------------------------------------------------------------------
@pytest.mark.parametrize("axes, want", [([1], [[[1, 0], [0, 1]], [[1, 1], [0, 0]]]),
                                        ([0], [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]),
                                        ([0, 2], [[[0, 0], [0, 1]], [[0, 1], [0, 0]]])])
def test_the_oracle_is_the_hardmax1_pages_examples(axes, want):
    got = oracle.evaluate("ACTIVATION_HARDMAX1", PAGE_INPUT, "float32", Axes=axes)
    assert got.dtype == np.float32 and got.tolist() == want


def test_the_oracle_is_the_pages_formulas_and_the_1_versions_equal_the_originals_on_the_last_axis():
    row = [1.0, 2.0, 3.0, 4.0]
    x = np.array([row, [0.5, -7.0, 0.5, 2.0]], dtype=np.float32)
    total = sum(math.exp(v) for v in row)
    softmax = oracle.reference("ACTIVATION_SOFTMAX", x, "float32")
    log_softmax = oracle.reference("ACTIVATION_LOG_SOFTMAX", x, "float32")
    for i, v in enumerate(row):  # f(x[i]) = exp(x[i]) / sum(exp(x[0]), ..., exp(x[j-1])); ln of it
        assert softmax[0, i] == pytest.approx(math.exp(v) / total, rel=1e-15)
        assert log_softmax[0, i] == pytest.approx(math.log(math.exp(v) / total), rel=1e-15)
    assert oracle.evaluate("ACTIVATION_HARDMAX", x, "float32").tolist() == [[0, 0, 0, 1], [0, 0, 0, 1]]
    y = np.random.default_rng(5).uniform(-9, 9, (3, 4, 5))
    for op in ("ACTIVATION_SOFTMAX", "ACTIVATION_LOG_SOFTMAX", "ACTIVATION_HARDMAX"):
        assert np.array_equal(oracle.evaluate(op + "1", y, "float32", Axes=[2]), oracle.evaluate(op, y, "float32"))


def test_the_oracle_takes_the_first_of_equal_maxima_over_axes_counted_row_major():
    x = np.array([[3, 7], [7, 1]], dtype=np.float32)
    assert oracle.evaluate("ACTIVATION_HARDMAX1", x, "float32", Axes=[0, 1]).tolist() == [[0, 1], [0, 0]]
    assert oracle.evaluate("ACTIVATION_HARDMAX", x, "float32").tolist() == [[0, 1], [1, 0]]


# ---- the sound judge against simulated devices ----------------------------------------------------------
def device(x, summed, log=False, carried=np.float32, axis=-1):
    """exp(x - max) / S or x - max - log(S), each step in `carried`, S by `summed` (the order)."""
    xs = x.astype(carried)
    shifted = (xs - np.max(xs, axis=axis, keepdims=True)).astype(carried)
    e = np.exp(shifted).astype(carried)
    s = summed(np.moveaxis(e, axis, -1))[..., None]
    s = np.moveaxis(s, -1, axis)
    out = shifted - np.log(s).astype(carried) if log else e / s
    return out.astype(x.dtype)


SEQUENTIAL = lambda e: np.cumsum(e, axis=-1, dtype=e.dtype)[..., -1]  # noqa: E731
PAIRWISE = lambda e: np.sum(e, axis=-1, dtype=e.dtype)  # noqa: E731 (numpy's pairwise summation)
BLOCKED = lambda e: SEQUENTIAL(np.stack([np.sum(b, axis=-1, dtype=e.dtype)  # noqa: E731
                                         for b in np.array_split(e, max(1, e.shape[-1] // 64), axis=-1)], -1))


@pytest.mark.parametrize("op, log", [("ACTIVATION_SOFTMAX", False), ("ACTIVATION_LOG_SOFTMAX", True)])
def test_correct_float32_devices_pass_on_a_hundred_thousand_outputs_of_random_rows(tmp_path, op, log):
    rng = np.random.default_rng(26)
    x = np.concatenate([rng.uniform(-30, 30, (100, 500)), rng.normal(0, 3, (100, 500))]).astype(np.float32)
    x[7, :] = 0.0  # equal logits: every output 1/500
    x[9, 3] = 1e4  # one dominant logit
    case = one_case(tmp_path, op, "float32", x.shape)
    for summed in (SEQUENTIAL, PAIRWISE, BLOCKED):
        assert x.size >= 10 ** 5 and d3d_failed(case, x, device(x, summed, log)) == 0


@pytest.mark.parametrize("op, log", [("ACTIVATION_SOFTMAX1", False), ("ACTIVATION_LOG_SOFTMAX1", True)])
def test_float16_passes_summed_in_float32_or_in_half_where_allowed_and_is_caught_in_half_without(tmp_path, op,
                                                                                                  log):
    x = np.random.default_rng(11).uniform(-2, 2, (6, 4000)).astype(np.float16).T  # softmax along axis 0
    plain = one_case(tmp_path, op, "float16", x.shape, "Axes: {array: [0]}")
    allowed = one_case(tmp_path, op, "float16", x.shape, "Axes: {array: [0]}", flags=HALF)
    in_float32, in_half = device(x, SEQUENTIAL, log, axis=0), device(x, SEQUENTIAL, log, np.float16, axis=0)
    assert d3d_failed(plain, x, in_float32) == 0 and d3d_failed(allowed, x, in_float32) == 0
    assert d3d_failed(allowed, x, in_half) == 0
    assert d3d_failed(plain, x, in_half) > x.size // 2, "float16 sums of 4000 terms without the permission"


@pytest.mark.parametrize("op, log", [("ACTIVATION_SOFTMAX", False), ("ACTIVATION_LOG_SOFTMAX", True)])
def test_a_device_that_does_not_subtract_the_maximum_is_caught_at_logits_up_to_1e4(tmp_path, op, log):
    x = np.array([[1e4, 9999, 9990, -1e4], [100, 90, 95, 99.5], [1, 2, 3, 4]], dtype=np.float32)
    case = one_case(tmp_path, op, "float32", x.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x)
        naive = x - np.log(e.sum(axis=-1, keepdims=True)) if log else e / e.sum(axis=-1, keepdims=True)
    assert not np.isfinite(naive[:2]).all()  # exp(100) is past float32's largest: inf, then NaN or -inf
    comparison = compare_case(case, x, naive.astype(np.float32))
    wrong = np.argwhere(~np.isfinite(naive)).tolist()  # all but exp(-1e4) / inf = 0, which is right
    assert comparison.d3d["failed"] == len(wrong) >= 7, comparison.d3d["worst"]
    assert sorted(w["index"] for w in comparison.d3d["worst"]) == wrong[:len(comparison.d3d["worst"])]
    assert d3d_failed(case, x, device(x, SEQUENTIAL, log)) == 0


def test_a_nan_or_infinity_in_one_term_makes_its_row_nan_and_a_finite_answer_there_is_caught(tmp_path):
    x = np.array([[1, np.nan, 2], [3, np.inf, 4], [-np.inf, 5, 6]], dtype=np.float32)
    case = one_case(tmp_path, "ACTIVATION_SOFTMAX", "float32", x.shape)
    with np.errstate(invalid="ignore"):
        correct = device(x, SEQUENTIAL)
    assert np.isnan(correct[:2]).all() and correct[2, 0] == 0 and d3d_failed(case, x, correct) == 0
    nan_skipped = correct.copy()
    nan_skipped[0] = [1 / (1 + math.e), np.nan, math.e / (1 + math.e)]  # the NaN term left out of the sum
    assert d3d_failed(case, x, nan_skipped) == 2


# ---- hardmax: the device's 1 read as an index ---------------------------------------------------------
def one_hot(x, index):
    out = np.zeros(x.shape, dtype=x.dtype)
    for row, k in enumerate(index):
        if k is not None:
            out[row, k] = 1
    return out


def test_hardmax_takes_the_first_of_ties_and_accepts_any_reading_where_the_page_is_silent(tmp_path):
    x = np.array([[3, 7, 7, 1], [-0.0, 0.0, -1, -2], [1, np.nan, 5, 2], [np.nan] * 4], dtype=np.float32)
    case = one_case(tmp_path, "ACTIVATION_HARDMAX", "float32", x.shape)
    assert compare_case(case, x, one_hot(x, [1, 0, 2, 0])).mismatches == 0  # the oracle's
    assert compare_case(case, x, one_hot(x, [1, 0, 1, 3])).mismatches == 0  # NaN the maximum; any of NaN alone
    assert compare_case(case, x, one_hot(x, [1, 0, 2, None])).mismatches == 0  # NaN alone: no maximum, no 1
    last_tie = compare_case(case, x, one_hot(x, [2, 1, 2, 0]))
    assert last_tie.mismatches == 2 and [w["index"] for w in last_tie.worst] == [[0, 0], [1, 0]]
    assert last_tie.worst[0]["slice"] == "Input[0, 0:4]" and last_tie.worst[0]["allowed"] == [1]
    every_tie = one_hot(x, [1, 0, 2, 0])
    every_tie[0, 2] = 1
    assert compare_case(case, x, every_tie).mismatches == 1
    assert compare_case(case, x, one_hot(x, [None, 0, 2, 0])).mismatches == 1  # a row of numbers has a maximum
    two_ish = one_hot(x, [1, 0, 2, 0])
    two_ish[1, 0] = 0.5
    assert compare_case(case, x, two_ish).mismatches == 1


def test_hardmax1_counts_over_axes_and_accepts_either_order_where_axes_are_not_ascending(tmp_path):
    x = np.array([[3, 7], [7, 1]], dtype=np.float32)
    ascending = one_case(tmp_path, "ACTIVATION_HARDMAX1", "float32", x.shape, "Axes: {array: [0, 1]}")
    reversed_ = one_case(tmp_path, "ACTIVATION_HARDMAX1", "float32", x.shape, "Axes: {array: [1, 0]}")
    first_row_major, first_column_major = np.array([[0, 1], [0, 0]], np.float32), np.array([[0, 0], [1, 0]], np.float32)
    assert compare_case(ascending, x, first_row_major).mismatches == 0
    assert compare_case(ascending, x, first_column_major).mismatches == 1
    assert compare_case(reversed_, x, first_column_major).mismatches == 0
    assert compare_case(reversed_, x, first_row_major).mismatches == 0


# ---- every case, two implementations ---------------------------------------------------------------
def test_every_small_case_passes_through_the_oracle_and_the_cpu_provider_or_is_not_reachable():
    """The case files' cases of up to 2^12 elements (the rest, model-sized and long rows, in the full run)."""
    cases = [c for op in OPERATORS for c in load_file(CASE_FILES / f"{op.lower()}.yaml") if c.elements <= 2 ** 12]
    assert len(cases) > 150
    assert {r["status"] for r in run("python:oracle:evaluate", cases)} == {statuses.PASS}
    records = run("cpu", cases)
    assert {r["status"] for r in records} == {statuses.PASS, statuses.NOT_REACHABLE}
    unreachable = {r["id"] for r in records if r["status"] == statuses.NOT_REACHABLE}
    assert all("Axes=[0,2]" in i or "Axes=[2,0]" in i for i in unreachable)  # not adjacent


@pytest.mark.parametrize("op, shape, params, wanted", [
    ("ACTIVATION_SOFTMAX", [2, 3, 4], "", "effective rank of 3: the page allows at most 2"),
    ("ACTIVATION_HARDMAX", [1, 2, 1, 4], "", "effective rank of 3"),
    ("ACTIVATION_SOFTMAX1", [2, 3], "Axes: {array: [2]}", "range \\[0, InputTensor.DimensionCount - 1\\]"),
    ("ACTIVATION_LOG_SOFTMAX1", [2, 3], "Axes: {array: [1, 1]}", "names an axis twice"),
    ("ACTIVATION_HARDMAX1", [2, 3], "Axes: {array: []}", "Axes is required"),
])
def test_a_shape_the_page_forbids_is_refused_at_load_naming_file_and_line(tmp_path, op, shape, params, wanted):
    with pytest.raises(CaseFileError, match=f"{op.lower()}.yaml:5: .*{wanted}"):
        one_case(tmp_path, op, "float32", shape, params)


def test_conformance_specs_says_how_each_is_judged():
    from conformance.judge import accumulated, d3d
    from conformance.specs import get
    assert "one 1 per slice, at a position the page allows" in d3d.explain(get("ACTIVATION_HARDMAX1"))[0]
    softmax = "\n".join(accumulated.explain(get("ACTIVATION_SOFTMAX1")))
    assert "M = max of x; S = sum of exp2" in softmax and "Output = (exp2" in softmax and "rcp(s)" in softmax
