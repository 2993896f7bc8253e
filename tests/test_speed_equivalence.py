"""The acceleration layer gives compare.compare's Comparison, field for field.

Each test builds device outputs that are right, slightly wrong, very wrong, NaN
where a number is due, flushed, or zero, and checks fast.Verifier.check against
the plain path (runner.expected_for + compare.compare) on the same tensors,
across chunk boundaries, thread counts and the float16 tables.
"""
import dataclasses

import numpy as np
import pytest
from needs import missing

import oracle
from conformance.caseset import inputs, operands
from conformance.caseset.case import Case
from conformance.caseset.operands import is_subnormal
from conformance.judge import fast, fast_kernels
from conformance.judge.compare import HISTOGRAM_BINS, compare
from conformance.judge.expected import interval_judge
from conformance.run import runner
from every import Failures



@pytest.fixture(autouse=True)
def numba():
    if not fast_kernels.AVAILABLE:
        missing("numba is not installed (a dependency: scripts/setup.sh installs it)")

OPERATORS = [("ACTIVATION_CELU", {"Alpha": 1.0}), ("ACTIVATION_CELU", {"Alpha": 0.5}),
             ("ACTIVATION_CELU", {"Alpha": 2.5}),  # not a power of two: the division itself
             ("ACTIVATION_SCALED_ELU", {"Alpha": 1.6732, "Gamma": 1.0507}),
             ("ELEMENT_WISE_CLIP", {"Min": -1.5, "Max": 2.0, "ScaleBias": None}),
             ("ELEMENT_WISE_CONSTANT_POW", {"Exponent": 2.5, "ScaleBias": None}),
             ("ELEMENT_WISE_CONSTANT_POW", {"Exponent": -3.0, "ScaleBias": None})]


def make_case(op, params, dtype, shape, tolerance=2, flush_allowed=True, nan_rule="d3d"):
    return Case(id=f"{op}/{dtype}/test", op=op, dtype=dtype, shape=tuple(shape), params=dict(params),
                generator={"kind": "uniform"}, required_level="1_0", tolerance=tolerance,
                flush_allowed=flush_allowed, nan_rule=nan_rule)


def plain(case, x, actual):
    """runner.judge's comparison without a Verifier (the reference only for a float input type)."""
    expected, reference, zeros = runner.expected_for(case, x)
    return compare(x, expected, actual, case.tolerance, case.flush_allowed, zeros,
                   reference if np.dtype(case.dtype).kind == "f" else None, interval_judge(case))


def tensor(dtype, shape, seed):
    """Uniform values with every special value sprinkled in."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-12, 12, size=shape).astype(dtype)
    flat = x.reshape(-1)
    specials = inputs.float_specials(dtype)
    where = rng.choice(flat.size, size=min(flat.size, 3 * len(specials)), replace=False)
    flat[where] = np.resize(np.array(specials, dtype=dtype), where.size)
    return x


def devices(expected, rng):
    """name -> an output: exact, within tolerance, a few far off, NaN faults, flushed, zero."""
    bits_type = np.uint32 if expected.dtype == np.float32 else np.uint16
    flat = expected.reshape(-1)
    out = {"exact": expected.copy()}
    near = flat.copy()
    finite = np.isfinite(near) & (np.abs(near) < np.finfo(near.dtype).max / 2) & (near != 0)
    near.view(bits_type)[finite] += rng.integers(0, 3, size=int(finite.sum())).astype(bits_type)
    out["near"] = near.reshape(expected.shape)
    far = near.copy()
    picks = rng.choice(np.flatnonzero(finite), size=min(25, int(finite.sum())), replace=False)
    far.view(bits_type)[picks] += bits_type(200)
    out["far"] = far.reshape(expected.shape)
    nan = near.copy()
    nan[picks[:7]] = np.nan
    nan[np.isnan(flat)] = 1.0
    out["nan"] = nan.reshape(expected.shape)
    flushed = np.where(is_subnormal(flat), np.copysign(np.zeros_like(flat), flat), flat)
    out["flushed"] = flushed.reshape(expected.shape)
    out["zeros"] = np.zeros_like(expected)
    return out


def assert_same(fast_result, plain_result):
    assert dataclasses.asdict(fast_result) == dataclasses.asdict(plain_result)


@pytest.mark.parametrize("jobs,kernel", [(1, "always"), (3, "always"), (2, "never")])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("op,params", OPERATORS)
def test_fast_verdicts_equal_the_plain_comparison(op, params, dtype, jobs, kernel):
    rng = np.random.default_rng(7)
    # sizes: small, several chunks with a ragged end, and past the parallel threshold
    shapes = [(5,), (3, 7, 11), (fast.CHUNK * 2 + 17,), (2, fast.PARALLEL_MIN // 2 + 5)]
    with fast.Verifier(jobs=jobs, kernel=kernel) as verifier:
        for shape in shapes:
            case = make_case(op, params, dtype, shape)
            x = tensor(dtype, shape, seed=int(np.prod(shape)))
            expected, _, _ = runner.expected_for(case, x)
            for name, actual in devices(expected, rng).items():
                assert_same(verifier.check(case, x, actual), plain(case, x, actual)), (shape, name)


@pytest.mark.parametrize("flush_allowed", [True, False])
@pytest.mark.parametrize("op,params", OPERATORS[:1] + OPERATORS[4:6])
def test_every_float16_value_through_the_table(op, params, flush_allowed):
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16).reshape(256, 256)
    case = make_case(op, params, "float16", x.shape, tolerance=1, flush_allowed=flush_allowed)
    expected, _, _ = runner.expected_for(case, x)
    rng = np.random.default_rng(3)
    with fast.Verifier(jobs=2, kernel="always") as verifier:
        for name, actual in devices(expected, rng).items():
            assert_same(verifier.check(case, x, actual), plain(case, x, actual))
        assert verifier.tables, "a 65,536-element float16 case should have built a table"


def test_propagate_nan_rule_and_non_float_types_take_the_plain_path():
    case = make_case("ELEMENT_WISE_CLIP", {"Min": -3.0, "Max": 3.0, "ScaleBias": None}, "int32", (100,))
    x = np.arange(-50, 50, dtype=np.int32)
    with fast.Verifier() as verifier:
        for actual in (np.clip(x, -3, 4).astype(np.int32), np.clip(x, -3, 3).astype(np.int32),
                       np.clip(x, -3, 3).astype(np.int64)):
            assert not verifier.accelerated(case, x, actual)
            assert_same(verifier.check(case, x, actual), plain(case, x, actual))
    case = make_case("ELEMENT_WISE_CLIP", {"Min": -3.0, "Max": 3.0, "ScaleBias": None}, "float32", (64,),
                     nan_rule="propagate")
    x = tensor("float32", (64,), 1)
    actual = np.where(np.isnan(x), x, oracle.evaluate(case.op, x, "float32", **case.oracle_params()))
    with fast.Verifier() as verifier:
        assert_same(verifier.check(case, x, actual), plain(case, x, actual))


def test_wrong_shape_or_type_is_reported_as_compare_does():
    case = make_case("ACTIVATION_CELU", {"Alpha": 1.0}, "float32", (4, 4))
    x = tensor("float32", (4, 4), 2)
    with fast.Verifier() as verifier:
        for actual in (np.zeros((16,), np.float32), np.zeros((4, 4), np.float16)):
            assert_same(verifier.check(case, x, actual), plain(case, x, actual))


def test_worst_elements_are_merged_across_chunks_in_the_plain_order():
    """Equal distances in different chunks: the earlier position comes first, as argsort's stable order."""
    n = fast.CHUNK * 5
    case = make_case("ELEMENT_WISE_CLIP", {"Min": -1e30, "Max": 1e30, "ScaleBias": None}, "float32", (5, n // 5),
                     tolerance=0)
    x = np.linspace(1, 2, n, dtype=np.float32).reshape(case.shape)
    actual = x.copy().reshape(-1)
    for position in range(3, n, n // 37):
        actual.view(np.uint32)[position] += 5
    actual[n - 1] = np.nan
    with fast.Verifier(jobs=2, kernel="always") as verifier:
        result = verifier.check(case, x, actual.reshape(case.shape))
    assert_same(result, plain(case, x, actual.reshape(case.shape)))
    assert result.worst[0]["ulp"] == "nan" and len(result.worst) == 10


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint32"])
def test_small_cases_verified_together_equal_each_verified_alone(dtype, monkeypatch):
    """check_many groups small cases of one operator and parameter set (tolerances and shapes
    differ) into one oracle call; wrong ones still get the full per-case analysis."""
    monkeypatch.setattr(fast_kernels, "loaded", lambda: False)
    rng = np.random.default_rng(11)
    op, params = ("ELEMENT_WISE_CLIP", {"Min": -3.0, "Max": 5.0, "ScaleBias": None})
    items = []
    for number, shape in enumerate([(7,), (3, 5), (2, 3, 4), (1,), (64,), (4, 4, 4), (9,), (2, 2)]):
        case = make_case(op, params, dtype, shape, tolerance=number % 3)
        if np.dtype(dtype).kind == "f":
            x = tensor(dtype, shape, seed=number)
        else:
            info = np.iinfo(dtype)
            x = rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dtype)
        expected, _, _ = runner.expected_for(case, x)
        actual = expected.copy()
        flat = actual.reshape(-1)
        if number % 2:  # move some elements by 0 to 3 units: within tolerance or not
            step = np.array(number % 4, dtype=flat.dtype)
            flat[::3] = flat[::3] + step if np.dtype(dtype).kind != "f" else np.nextafter(flat[::3], np.inf)
        items.append((case, x, actual))
    items.append((make_case("ACTIVATION_CELU", {"Alpha": 1.0}, "float32", (5,)),
                  tensor("float32", (5,), 3), np.zeros(5, np.float32)))
    with fast.Verifier(kernel="never") as verifier:
        together = verifier.check_many(items)
    for (case, x, actual), result in zip(items, together):
        assert_same(result, plain(case, x, actual))


def _declared_float32_sets():
    """Every float32 parameter set of the default cases whose operator declares a float32 plan."""
    from conformance.caseset.caseload import load_paths
    found = []
    for case in load_paths():
        module = oracle.OPERATORS[case.op]
        if case.dtype == "float32" and hasattr(module, "float32_plan") and (case.op, case.params) not in found:
            found.append((case.op, case.params))
    return found


def test_declared_plans_name_compiled_formulas():
    kernels = fast_kernels.load()
    declaring = [m for m in oracle.OPERATORS.values() if hasattr(m, "float32_plan")]
    assert declaring, "no oracle module declares a float32 plan: the compiled formulas are unused"
    for op, params in _declared_float32_sets():
        declared = oracle.OPERATORS[op].float32_plan(**params)
        assert declared is None or declared["formula"] in kernels.FORMULAS, (op, declared)


@pytest.mark.parametrize("op,params", [op for op in OPERATORS if op[0] != "ELEMENT_WISE_CONSTANT_POW"] +
                         [("ELEMENT_WISE_CLIP", {"Min": -0.0, "Max": 0.0, "ScaleBias": None}),
                          ("ELEMENT_WISE_CLIP", {"Min": 0.0, "Max": -0.0, "ScaleBias": None})] +
                         # an operator that declares a plan later is covered by its first float32 set
                         [next(item for item in _declared_float32_sets() if item[0] == op)
                          for op in dict.fromkeys(op for op, _ in _declared_float32_sets())
                          if op not in {known for known, _ in OPERATORS}])
@pytest.mark.parametrize("nan_rule", ["d3d", "propagate"])
def test_compiled_formulas_give_the_literal_values(op, params, nan_rule):
    """fast_kernels_jit._formula against oracle/<op>.py on every float32 special value and a
    spread of bit patterns over every binade: the same float64 reference (zeros compared by
    value: numpy's own sign of a zero from fmax/fmin depends on the position in the array)."""
    kernels = fast_kernels.load()
    case = make_case(op, params, "float32", (1,), nan_rule=nan_rule)
    patterns = np.arange(0, 1 << 32, 4099, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([np.array(inputs.float_specials("float32"), np.float32), patterns.view(np.float32)])
    with fast.Verifier(kernel="always") as verifier:
        formula, p0, p1, prepare = verifier.float32_plan(case, kernels)
        with np.errstate(all="ignore"):
            buffer = prepare(x, np.empty(x.size))
            literal = oracle.reference(op, x, "float32", nan_rule=nan_rule, **params)
    scratch, positions = np.empty(x.size, np.uint8), np.empty(x.size, np.int64)
    kernels.float32_stats[formula](x, buffer, p0, p1, x, x.view(np.uint32), 0,
                                   np.zeros(HISTOGRAM_BINS, np.int64), scratch, positions)
    if nan_rule == "propagate" or params.get("ScaleBias"):
        assert formula == kernels.LITERAL
    same = (buffer == literal) | (np.isnan(buffer) & np.isnan(literal))
    assert same.all(), x[~same][:5]
    numbers = (literal != 0) & ~np.isnan(literal)  # bit for bit, but for the signs of zeros and NaN payloads
    assert np.array_equal(buffer.view(np.int64)[numbers], literal.view(np.int64)[numbers])


def _interval_operators():
    """OPERATORS and every other one-input float32 operator of the default cases with a d3d formula
    (its first parameter set): the compiled interval evaluation walks any formula. Operators of
    several inputs, and of a family that is not pointwise, take the plain path (the acceleration
    layer declines them)."""
    from conformance import specs
    from conformance.caseset.caseload import load_paths
    chosen = {op: params for op, params in OPERATORS}
    for case in load_paths():
        spec = specs.get(case.op)
        if case.dtype == "float32" and case.op not in chosen and not case.params.get("ScaleBias") \
                and not spec.several_inputs and spec.family.pointwise:
            chosen[case.op] = case.params
    return sorted(chosen.items())


def test_compiled_intervals_equal_the_numpy_ones():
    """fused_intervals.bounds against intervals.interval, bit for bit (signs of zeros included),
    on every float32 special value and a spread of bit patterns over every binade, across blocks;
    one test over every operator of _interval_operators, a failure naming the operator."""
    from conformance.judge import fused_intervals
    fast_kernels.load()
    patterns = np.arange(0, 1 << 32, 65537 * 3, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([np.array(inputs.float_specials("float32"), np.float32), patterns.view(np.float32)])
    failures = Failures()
    for op, params in _interval_operators():
        with failures.check(f"{op} float32 {params}"):
            judge = interval_judge(make_case(op, params, "float32", (1,)))
            with np.errstate(all="ignore"):
                expected = oracle.evaluate(op, x, "float32", **{k: v for k, v in params.items()})
            mine = fused_intervals.bounds(judge, x, expected)
            theirs = judge.bounds(x, expected)
            for field, a, b in zip(("lo", "hi", "num", "nan"), mine, theirs):
                a, b = np.asarray(a), np.asarray(b)
                assert a.shape == b.shape and a.dtype == b.dtype, (field, a.shape, a.dtype, b.shape, b.dtype)
                differ = np.flatnonzero((a.view(np.uint8).reshape(a.size, -1)
                                         != b.view(np.uint8).reshape(b.size, -1)).any(axis=1))
                assert not differ.size, (f"{field} differs at {differ.size} inputs, e.g. x={x[differ[:3]]!r}: "
                                         f"{a[differ[:3]]!r} != {b[differ[:3]]!r}")
    failures.assert_none("operators' compiled intervals differ from the numpy ones")


def _float16_formula_cover():
    """[(op, params)] of float16 default cases whose d3d formulas, together, use every primitive and
    condition any float16 formula of the default cases uses, and both one and several inputs: each
    operator is picked for what it adds (the set grows with the primitives, not the catalogue)."""
    from conformance.caseset.caseload import load_paths

    def used(node, seen):
        seen.add(node.info.name if node.op == "declared" else node.op)
        for arg in node.args:
            used(arg, seen)
        return seen
    offers = {}
    for case in load_paths():
        judge = interval_judge(case) if case.dtype == "float16" else None
        # a judge of an accepted set without a formula (CAST's conversions) has no compiled intervals
        if judge is not None and not judge.exact and judge.formula is not None and case.op not in offers:
            offers[case.op] = (case.params, used(judge.formula, {"several" if judge.names else "one"}))
    wanted, chosen = set().union(*(u for _, u in offers.values())), []
    while wanted:
        op = max(sorted(offers), key=lambda o: len(offers[o][1] & wanted))
        chosen.append((op, offers[op][0]))
        wanted -= offers.pop(op)[1]
    return chosen


def test_compiled_float16_intervals_equal_the_numpy_ones():
    """fused_intervals.bounds of float16 (the float32 computation stored outward, united with the
    float16 one) against intervals.interval, bit for bit: every float16 value for one input; for
    several, every pair of special values and a spread of random pairs, across blocks."""
    from conformance import specs
    from conformance.judge import fused_intervals
    fast_kernels.load()
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    specials = np.array(inputs.float_specials("float16"), np.float16)
    rng = np.random.default_rng(16)
    failures = Failures()
    cover = _float16_formula_cover()
    assert len(cover) >= 4 and any(specs.get(op).several_inputs for op, _ in cover), cover
    for op, params in cover:
        with failures.check(f"{op} float16 {params}"):
            judge = interval_judge(make_case(op, params, "float16", (1,)))
            assert fused_intervals.compiles(judge)
            if judge.names:
                crossed = np.array(np.meshgrid(*[specials] * len(judge.names))).reshape(len(judge.names), -1)
                spread = every[rng.integers(0, 1 << 16, size=(len(judge.names), (1 << 17) + 3))]
                x = tuple(np.concatenate(parts) for parts in zip(crossed, spread))
            else:
                x = every
            with np.errstate(all="ignore"):
                expected = oracle.evaluate(op, x, "float16", **params)
            for field, a, b in zip(("lo", "hi", "num", "nan"), fused_intervals.bounds(judge, x, expected),
                                   judge.bounds(x, expected)):
                a, b = np.asarray(a), np.asarray(b)
                assert a.dtype == b.dtype and a.shape == b.shape, (field, a.dtype, b.dtype)
                differ = np.flatnonzero((a.view(np.uint8).reshape(a.size, -1)
                                         != b.view(np.uint8).reshape(b.size, -1)).any(axis=1))
                assert not differ.size, (f"{field} differs at {differ.size} inputs, e.g. "
                                         f"{[operands.element(x, i, float) for i in differ[:3]]}: "
                                         f"{a[differ[:3]]!r} != {b[differ[:3]]!r}")
    failures.assert_none("float16 compiled intervals differ from the numpy ones")


@pytest.mark.parametrize("near_zero", [0.0, 0.1, 0.3, 1.0])
def test_compiled_exp2_intervals_equal_the_numpy_ones_however_many_arguments_are_near_zero(near_zero):
    """exp2's near-one end reads np.expm1 of some elements (0 < |a| < 2**-10) or of all: the same bits
    as intervals.interval whatever their share in a block."""
    from conformance.judge import fused_intervals
    fast_kernels.load()
    rng = np.random.default_rng(7)
    n = 3 * (1 << 16) + 5  # across blocks
    tiny = rng.random(n) < near_zero
    x = np.where(tiny, -np.exp2(-rng.uniform(12, 126, n)), -0.5 - rng.random(n) * 8).astype(np.float32)  # every binade
    judge = interval_judge(make_case("ACTIVATION_CELU", {"Alpha": 1.0}, "float32", (1,)))
    with np.errstate(all="ignore"):
        expected = oracle.evaluate("ACTIVATION_CELU", x, "float32", Alpha=1.0)
    for a, b in zip(fused_intervals.bounds(judge, x, expected), judge.bounds(x, expected)):
        assert np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8))


def test_compiled_log2_step_equals_the_numpy_one_on_every_kind_of_float64():
    """The log2 step alone, on interval ends a formula's float32 inputs never give (float64 subnormals,
    powers of two across the whole float64 range, NaN ends of empty sets), points and ranges."""
    from conformance.judge import fast_intervals_jit as fij
    from conformance.judge.intervals import FLOAT32, Evaluator, Values
    rng = np.random.default_rng(3)
    ends = np.concatenate([[0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.0, 2.0, 5e-324, 1e-310, 2.0 ** -1030, -4.0],
                           np.exp2(rng.uniform(-1074, 1023, 500)), np.exp2(np.round(rng.uniform(-1074, 1023, 200)))])
    n = ends.size
    for lo, hi in ((ends, ends.copy()), (ends * 0.99, ends)):
        for num in (np.ones(n, bool), rng.random(n) < 0.5):
            v = Values(lo, hi, num, rng.random(n) < 0.3)
            mine, theirs = fij.Evaluator()._log2(v), Evaluator(FLOAT32)._log2(v)
            for field in ("lo", "hi", "num", "nan"):
                a, b = np.asarray(getattr(mine, field)), np.asarray(getattr(theirs, field))
                assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), field


def every_element_fails(expected, x):
    """name -> an output with no element the exactly rounded value: zeros where the exact
    value is a subnormal (an allowed flush, still judged against its interval), one ULP up,
    NaN, zeros, the sign flipped."""
    flat = expected.reshape(-1)
    bits_type = np.uint32 if flat.dtype == np.float32 else np.uint16
    up = flat.copy()
    up.view(bits_type)[...] += bits_type(1)
    return {"flushed": np.zeros_like(expected), "one_up": up.reshape(expected.shape),
            "nan": np.full_like(expected, np.nan), "negated": (-expected - 1).astype(expected.dtype)}


@pytest.mark.parametrize("op,params", OPERATORS)
def test_every_element_failing_gives_the_plain_comparison(op, params):
    """The bulk-failure path (fast_analysis: compiled counts, bins, worst, d3d verdicts): the
    tiniest negatives (a flushing device gives zero for each) and a spread of all inputs."""
    rng = np.random.default_rng(5)
    n = fast.CHUNK * 3 + 11
    tiny = (rng.integers(1, 0x00800000, size=n, dtype=np.uint32) | np.uint32(0x80000000)).view(np.float32)
    spread = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    with fast.Verifier(jobs=2, kernel="always") as verifier:
        for x in (tiny, spread):
            case = make_case(op, params, "float32", x.shape, tolerance=1)
            expected, _, _ = runner.expected_for(case, x)
            for name, actual in every_element_fails(expected, x).items():
                assert_same(verifier.check(case, x, actual), plain(case, x, actual)), name


def test_bad_cases_of_one_group_keep_their_own_worst_elements_and_bounds(monkeypatch):
    """check_many judges the differing elements of a group's bad cases in one interval evaluation
    (compare.compare_group): each case keeps its own figures, worst elements and their bounds."""
    monkeypatch.setattr(fast_kernels, "loaded", lambda: False)
    rng = np.random.default_rng(5)
    items = []
    for number in range(8):
        shape = [(9,), (4, 6), (3, 2, 5), (17,)][number % 4]
        case = make_case("ACTIVATION_CELU", {"Alpha": 1.0}, "float32", shape, tolerance=number // 4)
        x = tensor("float32", shape, seed=100 + number)
        expected, _, _ = runner.expected_for(case, x)
        actual = expected.copy()
        flat = actual.reshape(-1)
        picks = rng.choice(flat.size, size=3, replace=False)
        if number % 4 == 1:  # a few negative elements 1 ULP off (the exp's error): inside their intervals
            negative = np.flatnonzero((x.reshape(-1) < -0.1) & (x.reshape(-1) > -5))
            picks = rng.choice(negative, size=min(3, negative.size), replace=False)
            flat[picks] = np.nextafter(flat[picks], np.float32(np.inf))
        elif number % 4 == 2:  # far off at other places: outside
            flat[picks] = flat[picks] * np.float32(3.0) + np.float32(1.0)
        elif number % 4 == 3:
            flat[picks[:1]] = np.nan
        items.append((case, x, actual))
    with fast.Verifier(kernel="never") as verifier:
        together = verifier.check_many(items)
    for (case, x, actual), result in zip(items, together):
        assert_same(result, plain(case, x, actual))
    failing = [r for r in together if r.d3d["worst"]]
    assert len(failing) >= 2 and len({tuple(r.d3d["worst"][0]["index"]) for r in failing}) >= 2
    assert any(r.passed_under("d3d") and not r.passed for r in together)  # differing, inside
    assert any(item["lo"] is not None for r in together for item in r.worst)


def _wrong(expected, rng, how):
    """expected with a few elements changed: "exact", "near" (one step), "far", "nan"."""
    actual = expected.copy()
    flat = actual.reshape(-1)
    if how == "exact" or not flat.size:
        return actual
    picks = rng.choice(flat.size, size=min(3, flat.size), replace=False)
    with np.errstate(over="ignore"):  # the largest values step or scale to infinity, as a device's may
        if expected.dtype.kind != "f":
            flat[picks] = flat[picks] ^ np.array(1, dtype=flat.dtype)
        elif how == "near":
            flat[picks] = np.nextafter(flat[picks], np.array(np.inf, dtype=flat.dtype))
        elif how == "far":
            flat[picks] = flat[picks] * flat.dtype.type(3) + flat.dtype.type(1)
        else:
            flat[picks[:1]] = np.nan
    return actual


def test_several_input_cases_verified_together_equal_each_verified_alone():
    """check_many verifies a key's several-input cases with one oracle call over their inputs
    broadcast to the output's shape and concatenated; exact, near, far and NaN outputs of cases
    with and without broadcast inputs, float, integer and boolean outputs, equal the plain path."""
    from conformance.caseset.caseload import load_paths
    rng = np.random.default_rng(9)
    ops = {"ELEMENT_WISE_POW", "ELEMENT_WISE_ADD", "ELEMENT_WISE_LOGICAL_GREATER_THAN",
           "ELEMENT_WISE_DEQUANTIZE_LINEAR", "ELEMENT_WISE_IF"}
    chosen = [c for c in load_paths() if c.op in ops and 0 < c.elements <= fast.SMALL and c.dtype != "float64"]
    items = []
    for number, case in enumerate(chosen):
        x = case.make_input()
        expected, _, _ = runner.expected_for(case, x)
        items.append((case, x, _wrong(expected, rng, ("exact", "near", "far", "nan")[number % 4])))
    assert any(np.shape(v) != items[k][2].shape for k, (_, x, _) in enumerate(items) for v in x)  # broadcast
    with fast.Verifier() as verifier:
        together = verifier.check_many(items)
    for (case, x, actual), result in zip(items, together):
        assert_same(result, plain(case, x, actual))
    assert {r.passed for r in together} == {True, False}
    assert any(r.d3d["worst"] and r.d3d["worst"][0]["lo"] != r.d3d["worst"][0]["hi"] for r in together)
