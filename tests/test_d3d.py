"""The d3d tolerance model: sound (the exact answer is always inside), sharp (faults the
Direct3D rules forbid are caught), and its endpoints agree with an independent computation."""
import math
import os
from fractions import Fraction

import numpy as np
import pytest

import oracle
from conformance import specs, statuses
from conformance.backends import create
from conformance.caseset.caseload import SHIPPED_CASES, load_paths
from conformance.caseset.operands import take
from conformance.caseset.selection import select
from conformance.judge import fast_kernels, intervals
from conformance.judge.d3d import IntervalJudge, lowering_points
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import primitives as P
from every import Failures

SWEEPS = SHIPPED_CASES.parent / "sweeps" / "float16_every_parameter_set"


def parameter_sets():
    seen = {}
    for case in load_paths() + load_paths([SWEEPS]):
        # a pointwise family's formula alone is evaluated on every value (a reduction's is not one of x)
        if case.dtype in ("float16", "float32") and specs.get(case.op).family.pointwise:
            key = (case.op, case.dtype, repr(sorted(case.params.items())), case.nan_rule)
            seen.setdefault(key, case)
    return [pytest.param(c.op, c.dtype, c.params, c.nan_rule, id=f"{c.op}-{c.dtype}-{k[2]}-{c.nan_rule}")
            for k, c in sorted(seen.items())]


def every_binade_float32(per_binade=1 << 15):
    """2^24 float32 inputs: per_binade mantissas in each of the 512 (sign, exponent) binades,
    zeros, subnormals, infinities and NaNs included."""
    mantissas = np.arange(0, 1 << 23, (1 << 23) // per_binade, dtype=np.uint32)
    binades = np.arange(512, dtype=np.uint32) << 23
    return (binades[:, None] | mantissas[None, :]).reshape(-1).view(np.float32)


def assert_sound(op, dtype, params, nan_rule, x):
    """x: every input value to try; an operator of several inputs pairs each with the values x
    holds some places further on (three turns: neighbours, far values, and x against itself)."""
    inputs = len(specs.get(op).inputs)
    if inputs > 1:
        for turn in (0, 1, 7919, x.size // 3):
            assert_sound_on(op, dtype, params, nan_rule, tuple(np.roll(x, -turn * k) for k in range(inputs)))
        return
    assert_sound_on(op, dtype, params, nan_rule, x)


def assert_sound_on(op, dtype, params, nan_rule, x):
    """The float32 intervals of one input come from the compiled evaluation a run of large tensors uses
    (fused_intervals: intervals.Evaluator's operations, the same bits, held equal to judge.bounds for
    every operator by test_speed_equivalence::test_compiled_intervals_equal_the_numpy_ones); the rest
    from judge.bounds itself, as fused_intervals.bounds hands them on."""
    judge = IntervalJudge(op, dtype, params, nan_rule)
    size = x[0].size if isinstance(x, tuple) else x.size
    for start in range(0, size, 1 << 20):
        part = tuple(v[start:start + (1 << 20)] for v in x) if isinstance(x, tuple) else x[start:start + (1 << 20)]
        expected = oracle.evaluate(op, part, dtype, nan_rule=nan_rule, **params)
        lo, hi, num, may_nan = _bounds(judge, part, expected)
        e = expected.astype(np.float64)
        inside = np.where(np.isnan(e), may_nan, num & (lo <= e) & (e <= hi))
        outside = ~inside & ~lowering_points(lo, hi, num, may_nan)
        where = np.flatnonzero(outside)[:5]
        assert not where.size, (f"{op} {dtype} {params}: {outside.sum()} exact values outside their interval, e.g. "
                                + "; ".join(f"x={take(part, i)!r} exact {expected[i]!r} in [{lo[i]!r}, {hi[i]!r}]"
                                            for i in where))


# 2^24 float32 inputs cost seconds a parameter set even compiled: the first set of each seed operator
# (and NaN rule) gets them; every other set 2^20 (2,048 per binade), unless DMLC_FULL_SOUNDNESS=1 asks
# for 2^24 everywhere (README: "Tolerance models").
FULL_SOUNDNESS = {"ACTIVATION_CELU", "ACTIVATION_SCALED_ELU", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_CONSTANT_POW"}


def _bounds(judge, x, expected):
    if not fast_kernels.AVAILABLE:  # the plain evaluation, slower, the same bits
        return judge.bounds(x, expected)
    from conformance.judge import fused_intervals
    return fused_intervals.bounds(judge, x, expected)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_the_exactly_rounded_value_lies_in_its_interval(dtype):
    """Every parameter set of dtype in cases/ and the float16 sweeps, in one test: float16 on all
    65,536 inputs, float32 on 2^20 (2^24 for a seed operator's first set); a failure names the set."""
    failures, dense = Failures(), set()
    if dtype == "float16":
        every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    else:
        every, sparse = every_binade_float32(), every_binade_float32(per_binade=1 << 11)
    for op, dtype_, params, nan_rule in (p.values for p in parameter_sets()):
        if dtype_ != dtype:
            continue
        x = every
        if dtype == "float32" and os.environ.get("DMLC_FULL_SOUNDNESS") != "1":
            x = every if op in FULL_SOUNDNESS and (op, nan_rule) not in dense else sparse
            dense.add((op, nan_rule))
        with failures.check(f"{op} {dtype} {params} {nan_rule}"):
            assert_sound(op, dtype, params, nan_rule, x)
    failures.assert_none(f"{dtype} parameter sets with exact values outside their intervals")
    assert failures.checked > 300, failures.checked


def test_the_oracle_as_device_passes_every_default_case_under_d3d():
    cases = load_paths()
    records = runner.run(cases, create("python:oracle:evaluate"), "5_0", ResultsWriter(None), model="d3d").records
    assert {r["status"] for r in records} == {statuses.PASS}
    assert all(r["tolerance_model"] == "d3d" and r["verdicts"] == {"ulp": "pass", "d3d": "pass"} for r in records)


def run(device, expression, model="d3d"):
    cases = select(load_paths(), expression)
    assert cases, expression
    return runner.run(cases, create(f"python:d3d_faults:{device}"), "5_0", ResultsWriter(None), model=model).records


def outside(records):
    return sum(r["d3d"]["failed"] for r in records if r["d3d"])


@pytest.mark.parametrize("device,expression", [
    ("celu_exp_error_2_15", "ACTIVATION_CELU and float32 and uniform"),
    ("celu_wrong_sign_tiny", "ACTIVATION_CELU and float32 and specials"),
    ("off_by_one_ulp", "ELEMENT_WISE_CLIP and (float32 or float16 or int8)"),
    ("pow_exp_log_2_12", "ELEMENT_WISE_CONSTANT_POW and float32 and uniform"),
    ("flush_float16_denormals", "float16 and exhaustive_float16"),
    ("swallow_nan", "ELEMENT_WISE_CONSTANT_POW and specials"),
])
def test_faults_the_rules_forbid_fail_under_d3d(device, expression):
    records = run(device, expression)
    failing = [r for r in records if r["status"] == statuses.FAIL]
    assert failing and outside(records) > 0, f"{device} passed every case of {expression!r} under d3d"
    worst = failing[0]["d3d"]["worst"][0]
    assert {"lo", "hi", "expected", "actual", "input", "rule", "ratio", "ulp"} <= set(worst)


def test_the_sign_rule_names_itself():
    records = run("celu_wrong_sign_tiny", "ACTIVATION_CELU and float32 and specials")
    flipped = [w for r in records for w in r["d3d"]["worst"] if w["actual"] > 0 > w["input"]]
    assert flipped, "a positive CELU of a negative input went unreported"
    assert {w["rule"] for w in flipped} == {"sign"}


def test_what_the_rules_allow_passes_under_d3d_and_fails_under_ulp():
    expression = "ACTIVATION_CELU and float32 and specials and Alpha=1/"
    d3d = run("celu_as_directml_computes_it", expression)
    ulp = run("celu_as_directml_computes_it", expression, model="ulp")
    assert {r["status"] for r in d3d} == {statuses.PASS}
    assert statuses.FAIL in {r["status"] for r in ulp}
    near_zero = [r for r in ulp if r["max_ulp"] > 1000]
    assert near_zero and all(r["verdicts"]["d3d"] == "pass" for r in near_zero)


def test_celu_of_minus_1e45_as_directml_gives_it_is_inside():
    judge = IntervalJudge("ACTIVATION_CELU", "float32", {"Alpha": 1.0})
    x = np.array([-1e-45], dtype=np.float32)
    verdict = judge.elements(x, np.array([-1e-45], np.float32), np.array([-5.96e-8], np.float32), x)
    assert not verdict.failed[0]
    assert verdict.lo[0] <= -4.7e-7 and verdict.hi[0] == 0


def test_lowering_defined_values_are_accepted_and_counted():
    records = run("celu_exp_error_2_15", "ELEMENT_WISE_CONSTANT_POW and float32 and specials and Exponent=0/")
    # the oracle as device gives pow(x, 0) = 1 everywhere: nothing lowering-defined
    assert all(r["d3d"]["lowering_defined"] == 0 for r in records)
    judge = IntervalJudge("ELEMENT_WISE_CONSTANT_POW", "float32", {"Exponent": 0.0, "ScaleBias": None})
    x = np.array([0.0, -0.0, np.inf, np.nan, 2.0], dtype=np.float32)
    one = np.ones(5, dtype=np.float32)
    verdict = judge.elements(x, one, np.array([np.nan] * 4 + [0.0], np.float32), one)
    assert list(verdict.lowering[:4]) == [True] * 4 and not verdict.failed[:4].any()
    assert verdict.failed[4]  # pow(2, 0) = 0 is no lowering's


# -- the primitives, one rule each -----------------------------------------------------------

def bounds(formula, x, dtype="float32"):
    v = intervals.interval(formula, np.array([x], dtype=dtype), dtype)
    return float(v.lo[0]), float(v.hi[0]), bool(v.num[0]), bool(v.nan[0])


def test_exp2_of_zero_is_exactly_one_and_relative_2_21_elsewhere():
    assert bounds(P.exp2(P.X), 0.0)[:2] == (1.0, 1.0)
    lo, hi, _, _ = bounds(P.exp2(P.X), 3.0)
    assert lo < 8 < hi and (hi - lo) / 8 <= 2 * 2 ** -21 + 2 ** -22


def test_add_and_mul_are_correctly_rounded_and_exact_when_representable():
    assert bounds(P.X * 2.0 + 1.0, 3.0)[:2] == (7.0, 7.0)
    lo, hi, _, _ = bounds(P.X * 3.0, 0.1)
    assert float(np.nextafter(np.float32(lo), np.float32(1))) == hi  # two neighbours: 0.5 ULP either way


def test_float32_denormals_may_flush_and_float16_denormals_may_not():
    assert bounds(P.X * 1.0, 1e-45)[0] == 0.0
    assert bounds(P.X * 1.0, 6e-8, "float16")[0] > 0


def test_direct3d_min_max_return_the_other_operand_for_nan():
    assert bounds(P.maximum(0.0, P.X), np.nan)[:4] == (0.0, 0.0, True, False)
    propagate = intervals.interval(P.maximum(0.0, P.X), np.array([np.nan], np.float32), "float32", "propagate")
    assert propagate.nan[0] and not propagate.num[0]


def test_log2_and_pow_lowering_at_zero():
    assert bounds(P.log2(P.X), 0.0)[:2] == (-math.inf, -math.inf)
    lo, hi, num, nan = bounds(P.pow_(P.X, 0.0), 0.0)
    assert nan  # exp2(0 * log2(0)) = exp2(NaN)
    assert bounds(P.pow_(P.X, -1.0), -0.0)[:2] == (math.inf, math.inf)


def test_rcp_keeps_the_sign_of_zero():
    assert bounds(P.rcp(P.X), 0.0)[:2] == (math.inf, math.inf)
    assert bounds(P.rcp(P.X), -0.0)[:2] == (-math.inf, -math.inf)


# -- an independent computation: exact rationals, and mpmath for exp2 and log2 -----------------

def _floor_f32(q):
    """The largest float32 <= the rational q (q finite)."""
    value = np.float32(float(q))
    while Fraction(float(value)) > q:
        value = np.nextafter(value, np.float32(-np.inf))
    while Fraction(float(np.nextafter(value, np.float32(np.inf)))) <= q and np.isfinite(value):
        nxt = np.nextafter(value, np.float32(np.inf))
        if not np.isfinite(nxt):
            break
        value = nxt
    return Fraction(float(value))


def _ceil_f32(q):
    return -_floor_f32(-q)


def _rational(value):
    sign, mantissa, exponent, _ = value._mpf_
    return (-1) ** sign * Fraction(int(mantissa)) * Fraction(2) ** exponent


def independent(node, x, mp):
    """[lo, hi] of a finite, flush-free formula at the exact input x, in exact rationals: the
    same rules, computed without float64 (no NaN, no infinity, no subnormals in its domain)."""
    u = Fraction(1, 2 ** 21)
    if node.op == "x":
        return x, x
    if node.op == "const":
        return Fraction(node.value), Fraction(node.value)
    if node.op == "select":  # conditions on the exact input only, in these samples
        condition, if_true, if_false = node.args
        (c0, _), (k, _) = (independent(a, x, mp) for a in condition.args)
        holds = {"lt": c0 < k, "le": c0 <= k, "gt": c0 > k, "ge": c0 >= k}[condition.op]
        return independent(if_true if holds else if_false, x, mp)
    args = [independent(a, x, mp) for a in node.args]
    if node.op in ("add", "sub", "mul"):
        (a0, a1), (b0, b1) = args
        if node.op == "add":
            lo, hi = a0 + b0, a1 + b1
        elif node.op == "sub":
            lo, hi = a0 - b1, a1 - b0
        else:
            corners = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
            lo, hi = min(corners), max(corners)
        return _floor_f32(lo), _ceil_f32(hi)
    (a0, a1), = args[:1]
    if node.op == "rcp":
        lo, hi = 1 / a1, 1 / a0
        lo, hi = (lo * (1 + u) if lo < 0 else lo * (1 - u)), (hi * (1 - u) if hi < 0 else hi * (1 + u))
        return _floor_f32(lo), _ceil_f32(hi)
    if node.op == "exp2":
        def exp2(q):
            if abs(q) > 100:  # beyond float32 (or into its subnormals, where flushing enters)
                raise OverflowError(f"exp2({float(q)})")
            return _rational(mp.power(2, mp.mpf(q.numerator) / q.denominator))
        lo = Fraction(1) if a0 == 0 else exp2(a0) * (1 - u)
        hi = Fraction(1) if a1 == 0 else exp2(a1) * (1 + u)
        return _floor_f32(lo), _ceil_f32(hi)
    if node.op == "log2":
        def log2(q):
            return _rational(mp.log(mp.mpf(q.numerator) / q.denominator, 2))
        def spread(q, value):
            return u if Fraction(1, 2) <= q <= 2 else abs(value) * u
        lo, hi = log2(a0), log2(a1)
        return _floor_f32(lo - spread(a0, lo)), _ceil_f32(hi + spread(a1, hi))
    if node.op == "abs":
        return (a0, a1) if a0 >= 0 else (-a1, -a0)
    if node.op == "neg":
        return -a1, -a0
    if node.op in ("min", "max"):
        (b0, b1) = args[1]
        pick = min if node.op == "min" else max
        return pick(a0, b0), pick(a1, b1)
    raise NotImplementedError(node.op)


@pytest.mark.parametrize("op,params", [("ACTIVATION_CELU", {"Alpha": 1.0}), ("ACTIVATION_CELU", {"Alpha": 2.5}),
                                       ("ACTIVATION_SCALED_ELU", {"Alpha": 1.6732, "Gamma": 1.0507}),
                                       ("ELEMENT_WISE_CLIP", {"Min": -1.5, "Max": 2.25}),
                                       ("ELEMENT_WISE_CONSTANT_POW", {"Exponent": 3.0}),
                                       ("ELEMENT_WISE_CONSTANT_POW", {"Exponent": -0.5})])
def test_interval_endpoints_agree_with_exact_rationals(op, params):
    mp = pytest.importorskip("mpmath")
    mp.mp.prec = 200
    spec = specs.get(op)
    formula = spec.d3d({k: float(np.float32(v)) for k, v in params.items()})
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-20, 20, 60), -np.logspace(-30, 1.8, 40), np.logspace(-30, 10, 40)])
    x = x.astype(np.float32)
    if op == "ELEMENT_WISE_CONSTANT_POW" and not float(params["Exponent"]).is_integer():
        x = np.abs(x)  # a NaN branch has no interval to compare
    full = {**oracle.defaults(op), **params}
    v = intervals.interval(formula, x, "float32")
    finite = v.num & ~v.nan & np.isfinite(v.lo) & np.isfinite(v.hi)
    x, v = x[finite], intervals.Values(v.lo[finite], v.hi[finite], v.num[finite], v.nan[finite])
    assert x.size > 100
    equal = 0
    for k, value in enumerate(x):
        try:
            lo, hi = independent(formula, Fraction(float(value)), mp.mp)
        except OverflowError:  # an infinite intermediate: outside the rational computation's reach
            equal += 1
            continue
        mine_lo, mine_hi = Fraction(float(v.lo[k])), Fraction(float(v.hi[k]))
        # The float64 evaluation may only be wider (its slack for inexact float64 primitives).
        assert mine_lo <= lo and hi <= mine_hi, (op, full, value, (lo, hi), (mine_lo, mine_hi))
        equal += (mine_lo, mine_hi) == (lo, hi)
    assert equal >= 0.9 * x.size, f"only {equal} of {x.size} intervals equal the exact computation"


def test_diff_warns_when_the_runs_were_judged_by_different_models(tmp_path):
    from reports.diff import diff_files
    cases = select(load_paths(), "ACTIVATION_CELU and float32 and specials")
    paths = []
    for model in ("ulp", "d3d"):
        path = tmp_path / f"{model}.jsonl"
        writer = ResultsWriter(str(path))
        backend = create("python:d3d_faults:celu_as_directml_computes_it")
        writer.write(runner.run_metadata(backend, "5_0", 0, [], model=model))
        summary = runner.run(cases, backend, "5_0", writer, model=model)
        writer.write({"type": "footer", "seconds": 0, "cases": len(summary.records)})
        writer.close()
        paths.append(path)
    result = diff_files(*paths)
    assert any("tolerance model" in note for note in result.warnings())
    assert result.changes and all(c.status_after == statuses.PASS for c in result.changes)


def test_a_type_without_modelled_precision_rules_is_judged_exactly():
    """float64 (Direct3D's double-precision rules are not in the model): the exactly rounded value
    only, a one-ULP-off element outside, and no error on the way."""
    import numpy as np
    from conformance.judge.compare import compare
    from conformance.judge.d3d import IntervalJudge
    judge = IntervalJudge("ELEMENT_WISE_IDENTITY", "float64", {"ScaleBias": {"Scale": 3.0, "Bias": 0.1}})
    assert judge.exact
    x = np.array([1.0, 2.0, -0.5])
    expected = x * 3.0 + 0.1
    actual = expected.copy()
    actual.view(np.int64)[1] += 1
    result = compare(x, expected, actual, 0, judge=judge)
    assert result.d3d["checked"] == 1 and result.d3d["failed"] == 1 and result.d3d["worst"][0]["index"] == [1]


FROM_MEMORY = """
import os, sys, time
import numpy as np
import oracle
from conformance.judge import fast_kernels, fused_intervals
from conformance.judge.d3d import IntervalJudge
assert fused_intervals.source_directory() is None, fused_intervals.source_directory()
judge = IntervalJudge("ACTIVATION_CELU", "float32", {"Alpha": 1.0}, "d3d")
x = np.linspace(-10, 10, 5000, dtype=np.float32)
expected = oracle.evaluate("ACTIVATION_CELU", x, "float32", Alpha=1.0)
fused, plain = fused_intervals.bounds(judge, x, expected), judge.bounds(x, expected)
assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(fused, plain))
print("compiled from memory", flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not fast_kernels.AVAILABLE, reason="numba is absent: nothing is compiled")
def test_with_no_writable_cache_the_kernels_compile_from_memory_and_a_kill_leaves_nothing(tmp_path):
    """NUMBA_CACHE_DIR, the package and the user's cache all unwritable: the generated kernels are
    compiled from memory (the same bounds), and a process killed with SIGKILL leaves no folder."""
    import subprocess
    import sys
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": "/proc/unwritable", "XDG_CACHE_HOME": "/proc/unwritable",
           "HOME": "/proc/unwritable", "TMPDIR": str(scratch)}
    # the package's own __pycache__ (writable in a checkout) made unusable too
    code = "import conformance.judge.fused_intervals as f\nf.PACKAGE_CACHE = '/proc/unwritable'\n" + FROM_MEMORY
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "compiled from memory", (line, child.stderr.read() if child.poll() else "")
    finally:
        child.kill()
        child.wait()
    assert not list(scratch.iterdir()), list(scratch.iterdir())
