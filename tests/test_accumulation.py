"""Proofs of the accumulation judge (issue 26), for REDUCE: conformance/judge/accumulated.py's
intervals are sound (every order and rounding a device may legally use lands inside: simulated
devices of tests/accumulation_devices.py on over 10^6 outputs; exact rational arithmetic over every
or sampled summation order; the oracle inside its own bound on every case of cases/reduce.yaml) and
sharp (the faults of the issue fall outside, on the element that has them)."""
import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

import accumulation_devices as dev
from exact_orders import every_order, every_sequence, round_fraction, sampled_orders
import oracle
from conformance import specs
from conformance.caseset.caseload import load_paths
from conformance.judge.accumulated import compare_accumulated, gamma, interval, unit_roundoff
from conformance.judge.compare import WORST_SHOWN
from conformance.judge.expected import expected_and_reference
from conformance.judge.intervals import FLOAT32
from conformance.specs.base import computed_fields
from oracle.reduce import INDEX_FUNCTIONS, PREFIX

SPEC = specs.get("REDUCE")
HALF = "ALLOW_HALF_PRECISION_COMPUTATION"
# (terms per row, rows per data kind): short rows many, long rows few (blocked256 needs more than 256)
LENGTHS = ((4, 1000), (7, 500), (33, 120), (100, 40), (300, 12))
KINDS = ("uniform", "cancel", "wide", "tiny")
CHECKED = {}  # function -> outputs judged by the soundness tests (reported by the last of them)
REACHED = {}  # function -> the largest |device - exact| / the interval's half-width on that side (float32)


def params(function: str, dtype: str = "float32", flags: str = "NONE") -> dict:
    return {**SPEC.defaults(), "Function": PREFIX + function, "Axes": [1], "OutputType": dtype,
            "ExecutionFlags": flags}


def data(rng, n: int, rows: int, kind: str, dtype: str) -> np.ndarray:
    """rows x n values of dtype: uniform in [-1, 1], every 16th row with a NaN, an infinity or both
    infinities; cancel: terms up to 1000 whose exact sum is near 0 (the last term the negated sum of the
    others); wide: magnitudes 2^-60 to 2^60 (float16: 2^-20 to 2^12), signs random; tiny: magnitudes in
    and near the denormals (float32: 2^-149 to 2^-120, float16: 2^-24 to 2^-10)."""
    if kind == "uniform":
        x = rng.uniform(-1, 1, (rows, n))
        x[0::16, 0], x[1::16, 1], x[2::16, -1] = np.nan, np.inf, -np.inf
        x[3::16, 0], x[3::16, -1] = np.inf, -np.inf
    elif kind == "cancel":
        x = rng.uniform(-1000, 1000, (rows, n)).astype(dtype).astype(np.float64)
        x[:, -1] = -x[:, :-1].sum(axis=1)
    else:
        low, high = {("wide", "float32"): (-60, 60), ("wide", "float16"): (-20, 12), ("tiny", "float32"): (-149, -120),
                     ("tiny", "float16"): (-24, -10)}[kind, dtype]
        x = rng.choice([-1.0, 1.0], (rows, n)) * np.exp2(rng.uniform(low, high, (rows, n)))
    return x.astype(dtype)


def batches(seed: int, dtype: str):
    rng = np.random.default_rng(seed)
    for n, rows in LENGTHS:
        yield np.concatenate([data(rng, n, rows, kind, dtype) for kind in KINDS])


def outside(allowed, values) -> np.ndarray:
    """Elements of values (float64) outside the acceptance sets."""
    lo, hi, num, nan = (v.reshape(-1) for v in (allowed.lo, allowed.hi, allowed.num, allowed.nan))
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(values), ~nan, ~(num & (values >= lo) & (values <= hi)))


def assert_inside(function, x, allowed, values, device, checked=True, exact=None):
    bad = np.flatnonzero(outside(allowed, values))
    if checked:
        CHECKED[function] = CHECKED.get(function, 0) + values.size
    if exact is not None:  # how far into its interval the device came
        lo, hi = allowed.lo.reshape(-1), allowed.hi.reshape(-1)
        with np.errstate(all="ignore"):
            side = np.where(values >= exact, hi - exact, exact - lo)
            fraction = np.where(np.isfinite(values) & np.isfinite(side) & (side > 0), np.abs(values - exact) / side, 0)
        REACHED[function] = max(REACHED.get(function, 0.0), float(fraction.max()))
    if bad.size:
        r = bad[0]
        lo, hi = allowed.lo.reshape(-1)[r], allowed.hi.reshape(-1)[r]
        pytest.fail(f"{function} {x.dtype} n={x.shape[1]}, device {device}: {bad.size} of {values.size} outputs "
                    f"outside the interval; row {r} (terms {x[r, :6].tolist()}...) gave {values[r]!r}, expected "
                    f"within [{lo!r}, {hi!r}] (nan allowed: {bool(allowed.nan.reshape(-1)[r])})")


# -- a device's REDUCE: the sums of sum_rows, the step after them in the device's precision --------------------

def device_terms(function: str, x, precision: str, rounding: str, fused: bool, flush: bool, shifted=False):
    """The terms a device sums for function (a pair of factors for the squares, so that a mad may fuse)."""
    r = lambda v: dev.rounded(v, precision, rounding, flush)  # noqa: E731
    if function in ("SUM", "AVERAGE", "LOG_SUM"):
        return x
    if function == "L1":
        return np.abs(x)
    if function in ("L2", "SUM_SQUARE"):
        return (x, x)
    with np.errstate(over="ignore"):  # LOG_SUM_EXP: exp as the page writes it, or after subtracting the maximum
        if shifted:
            return r(np.exp(r(x - x.max(axis=1, keepdims=True))))
        return r(np.exp(x))


def device_reduce(function: str, x, order, rounding, fused, flush, precision="float32", shifted=False):
    """A simulated device's REDUCE over axis 1 of x (float64 values of the tensor type), in precision."""
    r = lambda v: dev.rounded(v, precision, rounding, flush)  # noqa: E731
    if function == "MULTIPLY":
        return dev.multiply_rows(x, order, precision, rounding, flush)
    s = dev.sum_rows(device_terms(function, x, precision, rounding, fused, flush, shifted), order, precision,
                     rounding, fused, flush)
    n = x.shape[1]
    with np.errstate(all="ignore"):
        if function == "AVERAGE":  # a division, or a multiply by the reciprocal
            return r(s / n) if rounding == "nearest" else r(s * r(np.float64(1.0 / n)))
        if function == "L2":
            return r(np.sqrt(s))
        if function == "LOG_SUM":
            return r(np.log(s))
        if function == "LOG_SUM_EXP":
            return r(x.max(axis=1) + r(np.log(s))) if shifted else r(np.log(s))
    return s


def configurations(function: str, precision: str):
    """(order, rounding, fused, flush, shifted) of every device simulated for function."""
    if function == "MULTIPLY":
        roundings = dev.ROUNDINGS if precision == "float32" else ("nearest",)
        return [(order, rounding, False, False, False) for order in dev.PRODUCT_ORDERS for rounding in roundings] + \
            ([("sequential", "zero", False, True, False)] if precision == "float32" else [])
    chosen = dev.devices(precision, fused_too=function in ("L2", "SUM_SQUARE"))
    return [(*c, shifted) for c in chosen for shifted in ((False, True) if function == "LOG_SUM_EXP" else (False,))]


def function_data(function: str, x):
    """The function's inputs from a batch: LOG_SUM of magnitudes (its sum positive), LOG_SUM_EXP of
    logits up to 80 (float16: 5, where 300 terms summed in float16 stay finite), MULTIPLY of factors of
    magnitude 1/2 to 2 (wide: 2^-8 to 2^8, float16 2^-2 to 2^2); NaN and infinities kept."""
    if function == "LOG_SUM":
        return np.abs(x)
    if function == "LOG_SUM_EXP":
        top = 80.0 if x.dtype == np.float32 else 5.0
        return np.clip(x.astype(np.float64), -top, top).astype(x.dtype)
    if function == "MULTIPLY":
        m = np.abs(np.where(np.isfinite(x), x, 1.0).astype(np.float64))
        scaled = np.where(m > 0, np.exp2(np.log2(np.where(m > 0, m, 1.0)) % (16 if x.dtype == np.float32 else 4)
                                         - (8 if x.dtype == np.float32 else 2)), 1.0)
        factors = np.sign(x.astype(np.float64)) * np.where(m < 8, 0.5 + m * 3 / 16, scaled)
        return np.where(np.isfinite(x), factors, x).astype(x.dtype)
    return x


FLOAT_FUNCTIONS = ("SUM", "AVERAGE", "L1", "L2", "SUM_SQUARE", "LOG_SUM", "LOG_SUM_EXP", "MULTIPLY")


@pytest.mark.parametrize("function", FLOAT_FUNCTIONS)
def test_float32_devices_inside(function):
    """Every simulated float32 device (order x rounding x fused x flush) inside each output's interval."""
    for x in batches(1, "float32"):
        x = function_data(function, x)
        allowed = interval(SPEC, (x,), params(function), "float32")
        exact = oracle.reference("REDUCE", x, "float32", **computed_fields(params(function))).reshape(-1)
        x64 = x.astype(np.float64)
        for order, rounding, fused, flush, shifted in configurations(function, "float32"):
            values = device_reduce(function, x64, order, rounding, fused, flush, shifted=shifted)
            assert_inside(function, x, allowed, values, (order, rounding, "fused" if fused else "unfused",
                                                         "flush" if flush else "denormals", "max subtracted"
                                                         if shifted else ""), exact=exact)


@pytest.mark.parametrize("function", FLOAT_FUNCTIONS)
def test_float16_devices_inside(function):
    """float16 data summed in float32 and stored either way: inside with and without the flag; summed in
    float16: inside with ALLOW_HALF_PRECISION_COMPUTATION."""
    for x in batches(2, "float16"):
        x = function_data(function, x)
        plain = interval(SPEC, (x,), params(function, "float16"), "float16")
        half = interval(SPEC, (x,), params(function, "float16", HALF), "float16")
        x64 = x.astype(np.float64)
        for order, rounding, fused, flush, shifted in configurations(function, "float32"):
            computed = device_reduce(function, x64, order, rounding, fused, flush, shifted=shifted)
            for stored in dev.ROUNDINGS:
                values = dev.store(computed, "float16", stored).astype(np.float64)
                device = ("float32", order, rounding, fused, flush, shifted, "stored", stored)
                assert_inside(function, x, plain, values, device)
                assert_inside(function, x, half, values, device + (HALF,), checked=False)
        for order, rounding, fused, flush, shifted in configurations(function, "float16"):
            values = device_reduce(function, x64, order, rounding, fused, flush, "float16", shifted)
            assert_inside(function, x, half, values, ("float16", order, rounding, fused, shifted, HALF))


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 outputs of the REDUCE family (run with them); and
    the bound is not loose: the truncating float32 devices come past half of it on SUM and SUM_SQUARE."""
    if len(CHECKED) < len(FLOAT_FUNCTIONS) or len(REACHED) < len(FLOAT_FUNCTIONS):
        pytest.skip("run with the soundness tests of this file")
    total = sum(CHECKED.values())
    print(f"outputs judged: {total} ({CHECKED}); the largest fraction of the bound reached: "
          f"{ {f: round(v, 3) for f, v in REACHED.items()} }")
    assert total >= 10 ** 6, f"expected at least 10^6 outputs judged, came {total}: {CHECKED}"
    assert REACHED["SUM"] > 0.5 and REACHED["SUM_SQUARE"] > 0.5, \
        f"expected devices past half the bound of SUM and SUM_SQUARE, came {REACHED}"


# -- truncation's saturation: float32 add and mul may give the largest finite value, not infinity ---------------

def test_truncated_overflow_saturates_inside():
    """Direct3D lets float32 add and mul round toward zero, so a partial sum or product past the largest
    value may become that value, and later terms bring it back: the result stays inside."""
    x = np.array([[2e38, 2e38, -2e38], [3e38, 3e38, -3e38], [-3e38, -1e38, 2e38]], np.float32)
    allowed = interval(SPEC, (x,), params("SUM"), "float32")
    for order in dev.ORDERS:
        values = dev.sum_rows(x, order, "float32", "zero")
        assert_inside("SUM", x, allowed, values, (order, "zero"), checked=False)
    gemm = specs.get("GEMM")  # a Dot step (accumulated._dot) saturates alike
    a, b = x[None, None, :2], np.ones((1, 1, 3, 1), np.float32)
    allowed = interval(gemm, (a, b), {**gemm.defaults(), "CTensor": "absent"}, "float32")
    for order, fused in itertools.product(dev.ORDERS, (False, True)):
        values = dev.sum_rows((x[:2].astype(np.float64), np.ones((2, 3))), order, "float32", "zero", fused)
        assert_inside("GEMM", x[:2], allowed, values, (order, "zero", fused), checked=False)
    f = np.array([[2e20, 2e20, 1e-10, 0.5], [1e-30, 3e19, 3e19, 4e10]], np.float32)
    allowed = interval(SPEC, (f,), params("MULTIPLY"), "float32")
    for order in dev.PRODUCT_ORDERS:
        values = dev.multiply_rows(f, order, "float32", "zero")
        assert_inside("MULTIPLY", f, allowed, values, (order, "zero"), checked=False)


# -- sharpness: faults caught, on the element that has them -------------------------------------------------------

def judged(function, x, actual, dtype="float32", flags="NONE"):
    p = params(function, dtype, flags)
    exact = oracle.reference("REDUCE", x, dtype, **computed_fields(p))  # float64
    expected = oracle.round_outputs(exact, dtype)
    return compare_accumulated(SPEC, (x,), p, dtype, expected, exact, np.asarray(actual, dtype).reshape(exact.shape),
                               SPEC.ulp_tolerance((x.shape,), p, dtype))


def assert_caught(result, rows, total, what):
    """The d3d verdict fails on exactly the faulty rows, and its worst elements name them."""
    shown = sorted(w["index"][0] for w in result.d3d["worst"])
    assert result.d3d["failed"] == len(rows), (f"{what}: expected the d3d verdict to fail on rows {rows} of {total}, "
                                               f"came {result.d3d['failed']} failed (worst at rows {shown})")
    assert set(shown) <= set(rows) and len(shown) == min(len(rows), WORST_SHOWN), \
        f"{what}: expected the worst elements to name rows {rows}, came {shown}"
    assert all(w["rule"] == "outside" for w in result.d3d["worst"])


def test_float16_accumulated_in_float16_without_the_flag_caught():
    """2048 terms of [0, 1] summed in float16: stagnates far below the sum. Outside without the flag
    (every row), inside with it."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (4, 2048)).astype(np.float16)
    x64 = x.astype(np.float64)
    values = dev.sum_rows(x64, "sequential", "float16", "nearest")
    result = judged("SUM", x, values, "float16")
    assert_caught(result, [0, 1, 2, 3], 4, "float16 summed in float16 without the flag")
    allowed = judged("SUM", x, values, "float16", HALF)
    assert allowed.d3d["failed"] == 0, f"with {HALF}: expected inside, came {allowed.d3d['worst'][:1]}"
    # the same device summing in float32 passes without the flag
    good = dev.store(dev.sum_rows(x64, "sequential", "float32", "zero"), "float16", "zero")
    assert judged("SUM", x, good, "float16").d3d["failed"] == 0


def test_one_term_dropped_from_a_long_sum_caught():
    """2^16 terms of [0, 1]: a device that drops the last term (an off-by-one in its tail loop) is caught
    where that term exceeds the bound's radius (here 4096 against about 290); dropping one ordinary term
    is within gamma(2^16 - 1) * sum|x| (about 2^-7 of the sum), where no sound bound can see it."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 1, (3, 1 << 16)).astype(np.float32)
    x[1, -1] = 4096.0
    x64 = x.astype(np.float64)
    dropped = dev.sum_rows(x64[:, :-1], "blocked256", "float32", "nearest")
    result = judged("SUM", x, dropped)
    assert_caught(result, [1], 3, "the last of 2^16 terms dropped")
    radius = gamma((1 << 16) - 1, unit_roundoff(FLOAT32)) * np.abs(x64).sum(axis=1)
    assert np.all(x64[[0, 2], -1] < radius[[0, 2]]) and x64[1, -1] > radius[1]


def tf32(values):
    """float64 values rounded to 11 significant bits (a 10-bit mantissa, TF32-like), to nearest."""
    mantissa, exponent = np.frexp(values)
    return np.ldexp(np.round(mantissa * 2 ** 11) / 2 ** 11, exponent)


def test_squares_rounded_to_ten_bits_caught():
    """SUM_SQUARE whose squares are rounded to a 10-bit mantissa first (TF32-like), on rows of 16 terms
    whose squares that rounding moves up by a quarter of its ULP or more: caught on every row; the same
    device with float32 squares passes. (Rows of 64 uniform terms: the errors partly cancel, and about 3
    rows in 4 are caught: the fault must be there to be seen.)"""
    rng = np.random.default_rng(5)
    pool = rng.uniform(0.5, 1, 40000).astype(np.float32).astype(np.float64)
    squares = pool * pool
    moved = (tf32(squares) - squares) / np.ldexp(1.0, np.frexp(squares)[1] - 11)
    x = pool[moved > 0.25][:50 * 16].reshape(50, 16).astype(np.float32)
    x64 = x.astype(np.float64)
    values = dev.sum_rows(tf32(x64 * x64), "pairwise", "float32", "nearest")
    assert_caught(judged("SUM_SQUARE", x, values), list(range(50)), 50, "squares rounded to 10 bits")
    assert judged("SUM_SQUARE", x, dev.sum_rows((x64, x64), "pairwise")).d3d["failed"] == 0


def test_log_sum_exp_off_by_a_thousandth_caught():
    """LOG_SUM_EXP at logits near 100: a result 1e-3 relative off is caught on its row; so is the page's
    formula computed naively, whose float32 exp(100) overflows to infinity where the result is finite
    (accumulated._united: an alternative that overflows where another computes a number adds nothing)."""
    rng = np.random.default_rng(6)
    x = rng.uniform(95, 105, (20, 16)).astype(np.float32)
    x64 = x.astype(np.float64)
    good = device_reduce("LOG_SUM_EXP", x64, "pairwise", "zero", False, False, shifted=True)
    assert judged("LOG_SUM_EXP", x, good).d3d["failed"] == 0
    off = good.copy()
    off[7] *= 1 + 1e-3
    assert_caught(judged("LOG_SUM_EXP", x, off), [7], 20, "LOG_SUM_EXP 1e-3 relative off")
    naive = device_reduce("LOG_SUM_EXP", x64, "sequential", "nearest", False, False)
    assert np.all(np.isinf(naive))
    naive[np.arange(20) != 3] = good[np.arange(20) != 3]
    assert_caught(judged("LOG_SUM_EXP", x, naive), [3], 20, "LOG_SUM_EXP overflowing to infinity")


def test_multiply_with_a_factor_dropped_caught():
    """MULTIPLY of 40 factors of magnitude 1/2 to 2: the product without its last factor is caught."""
    rng = np.random.default_rng(7)
    x = (rng.choice([-1, 1], (10, 40)) * rng.uniform(0.5, 2, (10, 40))).astype(np.float32)
    x[:, -1] = np.where(rng.uniform(size=10) < 0.5, 0.75, 1.5)
    x64 = x.astype(np.float64)
    values = dev.multiply_rows(x64, "pairwise", "float32", "zero")
    values[4] = dev.multiply_rows(x64[4:5, :-1], "pairwise", "float32", "zero")[0]
    assert_caught(judged("MULTIPLY", x, values), [4], 10, "a factor dropped")


# -- independent: exact rational arithmetic, every or sampled order ------------------------------------------------

def rational_rows(rng, dtype):
    """Rows whose sums round hardest: near-equal magnitudes, cancellation, 1 + small, subnormal-range,
    partial sums that overflow."""
    rows = []
    for k in range(14):
        n = 3 + k % 4 if k < 8 else k - 1  # 3 to 6 (every order), then 7 to 12 (sampled trees)
        kind = k % 4
        if kind == 0:
            row = rng.uniform(-1, 1, n)
        elif kind == 1:
            row = 1 + rng.integers(0, 2 ** 20, n) * 2.0 ** -23 * (1 if dtype == "float32" else 2 ** 13)
        elif kind == 2:
            row = rng.uniform(-1000, 1000, n)
            row[-1] = -row[:-1].sum() * (1 + 1e-6)
        else:
            row = rng.uniform(-3, 3, n) * (2.0 ** -125 if dtype == "float32" else 2.0 ** -13)
        rows.append(np.asarray(row).astype(dtype))
    largest = float(np.finfo(dtype).max)  # partial sums past the largest value: infinity, or truncated to it
    rows += [np.array([0.9, 0.6, -0.7]) * largest, np.array([0.97, 0.9, -0.97, 0.3, -0.2]) * largest]
    return [row.astype(dtype) for row in rows]


@pytest.mark.parametrize("precision, dtype, flags", [("float32", "float32", "NONE"),
                                                     ("float16", "float16", HALF),
                                                     ("float32", "float16", "NONE")])
def test_every_order_exactly_rounded_inside(precision, dtype, flags):
    """SUM and MULTIPLY of rows of at most 12 terms: with exact rational arithmetic and one exact IEEE
    rounding per operation (to nearest, toward zero; flushing float32 denormals or not), every binary tree
    for n <= 5, every sequential permutation for n = 6, 200 random trees from n = 6 (MULTIPLY: 50): each result, stored
    either way where the tensor is float16, and the exact rational result, inside the interval."""
    rng = np.random.default_rng(8)
    sample = random.Random(8)
    modes = [(r, f) for r in dev.ROUNDINGS for f in (False, True)] if precision == "float32" else [("nearest", False)]
    for function, op in (("SUM", lambda a, b: a + b), ("MULTIPLY", lambda a, b: a * b)):
        for row in rational_rows(rng, dtype):
            if function == "MULTIPLY":
                row = (np.sign(row.astype(np.float64)) * (0.5 + np.abs(row.astype(np.float64)) % 1.5)).astype(dtype)
            allowed = interval(SPEC, (row[None, :],), params(function, dtype, flags), dtype)
            lo, hi = allowed.lo.item(), allowed.hi.item()
            exact = Fraction(0) if function == "SUM" else Fraction(1)
            for v in row.astype(np.float64):
                exact = op(exact, Fraction(v))
            assert lo <= exact <= hi, f"{function} {row.tolist()}: exact {float(exact)!r} outside [{lo!r}, {hi!r}]"
            leaves = [Fraction(float(v)) for v in row.astype(np.float64)]
            tiny = min(abs(v) for v in leaves if v) < 2 ** -100
            for rounding, flush in modes:
                if flush and not tiny:  # flushing changes nothing there
                    continue
                combine = lambda a, b: round_fraction(op(a, b), precision, rounding, flush)  # noqa: E731
                n = len(leaves)
                if n <= 5:
                    results = every_order(leaves, combine)
                else:
                    results = sampled_orders(leaves, combine, sample, 200 if function == "SUM" else 50)
                    if n == 6:
                        results |= every_sequence(leaves, combine)
                stored = {round_fraction(r, dtype, s) for r in results for s in dev.ROUNDINGS} \
                    if dtype != precision else results
                bad = [float(r) for r in stored if not (lo <= r <= hi if r == r else allowed.nan.item())]
                assert not bad, (f"{function} {dtype} in {precision} ({rounding}, flush={flush}) of {row.tolist()}: "
                                 f"results {bad[:3]} outside [{lo!r}, {hi!r}] (exact {float(exact)!r})")



def test_rational_rounding_is_ieee():
    """round_fraction against the hardware's IEEE conversion (nearest even), float32 and float16, over
    normals, subnormals and ties."""
    rng = np.random.default_rng(10)
    values = np.concatenate([rng.uniform(-1, 1, 300) * np.exp2(rng.integers(-160, 130, 300)),
                             (rng.integers(-2 ** 25, 2 ** 25, 100) + 0.5) * 2.0 ** -24])
    for precision in ("float32", "float16"):
        with np.errstate(over="ignore"):
            want = values.astype(precision).astype(np.float64)
        got = np.array([float(round_fraction(Fraction(v), precision, "nearest")) for v in values])
        assert np.array_equal(got, want), f"{precision}: {values[got != want][:3]} gave {got[got != want][:3]}, " \
                                          f"IEEE {want[got != want][:3]}"


def test_simulator_rounds_exactly():
    """tests/accumulation_devices.py's rounding against the rational one: sums, fused and unfused products."""
    rng = np.random.default_rng(9)
    a = (rng.uniform(-1, 1, (200, 9)) * np.exp2(rng.integers(-30, 30, (200, 9)))).astype(np.float32).astype(np.float64)
    b = (rng.uniform(-1, 1, (200, 9)) * np.exp2(rng.integers(-30, 30, (200, 9)))).astype(np.float32).astype(np.float64)
    for rounding, fused in itertools.product(dev.ROUNDINGS, (False, True)):
        got = dev.sum_rows((a, b), "sequential", "float32", rounding, fused)
        for r in range(0, 200, 7):
            products = [Fraction(x) * Fraction(y) for x, y in zip(a[r], b[r])]
            acc = round_fraction(products[0], "float32", rounding)
            for p in products[1:]:
                acc = round_fraction(acc + (p if fused else round_fraction(p, "float32", rounding)), "float32",
                                     rounding)
            assert got[r] == acc, f"{rounding} fused={fused} row {r}: simulator {got[r]!r}, exact {float(acc)!r}"


# -- the oracle inside its own bound ---------------------------------------------------------------------------------

def test_oracle_inside_its_bound_on_every_case():
    """Every float case of cases/reduce.yaml (ARGMAX and ARGMIN judged by index sets, integers exactly):
    the oracle's exactly rounded result and its float64 value inside the interval, every element."""
    seen = 0
    for case in load_paths(["cases/reduce.yaml"]):
        if np.dtype(case.dtype).kind != "f" or case.params["Function"] in INDEX_FUNCTIONS:
            continue
        x = case.make_input()
        expected, exact = expected_and_reference(case, x)
        allowed = interval(SPEC, (x,), case.params, case.dtype)
        for what, values in (("rounded", expected), ("float64", exact)):
            bad = np.flatnonzero(outside(allowed, np.broadcast_to(values, allowed.lo.shape).astype(np.float64)
                                         .reshape(-1)))
            assert not bad.size, (f"{case.id}: the oracle's {what} value {values.reshape(-1)[bad[0]]!r} outside "
                                  f"[{allowed.lo.reshape(-1)[bad[0]]!r}, {allowed.hi.reshape(-1)[bad[0]]!r}]")
        seen += 1
    assert seen >= 80, f"expected the float cases of cases/reduce.yaml, came {seen}"
