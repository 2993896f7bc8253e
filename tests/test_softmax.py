"""ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX and their "1" versions: the oracle against the pages (HARDMAX1's
examples; the "1" pages' remark that Axes {DimensionCount - 1} is the original), the sound judge against
simulated devices (issue 26: every order and rounding of tests/accumulation_devices.py, flush, exp, rcp
and log anywhere in their d3d intervals, float16 computed in float32 and stored either way, float16
computed in half with the permission: pass, on over 10^6 outputs; exact rational arithmetic over every
or sampled order; softmax without the maximum subtracted at logits up to 1e4, float16 summed in half
without the permission: caught), hardmax's one-hot judge (the first of ties exact, NaN
wide), every case through the oracle and ONNX Runtime's CPU provider, and the shapes refused at load."""
import functools
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import accumulation_devices as dev
from exact_orders import assert_within, every_order, round_fraction, sampled_orders
import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.judge.accumulated import interval
from conformance.judge.intervals import FLOAT16, FLOAT32, Evaluator, Values
from conformance.specs import get as get_spec
from conformance.specs.primitives import X, exp, log, rcp

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
# A device: m the row's maximum (exact), d = x - m rounded, exp(d) any value of its d3d interval
# (accumulation_devices.primitive's PICKS), S summed in an order of accumulation_devices, then exp(d) / S (divided, or times rcp(S) with rcp
# picked as exp is) or d - log(S) (log picked alike), every operation rounded once.
TRANSCENDENTAL = dev.PICKS
SOFTMAXES = ("ACTIVATION_SOFTMAX", "ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX", "ACTIVATION_LOG_SOFTMAX1")
FORMATS = {"float32": FLOAT32, "float16": FLOAT16}
CHECKED = {}  # operator -> outputs judged by the soundness tests (device configuration x output)
REACHED = {}  # (operator, whether exp and the last step were rounded once from the exact value, not picked at an end
# of their intervals) -> the largest |device - exact| / the interval's half-width on that side (float32)
ROUNDED_ONCE = ("nearest", "zero", "divide")


def device(x, log_softmax, order="sequential", rounding="nearest", flush=False, exp_pick="nearest", last="divide",
           precision="float32"):
    """A simulated device's softmax (log_softmax) over axis 1 of x (float64 values of the tensor type), in
    precision; last: "divide" (exp(d) / S rounded once) or a TRANSCENDENTAL pick of rcp(S) (log(S))."""
    def r(v):
        return dev.rounded(v, precision, rounding, flush)
    with np.errstate(all="ignore"):
        x = np.where(np.abs(x) < np.finfo(precision).smallest_normal, 0.0, x) if flush else x
        d = r(x - np.fmax.reduce(x, axis=1, keepdims=True))
        e = dev.primitive("exp", d, exp_pick, precision, rounding, flush)
        s = dev.sum_rows(e, order, precision, rounding, flush=flush)[:, None]
        if log_softmax:
            return r(d - dev.primitive("log", s, "nearest" if last == "divide" else last, precision, rounding, flush))
        if last == "divide":
            return r(e / s)
        return r(e * dev.primitive("rcp", s, last, precision, rounding, flush))


def configurations(precision):
    """(order, rounding, flush, exp's pick, the last step's) of every device simulated: each order and rounding
    of accumulation_devices.devices, the picks cycling through TRANSCENDENTAL and the division."""
    last = ("divide",) + TRANSCENDENTAL
    return [(order, rounding, flush, TRANSCENDENTAL[k % 5], last[k % 6])
            for k, (order, rounding, _, flush) in enumerate(dev.devices(precision))]


def logits(rng, n, rows, kind, dtype):
    """rows x n logits: uniform in [-30, 30], every 16th row with a NaN, +inf, -inf, or both infinities;
    huge: in [-1e4, 1e4]; near: 1e4 less [0, 30] (coarse float32 steps); dominant: one at 0, the rest in
    [-30, -15] (S just above 1, log-softmax near 0); tiny: the rest in [-104, -80] (exp(d) in float32's
    denormals; float16: [-17, -8])."""
    if kind == "uniform":
        x = rng.uniform(-30, 30, (rows, n))
        x[0::16, 0], x[1::16, -1], x[2::16, n // 2] = np.nan, np.inf, -np.inf
        x[3::16, 0], x[3::16, -1] = np.inf, -np.inf
    elif kind == "huge":
        x = rng.uniform(-1e4, 1e4, (rows, n))
    elif kind == "near":
        x = 1e4 - rng.uniform(0, 30, (rows, n))
    else:
        low, high = {"dominant": (-30, -15), "tiny": (-104, -80) if dtype == "float32" else (-17, -8)}[kind]
        x = rng.uniform(low, high, (rows, n))
        x[np.arange(rows), rng.integers(0, n, rows)] = 0.0
    with np.errstate(over="ignore"):
        return x.astype(dtype)


LENGTHS = ((3, 300), (8, 150), (33, 48), (100, 16), (300, 8))
LOGITS = ("uniform", "huge", "near", "dominant", "tiny")


def batches(seed, dtype):
    rng = np.random.default_rng(seed)
    for n, rows in LENGTHS:
        yield np.concatenate([logits(rng, n, rows, kind, dtype) for kind in LOGITS])


def judged_as(op, x, flags="NONE"):
    """(the op's input, its params, the interval as rows x n): "1" versions along axis 0 of the transposed
    rows (Axes [0]), the others along the last axis."""
    spec = get_spec(op)
    one = op.endswith("1")
    params = {**spec.defaults(), "ExecutionFlags": flags, **({"Axes": [0]} if one else {})}
    given = x.T if one else x
    allowed = interval(spec, (given,), params, x.dtype.name)
    exact = oracle.reference(op, given, x.dtype.name, **({"Axes": [0]} if one else {}))
    if one:
        allowed = Values(allowed.lo.T, allowed.hi.T, allowed.num.T, allowed.nan.T)
        exact = exact.T
    return allowed, exact


def outside(allowed, values):
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(values), ~allowed.nan, ~(allowed.num & (values >= allowed.lo) & (values <= allowed.hi)))


def assert_inside(op, x, allowed, values, configuration, exact=None, checked=True):
    bad = np.argwhere(outside(allowed, values))
    if checked:
        CHECKED[op] = CHECKED.get(op, 0) + values.size
    if exact is not None:
        with np.errstate(all="ignore"):
            side = np.where(values >= exact, allowed.hi - exact, exact - allowed.lo)
            wide = side >= 8 * np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
            fraction = np.where(np.isfinite(values) & np.isfinite(exact) & wide, np.abs(values - exact) / side, 0.0)
        key = (op, configuration[3] in ROUNDED_ONCE and configuration[4] in ROUNDED_ONCE)
        REACHED[key] = max(REACHED.get(key, 0.0), float(fraction.max()))
    if bad.size:
        r, c = bad[0]
        pytest.fail(f"{op} {x.dtype} n={x.shape[1]}, device {configuration}: {len(bad)} of {values.size} outputs "
                    f"outside the interval; row {r} (logits {x[r, :5].tolist()}...) element {c} gave {values[r, c]!r}, "
                    f"expected within [{allowed.lo[r, c]!r}, {allowed.hi[r, c]!r}] (nan allowed: "
                    f"{bool(allowed.nan[r, c])})")


@pytest.mark.parametrize("op", SOFTMAXES)
def test_correct_float32_devices_pass(op):
    """Every simulated float32 device (each order, rounding and flush; exp, rcp and log anywhere in their
    intervals) inside every output's interval, on every kind of logits; and on rows of 2^16 terms (the orders
    rounding to nearest, pairwise truncating)."""
    log_softmax = "LOG" in op
    for x in batches(1, "float32"):
        allowed, exact = judged_as(op, x)
        x64 = x.astype(np.float64)
        for configuration in configurations("float32"):
            assert_inside(op, x, allowed, device(x64, log_softmax, *configuration), configuration, exact)
    x = np.random.default_rng(2).uniform(-30, 30, (2, 1 << 16)).astype(np.float32)
    x[1, ::2] -= 60  # half the terms' exp near float32's denormals
    allowed, exact = judged_as(op, x)
    for order, rounding in [(order, "nearest") for order in dev.ORDERS] + [("pairwise", "zero")]:
        configuration = (order, rounding, False, "mixed", "high")
        assert_inside(op, x, allowed, device(x.astype(np.float64), log_softmax, *configuration), configuration, exact)


@pytest.mark.parametrize("op", SOFTMAXES)
def test_float16_passes_summed_in_float32_or_in_half_where_allowed_and_is_caught_in_half_without(op):
    """float16 logits computed in float32 and stored either way: inside with and without the flag; computed in
    float16 (every operation to nearest, exp, rcp and log with float16's accuracy): inside with
    ALLOW_HALF_PRECISION_COMPUTATION; and without it, caught over rows of 4000 terms."""
    log_softmax = "LOG" in op
    for x in batches(3, "float16"):
        (plain, exact), (half, _) = judged_as(op, x), judged_as(op, x, HALF)
        x64 = x.astype(np.float64)
        for configuration in configurations("float32")[::2]:
            computed = device(x64, log_softmax, *configuration)
            for stored in dev.ROUNDINGS:
                values = dev.store(computed, "float16", stored).astype(np.float64)
                assert_inside(op, x, plain, values, ("float32", *configuration, "stored", stored))
                assert_inside(op, x, half, values, ("float32", *configuration, "stored", stored, HALF), checked=False)
        for configuration in configurations("float16"):
            values = device(x64, log_softmax, *configuration, precision="float16")
            assert_inside(op, x, half, values, ("float16", *configuration, HALF))
    x = np.random.default_rng(11).uniform(-2, 2, (6, 4000)).astype(np.float16)
    (plain, _), (half, _) = judged_as(op, x), judged_as(op, x, HALF)
    in_half = device(x.astype(np.float64), log_softmax, precision="float16")
    assert_inside(op, x, half, in_half, ("float16", "sequential", HALF), checked=False)
    assert outside(plain, in_half).sum() > x.size // 2, "float16 sums of 4000 terms without the permission"


def rational_rows(rng, dtype):
    """Rows of 2 to 5 logits (every order) and 6 to 8 (sampled trees): uniform, two near each other at
    magnitudes near 1e4 (float16: 1e3), exp in the denormals but for the maximum's, near-equal (S about n)."""
    rows = []
    for k in range(14):
        n = 2 + k % 4 if k < 8 else 6 + k % 3
        kind = k % 4
        if kind == 0:
            row = rng.uniform(-10, 10, n)
        elif kind == 1:
            row = rng.uniform(-1, 1, n) * (1e4 if dtype == "float32" else 1e3)
            row[1] = row[0] - rng.uniform(0, 3)
        elif kind == 2:
            row = -rng.uniform(*((80, 104) if dtype == "float32" else (8, 17)), n)
            row[0] = 0.0
        else:
            row = -rng.uniform(0, 1, n) * 2.0 ** -12
        rows.append(row.astype(dtype))
    return rows


@functools.lru_cache(maxsize=None)
def interval_ends(name, q, precision):
    """The d3d model's interval of the primitive name (exp, log or rcp) at the value q (a Fraction), as Fractions."""
    formula = {"exp": exp, "log": log, "rcp": rcp}[name](X)
    v = Evaluator(FORMATS[precision]).evaluate(formula, Values.points(np.array([float(q)])))
    return Fraction(float(v.lo[0])), Fraction(float(v.hi[0]))


def rational_outputs(row, log_softmax, precision, rounding, flush, rng, count):
    """Every output (each element's set of values) of devices computing the row with exact rational arithmetic
    and one rounding per operation: d = x - max rounded, exp(d) each at its d3d interval's low or high end,
    alternating, or the exact value rounded to nearest; S in every order (n <= 5) or count sampled trees; then
    exp(d) / S rounded once or exp(d) * rcp(S) (rcp at either end), or d - log(S) (log at either end)."""
    fmt = FORMATS[precision]

    def r(q):
        return round_fraction(q, precision, rounding, flush)

    def ends(formula, values):
        return tuple(map(list, zip(*(interval_ends(formula, q, precision) for q in values))))
    top = Fraction(float(max(row)))
    d = [r(Fraction(float(v)) - top) for v in row]
    low, high = ends("exp", d)
    nearest = [Fraction(float(dev.rounded(np.exp(float(q)), precision, "nearest"))) for q in d]
    outputs = [set() for _ in row]
    for e in (low, high, [a if i % 2 else b for i, (a, b) in enumerate(zip(low, high))], nearest):
        def combine(a, b):
            return r(a + b)
        sums = every_order(e, combine) if len(e) <= 5 else sampled_orders(e, combine, rng, count)
        for s in sums:
            if log_softmax:
                for log_s in zip(*ends("log", [s])):
                    for i, q in enumerate(d):
                        outputs[i] |= {r(q - log_s[0])}
            else:
                rcp_s = [end[0] for end in ends("rcp", [s])]
                for i, q in enumerate(e):
                    outputs[i] |= {r(q / s)} | {r(q * c) for c in rcp_s}
    return outputs


@pytest.mark.parametrize("precision, dtype, flags", [("float32", "float32", "NONE"), ("float16", "float16", HALF),
                                                     ("float32", "float16", "NONE")])
@pytest.mark.parametrize("op", ["ACTIVATION_SOFTMAX", "ACTIVATION_LOG_SOFTMAX"])
def test_every_order_exactly_rounded_inside(op, precision, dtype, flags):
    """Independent of the simulator's float64 tricks: with exact rational arithmetic (each operation rounded
    once by round_fraction, to nearest or toward zero, flushing float32 denormals or not), exp, rcp and log at
    the ends of their d3d intervals, S in every order: every output, stored either way where the tensor is
    float16, inside interval()'s [lo, hi]."""
    rng = np.random.default_rng(12)
    sample = random.Random(12)
    modes = [(r, f) for r in dev.ROUNDINGS for f in (False, True)] if precision == "float32" else [("nearest", False)]
    seen = 0
    for row in rational_rows(rng, dtype):
        allowed, _ = judged_as(op, row[None, :], flags)
        for rounding, flush in modes:
            outputs = rational_outputs(row.astype(np.float64), "LOG" in op, precision, rounding, flush, sample, 60)
            for i, values in enumerate(outputs):
                if dtype != precision:
                    values = {round_fraction(v, dtype, stored) for v in values for stored in dev.ROUNDINGS}
                seen += assert_within(values, allowed.lo[0, i], allowed.hi[0, i],
                                      f"{op} {dtype} in {precision} ({rounding}, flush={flush}) of {row.tolist()}: "
                                      f"element {i}")
    print(f"{op} {dtype} in {precision}: {seen} distinct outputs checked")
    assert seen >= 100, f"expected over a hundred distinct outputs checked, came {seen}"


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 outputs of the softmax family (run with them), and the
    largest fraction of the bound a float32 device reached."""
    if len(CHECKED) < len(SOFTMAXES) or len(REACHED) < 2 * len(SOFTMAXES):
        pytest.skip("run with the soundness tests of this file")
    total = sum(CHECKED.values())
    reached = {f"{op}{'' if once else ' (ends of exp, rcp, log)'}": round(v, 3) for (op, once), v in REACHED.items()}
    print(f"softmax outputs judged: {total} ({CHECKED}); the largest fraction of the bound reached: {reached}")
    assert total >= 10 ** 6, f"expected at least 10^6 outputs judged, came {total}: {CHECKED}"


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
    assert d3d_failed(case, x, device(x.astype(np.float64), log).astype(np.float32)) == 0


def test_a_nan_or_infinity_in_one_term_makes_its_row_nan_and_a_finite_answer_there_is_caught(tmp_path):
    x = np.array([[1, np.nan, 2], [3, np.inf, 4], [-np.inf, 5, 6]], dtype=np.float32)
    case = one_case(tmp_path, "ACTIVATION_SOFTMAX", "float32", x.shape)
    with np.errstate(invalid="ignore"):
        correct = device(x.astype(np.float64), False).astype(np.float32)
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
