"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: the oracle against the pages' examples, each prefix judged
by the sound interval of its own terms (conformance/judge/accumulated.py with a scan for the reduce), and that
interval sound (issue 26): simulated scans as a GPU computes them (sequential, Hillis-Steele, Blelloch, blocked by
32 and 256; every operation rounded once, to nearest or toward zero, flushing or not; both directions, exclusive;
float16 tallied in float32, or in float16 with the permission) pass on over 10^6 counted outputs of uniform,
cancelling, wide and denormal data, and every tree of a prefix in exact rational arithmetic lands inside; the
faults caught: exclusive ignored, the direction ignored, a term dropped from a long prefix, a NaN spilling into
prefixes that do not hold it, float16 tallied in half without the permission, a factor dropped from a product."""
import itertools
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import accumulation_devices as dev
from exact_orders import every_order, round_fraction, sampled_orders
from soundness_tally import Tally

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import load_file
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import get
from oracle.arg_extreme import DECREASING, INCREASING

SUM, PRODUCT = "CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT"
EXCLUSIVE = {SUM: "HasExclusiveSum", PRODUCT: "HasExclusiveProduct"}
CASES = Path(__file__).resolve().parent.parent / "cases"
PAGE = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)
# The pages' examples: (Axis, AxisDirection, exclusive) -> OutputTensor
PAGE_EXAMPLES = {
    SUM: {(3, INCREASING, 0): [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]],
          (3, INCREASING, 1): [[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]],
          (3, DECREASING, 0): [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]],
          (2, INCREASING, 0): [[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]},
    PRODUCT: {(3, INCREASING, 0): [[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]],
              (3, INCREASING, 1): [[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]],
              (3, DECREASING, 0): [[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]],
              (2, INCREASING, 0): [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]},
}


def fields(op, axis, direction=INCREASING, exclusive=0, flags="NONE") -> dict:
    return {"Axis": axis, "AxisDirection": direction, EXCLUSIVE[op]: exclusive, "ExecutionFlags": flags}


def outside(op, x, params, actual, dtype="float32") -> np.ndarray:
    """Where a device output lies outside its d3d interval (a boolean array of the output's shape); the count
    is the judge's own verdict (compare_accumulated), checked against it."""
    x = np.asarray(x, dtype=dtype)
    actual = np.asarray(actual, dtype=dtype)
    allowed = interval(get(op), (x,), params, dtype)
    a = actual.astype(np.float64)
    with np.errstate(invalid="ignore"):
        inside = np.where(np.isnan(a), allowed.nan, allowed.num & (a >= allowed.lo) & (a <= allowed.hi))
    result = compare_accumulated(get(op), (x,), params, dtype, oracle.evaluate(op, x, dtype, **params),
                                 oracle.reference(op, x, dtype, **params), actual, ulp_tolerance=0)
    assert result.d3d["failed"] == int((~inside).sum()), (result.d3d["failed"], int((~inside).sum()))
    return ~inside


# Simulated devices, each along the last axis, INCREASING and inclusive unless said
def sequential(x, dtype=np.float32, multiply=False):
    return (np.multiply if multiply else np.add).accumulate(x.astype(dtype), axis=-1, dtype=dtype)


def hillis_steele(x, multiply=False):
    """Inclusive scan in log2(n) synchronous steps, each element combining with the one 2^d before it."""
    y = x.astype(np.float32)
    step = 1
    while step < y.shape[-1]:
        shifted = y[..., :-step]
        y = y.copy()
        y[..., step:] = y[..., step:] * shifted if multiply else y[..., step:] + shifted
        step *= 2
    return y


@pytest.mark.parametrize("op", [SUM, PRODUCT])
def test_the_oracle_is_the_pages_examples(op):
    for (axis, direction, exclusive), want in PAGE_EXAMPLES[op].items():
        got = oracle.evaluate(op, PAGE, "float32", **fields(op, axis, direction, exclusive))
        assert got.dtype == np.float32 and got[0, 0].tolist() == want, (axis, direction, exclusive, got[0, 0])
    wrapped = oracle.evaluate(SUM, np.array([2**31 - 1, 1, 1], dtype=np.int32), "int32", **fields(SUM, 0))
    assert wrapped.tolist() == [2**31 - 1, -2**31, -2**31 + 1]
    wrapped = oracle.evaluate(PRODUCT, np.array([2**16, 2**16, 3], dtype=np.uint32), "uint32",
                              **fields(PRODUCT, 0, DECREASING, 1))
    assert wrapped.tolist() == [(3 * 2**16) % 2**32, 3, 1]


# -- sound: scans the ways a GPU computes them, every operation rounded once, counted (issue 26) -----------------

TALLY = Tally("cumulative")
HALF = "ALLOW_HALF_PRECISION_COMPUTATION"
SCANS = ("sequential", "hillis-steele", "blelloch", "blocked32", "blocked256")
KINDS = ("uniform", "cancel", "wide", "tiny")


class Scanner:
    """Inclusive scans along the last axis of (rows, n) float64 values of precision, each add or multiply
    rounded once (tests/accumulation_devices.py: to nearest or toward zero, float32 denormals flushed or not)."""

    def __init__(self, multiply, precision="float32", rounding="nearest", flush=False):
        self.multiply, self.precision, self.rounding, self.flush = multiply, precision, rounding, flush
        self.identity = 1.0 if multiply else 0.0

    def op(self, a, b):
        a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
        pair = np.stack([a.reshape(-1), b.reshape(-1)], axis=1)
        if self.multiply:
            out = dev.multiply_rows(pair, "sequential", self.precision, self.rounding, self.flush)
        else:
            out = dev.sum_rows(pair, "sequential", self.precision, self.rounding, flush=self.flush)
        return out.reshape(a.shape)

    def scan(self, x, order):
        x = np.asarray(x, np.float64)
        if order == "sequential":
            out = np.empty_like(x)
            acc = self.op(x[:, 0], self.identity)  # the first operand as the device holds it (flushed or not)
            out[:, 0] = acc
            for k in range(1, x.shape[1]):
                acc = out[:, k] = self.op(acc, x[:, k])
            return out
        if order == "hillis-steele":  # log2(n) synchronous steps, each element with the one 2^d before it
            y, step = self.op(x, self.identity), 1
            while step < y.shape[1]:
                y = np.concatenate([y[:, :step], self.op(y[:, step:], y[:, :-step])], axis=1)
                step *= 2
            return y
        if order == "blelloch":  # the work-efficient exclusive scan (up-sweep, down-sweep), then op with x
            return self.op(self.blelloch(x), x)
        if order.startswith("blocked"):  # each block scanned, the blocks' totals scanned, carried in
            block = int(order.removeprefix("blocked"))
            n = x.shape[1]
            parts = [self.scan(x[:, k:k + block], "sequential") for k in range(0, n, block)]
            carries = self.scan(np.stack([p[:, -1] for p in parts], axis=1), "sequential")
            return np.concatenate([parts[0]] + [self.op(carries[:, j - 1:j], parts[j]) for j in range(1, len(parts))],
                                  axis=1)
        raise ValueError(f"scan order {order!r}: expected one of {SCANS}")

    def blelloch(self, x):
        """The exclusive scan, the length padded to a power of two with the identity."""
        rows, n = x.shape
        size = 1 << (n - 1).bit_length()
        y = np.concatenate([x, np.full((rows, size - n), self.identity)], axis=1)
        step = 1
        while step < size:
            y[:, 2 * step - 1::2 * step] = self.op(y[:, 2 * step - 1::2 * step], y[:, step - 1::2 * step])
            step *= 2
        y[:, size - 1] = self.identity
        while step > 1:
            step //= 2
            left = y[:, step - 1::2 * step].copy()
            y[:, step - 1::2 * step] = y[:, 2 * step - 1::2 * step]
            y[:, 2 * step - 1::2 * step] = self.op(y[:, 2 * step - 1::2 * step], left)
        return y[:, :n]

    def device(self, x, order, direction, exclusive):
        """The output for the fields: DECREASING scans the flipped rows; exclusive shifts the inclusive tally by
        one (the identity first), or is Blelloch's own."""
        flipped = x[:, ::-1] if direction == DECREASING else x
        if exclusive and order == "blelloch":
            out = self.blelloch(np.asarray(flipped, np.float64))
        else:
            out = self.scan(flipped, order)
            if exclusive:
                out = np.concatenate([np.full((x.shape[0], 1), self.identity), out[:, :-1]], axis=1)
        return out[:, ::-1] if direction == DECREASING else out


def scan_devices(precision):
    """(order, rounding, flush) of each simulated device: float32 rounds either way and may flush."""
    if precision == "float16":
        return [(order, "nearest", False) for order in SCANS]
    return [(order, rounding, False) for order in SCANS for rounding in dev.ROUNDINGS] + \
        [("sequential", "zero", True), ("hillis-steele", "nearest", True)]


def scan_data(rng, op, kind, rows, n, dtype):
    """SUM: uniform in [-1, 1] with a NaN, an infinity, both infinities in a few rows; cancel: pairs x, -x (plus up
    to 1) from terms up to 1000, the prefixes swinging through 0; wide: magnitudes 2^-60 to 2^60 (float16 2^-20 to
    2^12); tiny: the denormal range. PRODUCT: factors of magnitude 1/2 to 2 (wide: 2^-8 to 2^8, float16 2^-2 to
    2^2: partial products under- and overflow), a zero, an infinity or a NaN in a few rows; signs random."""
    f16 = dtype == "float16"
    if op == PRODUCT:
        spread = {"wide": 2 if f16 else 8, "tiny": 0.25}.get(kind, 1)
        x = rng.choice([-1.0, 1.0], (rows, n)) * np.exp2(rng.uniform(-spread, spread, (rows, n)))
        if kind == "uniform":
            x[0, n // 3], x[1, n // 2], x[2, 5], x[3, 7], x[3, 9] = 0.0, np.inf, np.nan, 0.0, np.inf
        elif kind == "cancel":  # a factor and its reciprocal in turn: the partial products return to 1
            x[:, 1::2] = 1 / x[:, 0::2].astype(dtype).astype(np.float64)
        return x.astype(dtype)
    if kind == "uniform":
        x = rng.uniform(-1, 1, (rows, n))
        x[0, n // 3], x[1, n // 2], x[2, 5], x[3, 7], x[3, 9] = np.nan, np.inf, -np.inf, np.inf, -np.inf
    elif kind == "cancel":
        x = rng.uniform(-1000, 1000, (rows, n)).astype(dtype).astype(np.float64)
        x[:, 1::2] = -x[:, 0::2] + rng.uniform(-1, 1, (rows, n // 2))
    else:
        low, high = {("wide", False): (-60, 60), ("wide", True): (-20, 12), ("tiny", False): (-149, -120),
                     ("tiny", True): (-24, -10)}[kind, f16]
        x = rng.choice([-1.0, 1.0], (rows, n)) * np.exp2(rng.uniform(low, high, (rows, n)))
    return x.astype(dtype)


SCANNED = [(op, direction, exclusive) for op in (SUM, PRODUCT) for direction, exclusive in ((INCREASING, 0),
                                                                                          (DECREASING, 1))]


@pytest.mark.parametrize("op, direction, exclusive", SCANNED)
def test_float32_scans_inside(op, direction, exclusive):
    """Every simulated float32 scan (sequential, Hillis-Steele, Blelloch, blocked by 32 and 256; to nearest or
    truncating; flushing or not) inside every prefix's interval, on every kind of data."""
    rng = np.random.default_rng(26)
    params = fields(op, 1, direction, exclusive)
    for kind in KINDS:
        x = scan_data(rng, op, kind, 24, 700, "float32")
        allowed = interval(get(op), (x,), params, "float32")
        exact = oracle.reference(op, x, "float32", **params)
        for order, rounding, flush in scan_devices("float32"):
            values = Scanner(op == PRODUCT, "float32", rounding, flush).device(x, order, direction, exclusive)
            TALLY.judge(f"{op} {direction[-10:]} exclusive={exclusive}", allowed, values,
                        (kind, order, rounding, "flush" if flush else "denormals"), exact, key=f"{op} {kind}")


@pytest.mark.parametrize("op, direction, exclusive", SCANNED[::3])
def test_float16_scans_inside(op, direction, exclusive):
    """float16 tallied in float32 and stored either way: inside with and without the flag; tallied in float16:
    inside with ALLOW_HALF_PRECISION_COMPUTATION."""
    rng = np.random.default_rng(27)
    params = fields(op, 1, direction, exclusive)
    for kind in KINDS:
        x = scan_data(rng, op, kind, 16, 300, "float16")
        plain = interval(get(op), (x,), params, "float16")
        half = interval(get(op), (x,), {**params, "ExecutionFlags": HALF}, "float16")
        for order, rounding, flush in scan_devices("float32")[::2]:
            computed = Scanner(op == PRODUCT, "float32", rounding, flush).device(x, order, direction, exclusive)
            for stored in dev.ROUNDINGS:
                values = dev.store(computed, "float16", stored).astype(np.float64)
                TALLY.judge(f"{op} float16", plain, values, ("float32", kind, order, rounding, flush, stored))
                TALLY.judge(f"{op} float16", half, values, ("float32", kind, order, rounding, flush, HALF), count=False)
        for order, rounding, flush in scan_devices("float16"):
            values = Scanner(op == PRODUCT, "float16").device(x, order, direction, exclusive)
            TALLY.judge(f"{op} float16 in half", half, values, ("float16", kind, order, HALF))


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 outputs of CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT (run
    with them); the line printed gives the count and the largest fraction of each bound a device reached."""
    if len(TALLY.checked) < len(SCANNED):
        pytest.skip("run with the soundness tests of this file")
    TALLY.report()


def test_scanner_rounds_each_operation_once():
    """The Scanner's sequential tally against exact rational arithmetic (exact_orders.round_fraction)."""
    rng = np.random.default_rng(4)
    x = (rng.uniform(-1, 1, (6, 40)) * np.exp2(rng.integers(-30, 30, (6, 40)))).astype(np.float32).astype(np.float64)
    for multiply, rounding in itertools.product((False, True), dev.ROUNDINGS):
        got = Scanner(multiply, "float32", rounding).scan(x if not multiply else 1 + x / 2 ** 31, "sequential")
        row = x if not multiply else 1 + x / 2 ** 31
        for r in range(6):
            acc = round_fraction(Fraction(row[r, 0]), "float32", rounding)
            for k in range(1, 40):
                step = acc * Fraction(row[r, k]) if multiply else acc + Fraction(row[r, k])
                acc = round_fraction(step, "float32", rounding)
                assert got[r, k] == acc, f"multiply={multiply} {rounding} row {r} at {k}: {got[r, k]!r}, exact {acc}"


def test_float16_tallied_in_float32_passes_and_in_half_only_with_the_permission():
    x = np.random.default_rng(5).uniform(0, 1, (4, 8192)).astype(np.float16)
    in_float32 = sequential(x).astype(np.float16)
    in_half = sequential(x, np.float16)  # stalls at 2048: adding less than 1 to it rounds back
    assert not outside(SUM, x, fields(SUM, 1), in_float32, "float16").any()
    wrong = outside(SUM, x, fields(SUM, 1), in_half, "float16")
    assert wrong[:, 5000:].all() and not wrong[:, 0].any()
    allowed = fields(SUM, 1, flags="ALLOW_HALF_PRECISION_COMPUTATION")
    assert not outside(SUM, x, allowed, in_half, "float16").any()


def test_exclusive_or_the_direction_ignored_is_caught():
    """Caught exactly where the faulty output differs from the right one (the product's 2 * 1 = 2 does not)."""
    for op in (SUM, PRODUCT):
        inclusive = oracle.evaluate(op, PAGE, "float32", **fields(op, 3))
        assert not outside(op, PAGE, fields(op, 3), inclusive).any()
        for asked in (fields(op, 3, exclusive=1), fields(op, 3, DECREASING)):
            right = oracle.evaluate(op, PAGE, "float32", **asked)
            assert (outside(op, PAGE, asked, inclusive) == (inclusive != right)).all(), (op, asked)
            assert (inclusive != right).sum() >= 9


def test_a_term_dropped_from_a_long_prefix_is_caught_where_it_exceeds_the_bound():
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, (2, 65536)).astype(np.float32)
    x[:, 30000] = 4096  # dominant: beyond gamma(n - 1) * sum |x| (under 300) at every prefix that holds it
    x[:, 1000] = 0.75  # small: beyond the bound (about 0.06) at its own prefix and the next few
    for dropped in (30000, 1000):
        kept = x.astype(np.float64)
        kept[:, dropped] = 0
        device = np.cumsum(kept, axis=1).astype(np.float32)
        wrong = outside(SUM, x, fields(SUM, 1), device)
        assert not wrong[:, :dropped].any() and wrong[:, dropped].all(), dropped
        if dropped == 30000:
            assert wrong[:, dropped:].all()
    # the judge's float32 bound itself: sound for a sequential float32 sum, and tighter than 300 at 2^16
    assert not outside(SUM, x, fields(SUM, 1), sequential(x)).any()


def test_a_nan_spills_only_into_the_prefixes_that_hold_it():
    x = np.array([[1.0, 2.0, np.nan, 3.0, 4.0]], dtype=np.float32)
    right = oracle.evaluate(SUM, x, "float32", **fields(SUM, 1))
    assert np.isnan(right[0, 2:]).all() and not outside(SUM, x, fields(SUM, 1), right).any()
    poisoned = np.full_like(x, np.nan)  # a scan whose NaN reaches every element of its row
    assert outside(SUM, x, fields(SUM, 1), poisoned).tolist() == [[True, True, False, False, False]]
    # exclusive and DECREASING: the prefixes holding element 2 are 0 and 1
    assert outside(SUM, x, fields(SUM, 1, DECREASING, 1), poisoned).tolist() == [[False, False, True, True, True]]


def test_a_dropped_factor_is_caught():
    rng = np.random.default_rng(3)
    x = (np.where(rng.uniform(size=(100, 1024)) < 0.5, -1, 1) * 2.0 ** rng.uniform(-1, 1, (100, 1024)))
    x = x.astype(np.float32)
    x[:, 500] = 1.5
    kept = x.astype(np.float64)
    kept[:, 500] = 1
    wrong = outside(PRODUCT, x, fields(PRODUCT, 1), np.cumprod(kept, axis=1).astype(np.float32))
    assert wrong[:, 500:].all() and not wrong[:, :500].any()


def test_the_small_cases_pass_through_the_oracle_and_the_cpu_provider():
    chosen = [c for op in ("cumulative_summation", "cumulative_product") for c in load_file(CASES / f"{op}.yaml")
              if np.prod(c.shape) <= 1000]
    assert len(chosen) >= 300
    for name in ("python:oracle:evaluate", "cpu"):
        records = runner.run(chosen, backends.create(name, announce=lambda m: None), "6_0",
                             ResultsWriter(None)).records
        by_status = {s: [r["id"] for r in records if r["status"] == s] for s in statuses.ALL}
        assert not by_status[statuses.FAIL] and not by_status[statuses.ERROR], (name, by_status[statuses.FAIL][:3])
        assert len(by_status[statuses.PASS]) >= (len(chosen) if name.startswith("python") else 250), name


def every_association(values, combine) -> set:
    """Every result of every binary tree over the values in their order (a scan's partial results are of
    contiguous runs: associativity, not commutativity)."""
    n = len(values)
    runs = {(i, i): {v} for i, v in enumerate(values)}
    for width in range(2, n + 1):
        for i in range(n - width + 1):
            j = i + width - 1
            runs[i, j] = {combine(a, b) for k in range(i, j) for a in runs[i, k] for b in runs[k + 1, j]}
    return runs[0, n - 1]


def rational_rows(rng, op):
    """Rows of 3 to 8 terms: SUM of magnitudes 10^-6 to 10^6, cancelling pairs, the denormal border, partial sums
    past the largest value; PRODUCT of 1/2 to 2, and of powers of two whose partial products over- or underflow
    in some association alone."""
    rows = []
    for n in (3, 4, 5, 6, 8):
        if op == SUM:
            rows += [rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-6, 6, n),
                     np.repeat(rng.uniform(-1000, 1000, (n + 1) // 2), 2)[:n] * np.resize([1, -1 - 2.0 ** -20], n),
                     rng.uniform(-3, 3, n) * 2.0 ** -126]
        else:
            rows.append(rng.choice([-1, 1], n) * rng.uniform(0.5, 2, n))
    if op == SUM:
        rows += [np.array([0.9, 0.6, -0.7, 0.5]) * 3.4e38, np.array([-3e38, -1e38, 2e38, 3e38, -1e38])]
    else:
        rows += [np.exp2([60.0, 70.0, -100.0, -60.0, 20.0]), np.exp2([-70.0, -60.0, 100.0, 50.0, -30.0]),
                 np.array([2.0 ** 100, 0.0, 2.0 ** 100, 2.0 ** -100, 3.0])]
    return [np.asarray(row, np.float32) for row in rows]


@pytest.mark.parametrize("op", [SUM, PRODUCT])
def test_every_interval_holds_the_exact_rational_tally(op):
    """Independent of float64: each prefix's exact sum or product in rational arithmetic, and every result a device
    may give with each operation rounded once (to nearest or toward zero, float32 denormals flushed or kept):
    the sums every binary tree of the prefix's terms (at most 5; 40 sampled trees and the sequential tally beyond),
    the products every association of the factors in traversal order; in both directions, inclusive and
    exclusive; all inside the prefix's interval."""
    rng, sample = np.random.default_rng(8), random.Random(8)
    combine_exact = (lambda a, b: a * b) if op == PRODUCT else (lambda a, b: a + b)
    identity = Fraction(int(op == PRODUCT))
    judged = 0
    for row in rational_rows(rng, op):
        x = row[None, :]
        for direction, exclusive in itertools.product((INCREASING, DECREASING), (0, 1)):
            allowed = interval(get(op), (x,), fields(op, 1, direction, exclusive), "float32")
            ordered = list(map(Fraction, row.astype(np.float64).tolist()))
            ordered = ordered if direction == INCREASING else ordered[::-1]
            for k in range(len(row)):
                at = k if direction == INCREASING else len(row) - 1 - k
                lo, hi, nan = float(allowed.lo[0, at]), float(allowed.hi[0, at]), bool(allowed.nan[0, at])
                prefix = ordered[:k] if exclusive else ordered[:k + 1]
                exact = identity
                for v in prefix:
                    exact = combine_exact(exact, v)
                assert lo <= exact <= hi, (f"{op} {row.tolist()} {direction} exclusive={exclusive} at {at}: exact "
                                           f"{float(exact)!r} outside [{lo!r}, {hi!r}]")
                for rounding, flush in itertools.product(dev.ROUNDINGS, (False, True)):
                    def combine(a, b):
                        return round_fraction(combine_exact(a, b), "float32", rounding, flush)
                    leaves = [round_fraction(v, "float32", rounding, flush) for v in prefix]
                    if not leaves:
                        results = {identity}
                    elif len(leaves) == 1:
                        results = set(leaves)
                    elif op == PRODUCT:
                        results = every_association(leaves, combine)
                    elif len(leaves) <= 5:
                        results = every_order(leaves, combine)
                    else:
                        results = sampled_orders(leaves, combine, sample, 40)
                        tally = leaves[0]
                        for v in leaves[1:]:
                            tally = combine(tally, v)
                        results.add(tally)
                    bad = [float(r) for r in results if not (lo <= r <= hi if r == r else nan)]
                    assert not bad, (f"{op} {row.tolist()} {direction} exclusive={exclusive} at {at} ({rounding}, "
                                     f"flush={flush}): device results {bad[:3]} outside [{lo!r}, {hi!r}] (exact "
                                     f"{float(exact)!r})")
                judged += 1
    assert judged >= 100, judged


def test_the_tables_by_level_and_the_fields_refused_at_load(tmp_path):
    from conformance.caseset.caseload import CaseFileError
    for op, first in ((SUM, "2_1"), (PRODUCT, "3_1")):
        spec = get(op)
        assert [spec.required_level(d, 4) for d in ("float32", "float16", "int32", "uint32")] == [first] * 4
        assert spec.required_level("float32", 3) == spec.required_level("uint32", 8) == "4_0"
        assert spec.required_level("int64", 4) == spec.required_level("uint64", 1) == "5_0"
        assert spec.required_level("int8", 4) is None and spec.required_level("float32", 9) is None
        for params, said in (("Axis: 2", "must be less than the InputTensor's DimensionCount 2"),
                             (f"Axis: 0\n      {EXCLUSIVE[op]}: 2", "is a BOOL: 0 \\(FALSE\\) or 1 \\(TRUE\\)"),
                             ("AxisDirection: DML_AXIS_DIRECTION_INCREASING", "Axis is required")):
            path = tmp_path / "bad.yaml"
            path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [[3, 4]]\n    params:\n"
                            f"      {params}\n    inputs: [{{kind: uniform}}]\n")
            with pytest.raises(CaseFileError, match=rf"bad.yaml:\d+: .*{said}"):
                load_file(path)
