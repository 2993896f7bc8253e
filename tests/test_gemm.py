"""GEMM's oracle and its sound bound (issue 26): simulated devices (tests/accumulation_devices.py) summing in
every order, rounding, fusion and flush a device may choose, finishing with Alpha and Beta * C each way,
pass on over 10^6 judged outputs of float32 and float16; the faults the issue names (TransA ignored,
TF32-like products, float16 accumulation without the half-precision permission, a term dropped) are
caught."""
import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

import accumulation_devices as dev
from exact_orders import every_dot, round_fraction
import oracle
from conformance import backends, specs, statuses
from conformance.backends.base import OK, Outcome
from conformance.caseset.caseload import load_paths
from conformance.dmldirect import layout
from conformance.dmldirect.describe import OperatorDescription
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.judge.intervals import FLOAT32, Evaluator, Values
from conformance.specs import primitives
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs.base import ABSENT, computed_fields
from conformance.specs.gemm import has_c
from oracle.gemm import NONE, transformed
from oracle.rounding import float_param
from soundness_tally import Tally, by_kind

GEMM = specs.get("GEMM")
TRANSPOSE = "DML_MATRIX_TRANSFORM_TRANSPOSE"
FLAG = "ALLOW_HALF_PRECISION_COMPUTATION"


def params(**given) -> dict:
    return {**GEMM.defaults(), **given}


def verdict(inputs, fields, dtype, actual):
    """The d3d verdict's count of elements outside the interval, and the largest fraction of the bound."""
    fields = params(**fields)
    computed = computed_fields(fields)
    expected = oracle.evaluate("GEMM", inputs, dtype, **computed)
    reference = oracle.reference("GEMM", inputs, dtype, **computed)
    shapes = tuple(np.shape(v) for v in inputs)
    result = compare_accumulated(GEMM, inputs, fields, dtype, expected, reference, actual,
                                 GEMM.ulp_tolerance(shapes, fields, dtype))
    return result.d3d["failed"], result.d3d["bound_fraction"]


def test_oracle_computes_the_pages_formula_with_transposes_alpha_beta_and_c():
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.array([[5, 6], [7, 8]], np.float32)
    c = np.ones((2, 2), np.float32)
    got = oracle.reference("GEMM", (a, b, c), "float32", TransA=TRANSPOSE, Alpha=2.0, Beta=0.5)
    # A^T B = [[26, 30], [38, 44]]; 2 * that + 0.5
    assert got.tolist() == [[52.5, 60.5], [76.5, 88.5]]
    got = oracle.reference("GEMM", (a, b), "float32", TransB=TRANSPOSE, CTensor=ABSENT, Beta=7.0)
    assert got.tolist() == [[17.0, 23.0], [39.0, 53.0]], "C absent: 0 and Beta ignored"
    got = oracle.reference("GEMM", (a, b, -100 * c), "float32", FusedActivation={"Type": "ACTIVATION_RELU"})
    assert got.tolist() == [[0.0, 0.0], [0.0, 0.0]], "RELU(A B - 100): every product sum is below 100"


# -- soundness: simulated devices (tests/accumulation_devices.py) on over 10^6 judged outputs ---------------------------

TALLY = Tally("GEMM")
# (K, M, N, fields) per group of outputs: K from 1 to a few hundred, every transform, Alpha and Beta, C absent once
GROUPS = ((1, 24, 24, {}), (3, 24, 24, {"Alpha": 0.3, "Beta": -2.0}),
          (8, 16, 16, {"TransA": TRANSPOSE, "Alpha": -1.7, "Beta": 0.25}),
          (33, 12, 12, {"TransB": TRANSPOSE, "CTensor": ABSENT, "Alpha": 0.3}),
          (100, 8, 8, {"TransA": TRANSPOSE, "TransB": TRANSPOSE, "Beta": 3.0}), (257, 6, 6, {"Alpha": 0.3}))
LONG = (4096, 2, 3, {"Alpha": 0.3, "Beta": -1.0})  # few outputs, fewer devices (each a loop over 4096 terms)
LONG_DEVICES = (("sequential", "zero", False, False), ("blocked256", "zero", True, False),
                ("pairwise", "nearest", False, False), ("strided32", "zero", True, False))
KINDS = ("uniform", "positive", "cancel", "wide", "tiny")


def matrices(rng, kind, k, m, n, dtype):
    """A {M,K}, B {K,N}, C {M,N} of dtype (untransposed): uniform in [-1, 1] with a NaN, infinities of both signs
    (an inf - inf among them) and an infinite C; positive: [0, 1] (post-ReLU: a truncating device's errors add
    up); cancel: products in pairs of opposite sign (A's odd columns the even ones negated and moved by up to
    1e-3, B's odd rows the even ones) of magnitudes up to 10^6, and Beta * C the negated Alpha * A B; wide:
    magnitudes 2^-30 to 2^30 (float16 2^-7 to 2^5); tiny: float32 A in the denormals, B up to 16 (float16 A
    and B from its denormals to 2^-4 and 4)."""
    half = dtype == "float16"
    if kind in ("uniform", "positive"):
        low = 0.0 if kind == "positive" else -1.0
        a, b, c = (rng.uniform(low, 1, shape) for shape in ((m, k), (k, n), (m, n)))
        if kind == "uniform":
            a[0, 0], a[1, -1], b[-1, 2], b[0, -1], c[-1, 1] = np.nan, np.inf, -np.inf, np.inf, -np.inf
    elif kind == "cancel":
        top = 30.0 if half else 1000.0
        a, b, c = rng.uniform(-top, top, (m, k)), rng.uniform(-top, top, (k, n)), None
        pairs = k // 2 * 2
        a[:, 1:pairs:2] = -a[:, 0:pairs:2] * (1 + rng.uniform(-1e-3, 1e-3, (m, pairs // 2)))
        b[1:pairs:2] = b[0:pairs:2]
    else:
        ranges = {("wide", False): ((-30, 30), (-30, 30), (-60, 60)), ("wide", True): ((-7, 5), (-7, 5), (-14, 10)),
                  ("tiny", False): ((-149, -120), (-4, 4), (-149, -110)), ("tiny", True): ((-24, -4), (-8, 2), (-24, -10))}
        (a, b, c) = (rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(lo, hi, shape))
                     for (lo, hi), shape in zip(ranges[kind, half], ((m, k), (k, n), (m, n))))
    return a.astype(dtype), b.astype(dtype), c


def case_inputs(a, b, c, fields, dtype):
    """The GEMM's inputs as the fields lay them out (A or B stored transposed); C for cancel: Beta * C the negated
    Alpha * A B (rounded to dtype)."""
    alpha, beta = (float_param(fields.get(f, 1.0)) for f in ("Alpha", "Beta"))
    if c is None:
        with np.errstate(invalid="ignore"):
            c = -alpha * (a.astype(np.float64) @ b) / beta
    stored = (a.T if fields.get("TransA") == TRANSPOSE else a, b.T if fields.get("TransB") == TRANSPOSE else b)
    stored = tuple(np.ascontiguousarray(x) for x in stored)
    return stored + ((c.astype(dtype),) if fields.get("CTensor") != ABSENT else ())


def factor_rows(inputs, fields):
    """Each output's K products as two (outputs, K) arrays of factors, rows in the output's order."""
    a = transformed(np.asarray(inputs[0], np.float64), fields.get("TransA", NONE))
    b = transformed(np.asarray(inputs[1], np.float64), fields.get("TransB", NONE))
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    rows_a = np.broadcast_to(a[..., :, None, :], a.shape[:-2] + (m, n, k))
    rows_b = np.broadcast_to(np.swapaxes(b, -1, -2)[..., None, :, :], rows_a.shape)
    return rows_a.reshape(-1, k), rows_b.reshape(-1, k)


def device_outputs(rows, c, fields, order, rounding, fused, flush, precision="float32") -> dict:
    """A simulated device's GEMM outputs (float64 values of precision, one per row), each way it may finish:
    "after": Alpha * S rounded, then Beta * C added by a mad (one rounding); "after-unfused": Beta * C rounded
    first; "started": the accumulator started with Beta * C rounded and Alpha folded into A (each Alpha * a
    rounded) -- the sum in order throughout. c: C per row, or None (absent)."""
    r = lambda v: dev.rounded(v, precision, rounding, flush)  # noqa: E731
    alpha, beta = (float_param(fields.get(f, 1.0)) for f in ("Alpha", "Beta"))
    a, b = rows
    with np.errstate(all="ignore"):
        scaled = r(alpha * dev.sum_rows((a, b), order, precision, rounding, fused, flush))
        out = {"after": scaled if c is None else r(scaled + beta * c)}
        if c is not None:
            out["after-unfused"] = r(scaled + r(beta * c))
        if c is not None or alpha != 1.0:
            folded = r(alpha * a) if alpha != 1.0 else a
            if c is not None:  # Beta * C the first leaf: a product with 1, exact
                folded, b = (np.concatenate([r(beta * c)[:, None], folded], axis=1),
                             np.concatenate([np.ones((len(c), 1)), b], axis=1))
            out["started"] = dev.sum_rows((folded, b), order, precision, rounding, fused, flush)
    return out


def soundness_groups(seed, dtype, long=True):
    """(fields, [(kind, inputs)], the factor rows of them all, C per row or None) per group."""
    rng = np.random.default_rng(seed)
    for k, m, n, given in GROUPS + ((LONG,) if long else ()):
        fields = params(**given)
        cases = [(kind, case_inputs(*matrices(rng, kind, k, m, n, dtype), fields, dtype)) for kind in KINDS]
        rows = [factor_rows(inputs, fields) for _, inputs in cases]
        c = (np.concatenate([inputs[2].astype(np.float64).reshape(-1) for _, inputs in cases])
             if has_c(fields) else None)
        yield fields, cases, tuple(np.concatenate(x) for x in zip(*rows)), c



def test_float32_devices_inside():
    """Every simulated float32 device (order x rounding x fused x flush x the way it adds Alpha and Beta * C)
    inside each output's interval."""
    for fields, cases, rows, c in soundness_groups(1, "float32"):
        allowed, exact = by_kind(GEMM, cases, fields, "float32")
        k = rows[0].shape[1]
        for device in dev.devices("float32", fused_too=True) if k < 4096 else LONG_DEVICES:
            for finish, values in device_outputs(rows, c, fields, *device).items():
                TALLY.judge_by_kind("float32", cases, allowed, exact, values, (k, fields, device, finish),
                                    rounding=device[1])


def test_float16_devices_inside():
    """float16 inputs summed in float32 and stored either way: inside with and without the flag; summed in
    float16 (every step in half): inside with ALLOW_HALF_PRECISION_COMPUTATION."""
    for fields, cases, rows, c in soundness_groups(2, "float16", long=False):
        half_fields = {**fields, "ExecutionFlags": FLAG}
        plain, exact = by_kind(GEMM, cases, fields, "float16")
        half, _ = by_kind(GEMM, cases, half_fields, "float16", references=False)
        for device in dev.devices("float32", fused_too=True):
            for finish, computed in device_outputs(rows, c, fields, *device).items():
                for stored in dev.ROUNDINGS:
                    values = dev.store(computed, "float16", stored).astype(np.float64)
                    where = (fields, "float32", device, finish, "stored", stored)
                    TALLY.judge_by_kind("float16 in float32", cases, plain, exact, values, where)
                    TALLY.judge_by_kind("float16 in float32", cases, half, exact, values, where + (FLAG,), count=False)
        for device in dev.devices("float16", fused_too=True):
            for finish, values in device_outputs(rows, c, fields, *device, precision="float16").items():
                TALLY.judge_by_kind("float16 in half", cases, half, exact, values,
                                    (fields, "float16", device, finish, FLAG))


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 GEMM outputs (run with them), and printed how far into
    the bound the devices came."""
    if not TALLY.checked:
        pytest.skip("run with the soundness tests of this file")
    TALLY.report_truncating()


# -- independent: exact rational arithmetic, every or sampled order ------------------------------------------------

def rational_gemms(rng, dtype):
    """Small GEMMs (M 2, N 2, K 1 to 9) of the data whose sums round hardest: uniform, near-equal magnitudes
    (1 + a few ULP), products of half an ULP of Beta * C (an accumulator started with it loses them), Beta * C
    cancelling Alpha * A B, the float32 denormals, products near the largest value (partial sums past it:
    infinity, or truncated to it); with TransA, Alpha and Beta, C present (and absent once)."""
    half = dtype == "float16"
    ulp = 2.0 ** (-10 if half else -23)
    mixed, plain = {"TransA": TRANSPOSE, "Alpha": 0.3, "Beta": -2.0}, {"Alpha": 1.0, "Beta": 1.0}
    for k, kind, given in ((1, "uniform", mixed), (2, "one", plain), (4, "small", plain),
                           (4, "small", {"TransA": TRANSPOSE, "Alpha": 0.3, "Beta": 0.5}), (3, "cancel", mixed),
                           (4, "uniform", {"Alpha": -1.5, "Beta": 0.25}), (4, "tiny", {"TransA": TRANSPOSE, "Beta": 3.0}),
                           (3, "huge", plain), (6, "one", {"CTensor": ABSENT, "Alpha": 0.3}), (9, "cancel", plain)):
        if kind == "uniform":
            a, b, c = rng.uniform(-1, 1, (2, k)), rng.uniform(-1, 1, (k, 2)), rng.uniform(-1, 1, (2, 2))
        elif kind == "one":
            a, b, c = 1 + rng.integers(0, 8, (2, k)) * ulp, 1 + rng.integers(0, 8, (k, 2)) * ulp, np.ones((2, 2))
        elif kind == "small":
            a, b = rng.uniform(0.6, 0.99, (2, k)) * np.sqrt(ulp), rng.uniform(0.6, 0.99, (k, 2)) * np.sqrt(ulp)
            c = np.full((2, 2), 1.0 / float_param(given["Beta"]))
        elif kind == "cancel":
            a, b, c = rng.uniform(-30, 30, (2, k)), rng.uniform(-30, 30, (k, 2)), None
        elif kind == "tiny":
            low = -24 if half else -149
            a = rng.choice([-1, 1], (2, k)) * np.exp2(rng.uniform(low, low + 12, (2, k)))
            b, c = rng.uniform(1, 4, (k, 2)), rng.choice([-1, 1], (2, 2)) * np.exp2(rng.uniform(low, low + 12, (2, 2)))
        else:
            top = np.sqrt(float(np.finfo(dtype).max))
            a, b, c = np.full((2, k), 0.9 * top), np.full((k, 2), 0.7 * top), -np.full((2, 2), top)
            a[:, -1] *= -1.3
        fields = params(**given)
        yield fields, case_inputs(a.astype(dtype), b.astype(dtype), c, fields, dtype)


def rational_results(inputs, fields, m, n, precision, rounding, flush, sample) -> tuple:
    """(the exact result, every result a device gives) at output (m, n), each operation rounded once: the products
    summed in every (or a sample of) order, fused or not; then Alpha * S rounded and Beta * C added by a mad or
    rounded first; or the accumulator started with Beta * C rounded, Alpha folded into A."""
    r = lambda q: round_fraction(q, precision, rounding, flush)  # noqa: E731
    alpha, beta = (Fraction(float_param(fields.get(f, 1.0))) for f in ("Alpha", "Beta"))
    a = transformed(np.asarray(inputs[0], np.float64), fields["TransA"])[m]
    b = transformed(np.asarray(inputs[1], np.float64), fields["TransB"])[:, n]
    a, b = [Fraction(float(v)) for v in a], [Fraction(float(v)) for v in b]
    bc = beta * Fraction(float(inputs[2][m, n])) if has_c(fields) else None
    exact = alpha * sum(x * y for x, y in zip(a, b)) + (bc or 0)
    results = set()
    for s in every_dot(a, b, precision, rounding, flush, rng=sample):
        t = s if alpha == 1 else r(alpha * s)
        results |= {t} if bc is None else {r(t + bc), r(t + r(bc))}
    if bc is not None or alpha != 1:
        folded = [r(alpha * x) for x in a] if alpha != 1 else a
        results |= every_dot(folded, b, precision, rounding, flush, start=None if bc is None else r(bc), rng=sample)
    return exact, results


@pytest.mark.parametrize("precision, dtype, flags", [("float32", "float32", "NONE"), ("float16", "float16", FLAG),
                                                     ("float32", "float16", "NONE")])
def test_every_order_exactly_rounded_inside(precision, dtype, flags):
    """Every result of small GEMMs with TransA, Alpha, Beta and C, computed with exact rational arithmetic and one
    exact IEEE rounding per operation (to nearest, toward zero; flushing float32 denormals or not): every order
    of at most 5 leaves, 60 random trees beyond; each (stored either way where float16 is summed in float32) and
    the exact rational result inside the interval."""
    rng, sample = np.random.default_rng(11), random.Random(11)
    modes = [(r, f) for r in dev.ROUNDINGS for f in (False, True)] if precision == "float32" else [("nearest", False)]
    judged = 0
    for fields, inputs in rational_gemms(rng, dtype):
        fields = {**fields, "ExecutionFlags": flags}
        allowed = interval(GEMM, inputs, fields, dtype)
        for m, n in itertools.product(range(2), range(2)):
            lo, hi, nan = allowed.lo[m, n], allowed.hi[m, n], allowed.nan[m, n]
            for rounding, flush in modes:
                exact, results = rational_results(inputs, fields, m, n, precision, rounding, flush, sample)
                assert lo <= exact <= hi, f"{fields} output {m, n}: exact {float(exact)!r} outside [{lo!r}, {hi!r}]"
                if dtype != precision:
                    results = {round_fraction(v, dtype, stored) for v in results for stored in dev.ROUNDINGS}
                bad = [float(v) for v in results if not (lo <= v <= hi if v == v else nan)]
                assert not bad, (f"{dtype} in {precision} ({rounding}, flush={flush}) {fields} output {m, n}: results "
                                 f"{bad[:3]} outside [{lo!r}, {hi!r}] (exact {float(exact)!r})")
                judged += len(results)
    assert judged > 150, f"expected a few hundred distinct device results checked, came {judged}"


def model_ends(formula, value: float) -> tuple:
    """The two ends of the element-wise d3d model's float32 interval of formula (conformance/judge/intervals.py) at
    a float32 value: the values a device's primitive may give there."""
    with np.errstate(all="ignore"):
        ends = Evaluator(FLOAT32).evaluate(formula, Values.points(np.array([value])))
    return float(ends.lo[0]), float(ends.hi[0])


def test_a_fused_sigmoid_exactly_rounded_inside():
    """SIGMOID fused after small GEMMs, 1 / (1 + exp(-t)) as the page's activation computes it: t every result of
    the GEMM in exact rational arithmetic (every order, rounding, flush), exp(-t) and the division either end of
    their d3d intervals, 1 + exp(-t) rounded once: every value inside the fused GEMM's interval."""
    rng, sample = np.random.default_rng(13), random.Random(13)
    judged = 0
    for fields, inputs in itertools.islice(rational_gemms(rng, "float32"), 8):
        if not np.isfinite(np.concatenate([np.ravel(v) for v in inputs])).all() or \
                np.abs(inputs[0]).max() > 1e10:  # huge: sigmoid saturates, the sums' overflow is the GEMM's test
            continue
        fused = {**fields, "FusedActivation": {"Type": "ACTIVATION_SIGMOID"}}
        allowed = interval(GEMM, inputs, fused, "float32")
        for (m, n), (rounding, flush) in itertools.product(itertools.product(range(2), range(2)),
                                                           itertools.product(dev.ROUNDINGS, (False, True))):
            _, sums = rational_results(inputs, fields, m, n, "float32", rounding, flush, sample)
            values = set()
            for t in sums:
                for e in model_ends(primitives.exp(-primitives.X), float(t)):
                    d = round_fraction(1 + Fraction(e), "float32", rounding, flush)
                    values |= set(model_ends(1.0 / primitives.X, float(d)))
            lo, hi = allowed.lo[m, n], allowed.hi[m, n]
            bad = [v for v in values if not lo <= v <= hi]
            assert not bad, (f"SIGMOID after {fields} output {m, n} ({rounding}, flush={flush}): {bad[:3]} outside "
                             f"[{lo!r}, {hi!r}]")
            judged += len(values)
    assert judged > 150, f"expected a few hundred distinct device results checked, came {judged}"


def test_float16_with_float32_accumulation_passes_without_the_flag_and_float16_sums_need_it():
    rng = np.random.default_rng(3)
    a = rng.uniform(0, 1, (2, 1024)).astype(np.float16)
    b = rng.uniform(0, 1, (1024, 3)).astype(np.float16)
    rows, plain = factor_rows((a, b), {}), {"CTensor": ABSENT}
    in_float32 = dev.store(dev.sum_rows(rows, "sequential", fused=True), "float16").reshape(2, 3)
    total = dev.sum_rows(rows, "sequential", "float16").astype(np.float16).reshape(2, 3)  # products and adds in half
    fields = plain
    assert verdict((a, b), fields, "float16", in_float32)[0] == 0, "float32 accumulation is always allowed"
    failed, fraction = verdict((a, b), fields, "float16", total)
    assert failed > 0, f"float16 accumulation without {FLAG} passed (bound fraction {fraction})"
    assert verdict((a, b), {**fields, "ExecutionFlags": FLAG}, "float16", total)[0] == 0, \
        f"float16 accumulation with {FLAG} failed"


def test_transa_ignored_is_caught():
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(-2, 2, (6, 6)).astype(np.float32) for _ in range(2))
    ignored = (a.astype(np.float64) @ b).astype(np.float32)  # A, not A^T
    failed, _ = verdict((a, b), {"TransA": TRANSPOSE, "CTensor": ABSENT}, "float32", ignored)
    assert failed > 30, f"TransA ignored: only {failed} of 36 outputs outside the bound"
    honest = (a.T.astype(np.float64) @ b).astype(np.float32)
    assert verdict((a, b), {"TransA": TRANSPOSE, "CTensor": ABSENT}, "float32", honest)[0] == 0


def test_tf32_like_inputs_are_caught_at_k_4096_where_their_rounding_errors_line_up():
    """TF32 rounds each input to a 10-bit mantissa (2^-11 relative): per product about 2^-10 against the
    bound's gamma(4096) = 2^-11 per |a b|. Random inputs' errors cancel and stay inside; inputs just
    above TF32's halfway points all round up and land outside."""
    def tf32(x):
        bits = x.astype(np.float32).view(np.uint32)
        return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)  # nearest, ties away

    k = 4096
    a = np.full((2, k), 1 + 2.0 ** -11 + 2.0 ** -23, np.float32)
    b = np.full((k, 3), 1 + 2.0 ** -11 + 2.0 ** -23, np.float32)
    faulty = (tf32(a).astype(np.float64) @ tf32(b)).astype(np.float32)
    failed, fraction = verdict((a, b), {"CTensor": ABSENT}, "float32", faulty)
    assert failed == 6, f"TF32 inputs: {failed} of 6 outputs outside the bound (bound fraction {fraction})"
    honest = dev.store(dev.sum_rows(factor_rows((a, b), {}), "sequential", rounding="zero"), "float32",
                       "zero").reshape(2, 3)
    assert verdict((a, b), {"CTensor": ABSENT}, "float32", honest)[0] == 0


def test_one_term_dropped_is_caught():
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (8, 256)).astype(np.float32)
    b = rng.uniform(-1, 1, (256, 8)).astype(np.float32)
    dropped = (a[:, :-1].astype(np.float64) @ b[:-1]).astype(np.float32)
    failed, _ = verdict((a, b), {"CTensor": ABSENT}, "float32", dropped)
    assert failed > 48, f"the last product dropped: only {failed} of 64 outputs outside the bound"


@pytest.mark.parametrize("shapes,problem", [
    (((2, 3), (4, 5), (2, 5)), "K 3 and 4 differ"),
    (((2, 3), (3, 5), (2, 4)), "the same Sizes"),
    (((1, 2, 3), (2, 3, 5), (2, 2, 5)), "leading"),
])
def test_shapes_the_page_refuses_are_refused(shapes, problem):
    assert problem in GEMM.shape_problem(shapes, params())


def test_wrong_counts_of_ulp_follow_webnn():
    shapes = ((4, 7), (7, 3), (4, 3))
    assert GEMM.ulp_tolerance(shapes, params(), "float32") == 2 * 7 + 1
    assert GEMM.ulp_tolerance(shapes, params(Alpha=0.5, Beta=2.0), "float32") == 2 * 7 + 3
    assert GEMM.ulp_tolerance(shapes[:2], params(CTensor=ABSENT, Beta=2.0), "float32") == 2 * 7
    assert GEMM.ulp_tolerance(((7, 4), (7, 3), (4, 3)), params(TransA=TRANSPOSE, Beta=0.0), "float32") == 2 * 7


def test_an_infinity_times_a_flushed_denormal_may_be_nan_and_nothing_else_may():
    """Direct3D lets float32 flush a denormal input: -inf * 1e-40 is then -inf * 0, NaN. The H100 gives that
    (docs/gpu/issue26/); with a normal factor instead, NaN is outside."""
    a = np.array([[-np.inf, 1.0]], np.float32)
    flushed = np.array([[np.float32(1e-40)], [2.0]], np.float32)
    normal = np.array([[1e-3], [2.0]], np.float32)
    fields = {"CTensor": ABSENT}
    nan = np.array([[np.nan]], np.float32)
    assert verdict((a, flushed), fields, "float32", nan)[0] == 0
    assert verdict((a, flushed), fields, "float32", np.array([[-np.inf]], np.float32))[0] == 0
    assert verdict((a, normal), fields, "float32", nan)[0] == 1


# -- C broadcast: the page's C of the output's Sizes, read through zero strides (ONNX Gemm's unidirectional C) ------

BROADCAST = [c for c in load_paths(["cases/gemm.yaml"]) if c.inputs and c.inputs[-1].broadcast]


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def test_c_broadcast_cases_cover_m_n_and_both_with_the_outputs_sizes():
    assert {(c.dtype, tuple(c.inputs[2].broadcast)) for c in BROADCAST} >= \
        {(d, b) for d in ("float32", "float16") for b in ((0,), (1,), (0, 1))}
    for case in BROADCAST:
        c = case.inputs[2]
        assert c.sizes == case.outputs[0] and all(c.shape[d] == 1 for d in c.broadcast), \
            f"{case.id}: expected C of Sizes {case.outputs[0]} stored with 1 where broadcast, came {c.sizes}, {c.shape}"


def test_dml_direct_describes_c_with_the_outputs_sizes_and_zero_strides():
    for case in BROADCAST:
        request = layout.request(case.op, case.dtype, case.shape, case.params, False, case.inputs, (),
                                 case.outputs[0])
        c = OperatorDescription.from_case(request).inputs[2]
        m, n = case.outputs[0]
        want = {(0,): [0, 1], (1,): [1, 0], (0, 1): [0, 0]}[tuple(case.inputs[2].broadcast)]
        assert list(c.sizes) == [m, n] and list(c.strides) == want, \
            f"{case.id}: expected CTensor Sizes {[m, n]} and Strides {want}, came {list(c.sizes)}, {list(c.strides)}"


def test_the_cpu_provider_and_the_oracle_agree_on_a_broadcast_c():
    """ONNX Gemm takes C as {N}, {M, 1} or {1} (GEMM's onnx_shapes): ONNX Runtime's CPU provider's results pass
    the d3d judge on every broadcast case, as the oracle's do."""
    shapes = {tuple(c.inputs[2].broadcast): GEMM.onnx_shapes(c.input_shapes, c.params)[2] for c in BROADCAST}
    assert shapes[(0,)] == (4,) and shapes[(1,)] == (3, 1) and shapes[(0, 1)] == (1,), shapes
    for name in ("cpu", "python:oracle:evaluate"):
        records = run(name, BROADCAST)
        assert len(records) == len(BROADCAST) and {r["status"] for r in records} == {statuses.PASS}, \
            f"{name}: expected every broadcast case to pass, came {[(r['id'], r['status']) for r in records]}"


def test_a_device_reading_a_broadcast_c_as_packed_is_caught():
    """A device that ignores C's zero strides reads its storage as a packed {M, N} tensor: the first row (or
    column) right, the rest past the storage's end (robust buffer access: 0) or the wrong elements."""
    for case in BROADCAST:
        a, b, c = case.make_input()
        m, n = case.outputs[0]
        storage = np.zeros(m * n, c.dtype)
        storage[:c.size] = c.reshape(-1)
        wrong = oracle.evaluate(case.op, (a, b, storage.reshape(m, n)), case.dtype, **case.oracle_params())
        record = runner.judge(case, (a, b, c), Outcome(OK, output=wrong), "6_0", "fault", 0.0)
        assert record["status"] == statuses.FAIL, f"{case.id}: expected the packed read of C to fail, came {record}"
        right = oracle.evaluate(case.op, (a, b, c), case.dtype, **case.oracle_params())
        assert runner.judge(case, (a, b, c), Outcome(OK, output=right), "6_0", "right", 0.0)["status"] == statuses.PASS
