"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: the oracle against the pages' examples, each prefix judged
by the sound interval of its own terms (conformance/judge/accumulated.py with a scan for the reduce), simulated
correct devices passing on >= 10^5 outputs (a sequential float32 tally, rounding or truncating; Hillis-Steele and
Blelloch parallel scans; float16 tallied in float32, or in float16 with the permission), and the faults caught:
exclusive ignored, the direction ignored, a term dropped from a long prefix, a NaN spilling into prefixes that do
not hold it, float16 tallied in half without the permission, a factor dropped from a product."""
from pathlib import Path

import numpy as np
import pytest

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


def truncating(x):
    """Sequential float32 sums, each add rounded toward zero (Direct3D allows it)."""
    out = np.empty(x.shape, dtype=np.float32)
    total = np.zeros(x.shape[:-1], dtype=np.float32)
    for k in range(x.shape[-1]):
        exact = total.astype(np.float64) + x[..., k].astype(np.float64)
        near = exact.astype(np.float32)
        total = np.where(np.abs(near.astype(np.float64)) > np.abs(exact), np.nextafter(near, np.float32(0)), near)
        out[..., k] = total
    return out


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


def blelloch(x):
    """Exclusive scan (up-sweep, then down-sweep) in float32; the length a power of two."""
    y = x.astype(np.float32).copy()
    n = y.shape[-1]
    step = 1
    while step < n:
        y[..., 2 * step - 1::2 * step] += y[..., step - 1::2 * step]
        step *= 2
    y[..., n - 1] = 0
    while step > 1:
        step //= 2
        left = y[..., step - 1::2 * step].copy()
        y[..., step - 1::2 * step] = y[..., 2 * step - 1::2 * step]
        y[..., 2 * step - 1::2 * step] += left
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


def test_correct_float32_scans_pass_on_more_than_10_to_the_5_outputs():
    rng = np.random.default_rng(26)
    wide = np.sign(rng.uniform(-1, 1, (64, 1024))) * 10.0 ** rng.uniform(-20, 20, (64, 1024))
    x = np.concatenate([rng.uniform(-1, 1, (64, 1024)), wide]).astype(np.float32)
    inclusive, exclusive = fields(SUM, 1), fields(SUM, 1, exclusive=1)
    for name, device, params in (("sequential", sequential(x), inclusive), ("truncating", truncating(x), inclusive),
                                 ("hillis-steele", hillis_steele(x), inclusive),
                                 ("blelloch", blelloch(x), exclusive),
                                 ("blelloch + x", blelloch(x) + x, inclusive)):
        assert device.size >= 10**5
        assert not outside(SUM, x, params, device).any(), name
    # reversed: the same scans of the flipped rows, flipped back
    backwards = fields(SUM, 1, DECREASING)
    assert not outside(SUM, x, backwards, hillis_steele(x[:, ::-1])[:, ::-1]).any()


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


def test_correct_float32_products_pass_and_a_dropped_factor_is_caught():
    rng = np.random.default_rng(3)
    x = (np.where(rng.uniform(size=(100, 1024)) < 0.5, -1, 1) * 2.0 ** rng.uniform(-1, 1, (100, 1024)))
    x = x.astype(np.float32)
    for name, device in (("sequential", sequential(x, multiply=True)),
                         ("hillis-steele", hillis_steele(x, multiply=True))):
        assert not outside(PRODUCT, x, fields(PRODUCT, 1), device).any(), name
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


def test_every_interval_holds_the_exact_rational_tally():
    """Independent of float64: each prefix's exact sum or product in rational arithmetic lies in its interval."""
    from fractions import Fraction
    rng = np.random.default_rng(8)
    terms = (rng.uniform(-1, 1, (3, 40)) * 10.0 ** rng.uniform(-6, 6, (3, 40))).astype(np.float32)
    factors = (np.where(rng.uniform(size=(3, 40)) < 0.5, -1, 1) * rng.uniform(0.5, 2, (3, 40))).astype(np.float32)
    for op, x in ((SUM, terms), (PRODUCT, factors)):
        for direction in (INCREASING, DECREASING):
            for exclusive in (0, 1):
                params = fields(op, 1, direction, exclusive)
                allowed = interval(get(op), (x,), params, "float32")
                for row, lo, hi in zip(x, allowed.lo, allowed.hi):
                    ordered = list(map(Fraction, row.tolist()))[::1 if direction == INCREASING else -1]
                    tally, exact = Fraction(int(op == PRODUCT)), []
                    for value in ordered:
                        before = tally
                        tally = tally * value if op == PRODUCT else tally + value
                        exact.append(before if exclusive else tally)
                    exact = exact[::1 if direction == INCREASING else -1]
                    outside_ = [k for k, e in enumerate(exact) if not Fraction(lo[k]) <= e <= Fraction(hi[k])]
                    assert not outside_, (op, direction, exclusive, outside_[:3])


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
