"""The normalizations (MEAN_VARIANCE_NORMALIZATION, 1 and 2, BATCH_NORMALIZATION, BATCH_NORMALIZATION_TRAINING,
LOCAL_RESPONSE_NORMALIZATION, LP_NORMALIZATION): the oracles against values worked by hand from the pages'
formulas (the pages give no examples), simulated correct devices passing the sound d3d bound on over 10^6 outputs
(issue 26: the sums in every order, rounding, mad and flush of tests/accumulation_devices.py, by two passes or one,
/ sqrt or * rsqrt, rcp, sqrt, rsqrt, log2 and exp2 rounded once or at the ends of their d3d intervals; batch
normalization's per-channel factor precomputed, folded, with a fused mad or not, its statistics per channel, per
activation or mixed; float16 computed in float32 and stored either way, or in half with the permission; data
uniform with NaN and infinities, far below Epsilon, offset, wide, denormal, constant), exact rational arithmetic
over every or sampled order, and the faults caught: Epsilon ignored where the variance lies far below it, float16
summed in half without ALLOW_HALF_PRECISION_COMPUTATION, the sample variance (n - 1) for the population's, LRN's
window ignored, LP's P ignored, batch normalization's statistics broadcast along the wrong axis."""
import functools
import random
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import specs  # noqa: F401  (the registry before the judge, as the CLI imports them)
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.judge.intervals import Values
from conformance.specs import get
from conformance.caseset.caseload import load_file
from conformance.specs.base import NotReachable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_orders import assert_within, every_order, round_fraction, sampled_orders  # noqa: E402
from accumulation_devices import PICKS, ROUNDINGS, devices, primitive, rounded, store, sum_rows  # noqa: E402

MVN1, BN, BNT = "MEAN_VARIANCE_NORMALIZATION1", "BATCH_NORMALIZATION", "BATCH_NORMALIZATION_TRAINING"
LRN, LP = "LOCAL_RESPONSE_NORMALIZATION", "LP_NORMALIZATION"
HALF = "ALLOW_HALF_PRECISION_COMPUTATION"
CASE_FILES = Path(__file__).resolve().parent.parent / "cases"


def fields(op, **given) -> dict:
    return {**get(op).defaults(), **given}


def failed(op, inputs, params, actual, dtype="float32", output=None) -> int:
    """How many elements the d3d model rejects (compare_accumulated's verdict, the judge's own)."""
    expected = oracle.evaluate(op, inputs if len(inputs) > 1 else inputs[0], dtype, **params)
    reference = oracle.reference(op, inputs if len(inputs) > 1 else inputs[0], dtype, **params)
    if output is not None:
        expected, reference = expected[output], reference[output]
    result = compare_accumulated(get(op), inputs, params, dtype, expected, reference, np.asarray(actual),
                                 ulp_tolerance=0, output=output or 0)
    return result.d3d["failed"]


def mvn_device(x, epsilon, order="sequential", rounding="nearest", precision="float32", one_pass=False,
               use_rsqrt=True, sample=False, flush=False, fused=False, pick="nearest", centred=True, scale=None,
               bias=None):
    """Mean and Variance of each row of x (float64 values of the tensor type), then (x - Mean) / sqrt(Variance +
    Epsilon) (or * rsqrt), Scale times it plus Bias (arrays of x's shape, or None), every operation rounded once
    to precision; the sums in order (accumulation_devices), the squares added by a mad where fused; the divisions
    by n, rcp, sqrt and rsqrt rounded once from the exact value (pick "nearest", "zero") or at an end of their
    d3d intervals (accumulation_devices.PICKS); one_pass: max(sum(x^2) / n - Mean^2, 0); centred False: about 0
    (MEAN_VARIANCE_NORMALIZATION2's UseMean FALSE); flush: float32 denormals flushed; sample: divides the squares'
    sum by n - 1 (a fault). Returns (Output, Mean, Variance)."""
    def r(v):
        return rounded(v, precision, rounding, flush)

    def divided(a, b):
        if pick in ROUNDINGS:
            return r(a / b)
        return r(a * primitive("rcp", b, pick, precision, rounding, flush))
    if flush:
        x = np.where(np.abs(x) < np.finfo(precision).smallest_normal, 0.0, x)
    n = x.shape[1]
    with np.errstate(all="ignore"):
        mean = divided(sum_rows(x, order, precision, rounding, flush=flush), np.float64(n))[:, None]
        deviation = r(x - mean) if centred else x
        if one_pass and centred:
            squares = divided(sum_rows((x, x), order, precision, rounding, fused, flush), np.float64(n))
            # clamped at 0: a negative variance's NaN is no way of computing the page's result where two passes
            # compute a number (accumulated._united), as many one-pass kernels clamp it
            variance = np.maximum(r(squares[:, None] - r(mean * mean)), 0.0)
        else:
            squares = sum_rows((deviation, deviation), order, precision, rounding, fused, flush)
            variance = divided(squares, np.float64(n - 1 if sample else n))[:, None]
        spread = r(variance + epsilon)
        if use_rsqrt:
            y = r(deviation * primitive("rsqrt", spread, pick, precision, rounding, flush))
        else:
            y = divided(deviation, primitive("sqrt", spread, pick, precision, rounding, flush))
        if scale is not None:
            y = r(scale * y + bias) if fused else r(r(scale * y) + bias)
    return y, mean, variance


# ---- the oracles, against the pages' formulas worked by hand --------------------------------------------------

def test_mean_variance_normalization_oracles_by_hand():
    x = np.array([[1.0, 2, 3, 4]])
    root = np.sqrt(1.25)
    got = oracle.evaluate(MVN1, x, "float32", Axes=[1], Epsilon=0, ScaleTensor="absent", BiasTensor="absent")
    np.testing.assert_allclose(got, np.float32([[-1.5, -0.5, 0.5, 1.5]]) / np.float32(root), rtol=1e-7)
    got = oracle.evaluate(MVN1, (x, np.array([[2.0]]), np.array([[1.0]])), "float32", Axes=[1], NormalizeVariance=0)
    np.testing.assert_array_equal(got, [[-2, 0, 2, 4]])  # Scale * (Input - Mean) + Bias
    got = oracle.evaluate("MEAN_VARIANCE_NORMALIZATION2", x, "float32", Axes=[1], UseMean=0, Epsilon=0,
                          ScaleTensor="absent", BiasTensor="absent")  # RMS: x / sqrt(mean of x^2 = 7.5)
    np.testing.assert_allclose(got, x / np.sqrt(7.5), rtol=1e-7)
    image = np.array([[[[1.0, 3]], [[2, 6]]]])  # channel 0: mean 2, variance 1; channel 1: mean 4, variance 4
    got = oracle.evaluate("MEAN_VARIANCE_NORMALIZATION", image, "float32", CrossChannel=0, Epsilon=0,
                          ScaleTensor="absent", BiasTensor="absent")
    np.testing.assert_array_equal(got.reshape(-1), [-1, 1, -1, 1])
    got = oracle.evaluate(MVN1, x, "float32", Axes=[1], Epsilon=0, ScaleTensor="absent", BiasTensor="absent",
                          FusedActivation={"Type": "ACTIVATION_RELU"})
    np.testing.assert_allclose(got, np.maximum(np.float32([[-1.5, -0.5, 0.5, 1.5]]) / np.float32(root), 0), rtol=1e-7)


def test_batch_normalization_oracles_by_hand():
    one = lambda v: np.array([[v]])  # noqa: E731
    got = oracle.evaluate(BN, (one(2.0), one(1.0), one(3.0), one(3.0), one(0.5)), "float32", Epsilon=1)
    assert got.item() == 2.0  # 3 * (2 - 1) / sqrt(3 + 1) + 0.5
    x = np.array([[1.0], [3.0]])  # statistics over dimension 0, where Scale's size is 1: mean 2, variance 1
    output, mean, variance = oracle.evaluate(BNT, (x, one(2.0), one(0.0), np.array([[1.0], [1.0]])), "float32",
                                             Epsilon=0)
    np.testing.assert_array_equal(output, [[-1], [3]])  # 2 * (x - 2) / 1 + 0 + FusedAdd 1
    assert (mean.item(), variance.item()) == (2.0, 1.0)


def test_batch_normalization_broadcasts_by_hand_on_the_case_files_cases():
    """Every BATCH_NORMALIZATION case of cases/batch_normalization.yaml (up to 2^12 elements) whose Mean, Variance,
    Scale or Bias is
    broadcast (per channel, per activation with Spatial FALSE or TRUE, mixed: each along dimensions of its own):
    the oracle equals the page's formula worked element by element, each statistic read at the element's index
    with 0 in its dimensions of size 1 (the page: "any dimension ... can be set to 1, and be automatically
    broadcast"); and the oracle's value lies inside the d3d interval."""
    cases = [c for c in load_file(CASE_FILES / "batch_normalization.yaml")
             if "broadcast[" in c.id and c.params.get("FusedActivation") is None and c.elements <= 2 ** 12]
    shapes = {tuple(a.shape for a in c.make_input()[1:]) for c in cases}
    assert {((1, 3, 4, 5),) * 4, ((1, 3, 4, 5),) * 2 + ((1, 3, 1, 1),) * 2} <= shapes, shapes  # per activation
    assert any(len(set(s)) == 4 for s in shapes), shapes  # mixed
    assert any(c.params["Spatial"] == 0 and c.make_input()[1].shape == (1, 3, 4, 5) for c in cases)
    for case in cases:
        inputs = case.make_input()
        x, statistics = inputs[0].astype(np.float64), [a.astype(np.float64) for a in inputs[1:]]
        epsilon = float(np.float32(case.params["Epsilon"]))
        want = np.empty(x.shape)
        for index in np.ndindex(*x.shape):
            mean, variance, scale, bias = (a[tuple(i if n > 1 else 0 for i, n in zip(index, a.shape))]
                                           for a in statistics)
            want[index] = scale * ((x[index] - mean) / np.sqrt(variance + epsilon)) + bias
        got = oracle.reference(BN, inputs, case.dtype, **case.oracle_params())
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=case.id)
        allowed = interval(get(BN), inputs, case.params, case.dtype)
        rounded_ = oracle.evaluate(BN, inputs, case.dtype, **case.oracle_params()).astype(np.float64)
        assert not outside(allowed, rounded_).any(), f"{case.id}: the oracle outside its own interval"


def test_statistics_broadcast_along_the_wrong_axis_are_caught():
    """A device that reads per-channel Mean, Variance, Scale and Bias ({1, C, 1, 1}) along Height instead (C = H =
    4: the same sizes) is caught on every element whose channel and row differ; one that reads per-activation
    statistics ({1, C, H, W}, Spatial FALSE) with Height and Width swapped (H = W), wherever they differ."""
    rng = np.random.default_rng(17)
    x = rng.uniform(-10, 10, (2, 4, 4, 4)).astype(np.float32)
    for shape, wrong, differ in (((1, 4, 1, 1), lambda a: a.reshape(1, 1, 4, 1),
                                  np.arange(4)[:, None, None] != np.arange(4)[None, :, None]),
                                 ((1, 4, 4, 4), lambda a: a.transpose(0, 1, 3, 2),
                                  np.arange(4)[None, :, None] != np.arange(4)[None, None, :])):
        statistics = [rng.uniform(lo, hi, shape).astype(np.float32) for lo, hi in ((-2, 2), (0.5, 4), (0.5, 2), (-1, 1))]
        params = fields(BN, Spatial=0 if shape[2] > 1 else 1)
        right = oracle.evaluate(BN, (x, *statistics), "float32", **params)
        misread = oracle.evaluate(BN, (x, *(wrong(a) for a in statistics)), "float32", **params)
        assert failed(BN, (x, *statistics), params, right) == 0
        expected = int(np.broadcast_to(differ, x.shape).sum())
        assert failed(BN, (x, *statistics), params, misread) == expected, \
            f"statistics {shape} read along the wrong axis: expected {expected} elements caught"


def test_local_response_and_lp_normalization_oracles_by_hand():
    x = np.array([1.0, 2, 3]).reshape(1, 3, 1, 1)
    got = oracle.evaluate(LRN, x, "float32", CrossChannel=1, LocalSize=3, Alpha=3, Beta=1, Bias=1)
    np.testing.assert_allclose(got.reshape(-1), [1 / 6, 2 / 15, 3 / 14], rtol=1e-7)  # windows 1+4, 1+4+9, 4+9
    got = oracle.evaluate(LRN, x, "float32", CrossChannel=1, LocalSize=2, Alpha=2, Beta=1, Bias=1)
    np.testing.assert_allclose(got.reshape(-1), [1 / 6, 2 / 14, 3 / 10], rtol=1e-7)  # even: c to c + 1
    image = np.array([1.0, 2, 3, 4]).reshape(1, 1, 2, 2)  # within the channel: every 3x3 window holds all four
    got = oracle.evaluate(LRN, image, "float32", CrossChannel=0, LocalSize=3, Alpha=3, Beta=1, Bias=1)
    np.testing.assert_allclose(got.reshape(-1), [1 / 31, 2 / 31, 3 / 31, 4 / 31], rtol=1e-7)
    pair = np.array([[3.0, 4.0]])
    np.testing.assert_allclose(oracle.evaluate(LP, pair, "float32", Axis=1, P=2, Epsilon=0), [[0.6, 0.8]], rtol=1e-7)
    np.testing.assert_allclose(oracle.evaluate(LP, pair, "float32", Axis=1, P=1, Epsilon=0), [[3 / 7, 4 / 7]],
                               rtol=1e-7)


# ---- sound: simulated correct devices pass, counted (issue 26) ----------------------------------------------
FAMILY = ("MEAN_VARIANCE_NORMALIZATION", MVN1, "MEAN_VARIANCE_NORMALIZATION2", BN, BNT, LRN, LP)
CHECKED = {}  # operator -> outputs judged by the soundness tests (device configuration x output)
REACHED = {}  # (operator, whether rcp, sqrt, rsqrt, log2, exp2 were rounded once from the exact value, not picked at
# an end of their intervals) -> the largest |device - exact| / the interval's half-width on that side (float32
# devices), where that half-width is at least 8 ULPs of the exact value (elsewhere the output's rounding takes a side)
KINDS = ("uniform", "below", "offset", "wide", "tiny", "constant")


def configurations(precision="float32"):
    """(order, rounding, flush, fused, pick) of every device simulated: each of accumulation_devices.devices (with
    and without a mad), the picks of the divisions, rcp, sqrt and rsqrt cycling through PICKS."""
    return [(order, rounding, flush, fused, PICKS[k % len(PICKS)])
            for k, (order, rounding, fused, flush) in enumerate(devices(precision, fused_too=True))]


def rows_of(rng, n, rows, kind, dtype="float32"):
    """rows x n values: uniform in [-1, 2], every 16th row with a NaN, +inf, -inf, or both infinities; below:
    within 1e-4 (Variance far below Epsilon); offset: 1000 plus [-1, 1] (the one-pass variance cancels); wide:
    magnitudes 2^-20 to 2^20, signs random; tiny: float32's denormals and near them (float16: 2^-24 to 2^-10);
    constant: one value per row (Variance 0: Epsilon alone divides)."""
    if kind == "uniform":
        x = rng.uniform(-1, 2, (rows, n))
        x[0::16, 0], x[1::16, -1], x[2::16, n // 2] = np.nan, np.inf, -np.inf
        x[3::16, 0], x[3::16, -1] = np.inf, -np.inf
    elif kind == "below":
        x = rng.uniform(-1e-4, 1e-4, (rows, n))
    elif kind == "offset":
        x = 1000 + rng.uniform(-1, 1, (rows, n))
    elif kind == "constant":
        x = np.repeat(rng.uniform(-10, 10, (rows, 1)), n, axis=1)
    else:
        low, high = {("wide", "float32"): (-20, 20), ("wide", "float16"): (-10, 10), ("tiny", "float32"): (-149, -120),
                     ("tiny", "float16"): (-24, -10)}[kind, dtype]
        x = rng.choice([-1.0, 1.0], (rows, n)) * np.exp2(rng.uniform(low, high, (rows, n)))
    return x.astype(dtype)


def to_rows(x, axes):
    """x with the reduced axes last, as rows (the elements off axes) of the reduced elements; and the permutation."""
    kept = [a for a in range(x.ndim) if a not in axes]
    order = kept + sorted(axes)
    return x.transpose(order).reshape(int(np.prod([x.shape[a] for a in kept], dtype=np.int64)), -1), order


def from_rows(rows, shape, order):
    return rows.reshape([shape[a] for a in order]).transpose(np.argsort(order))


def outside(allowed, values):
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(values), ~allowed.nan, ~(allowed.num & (values >= allowed.lo) & (values <= allowed.hi)))


def assert_inside(op, allowed, values, configuration, data, exact=None, checked=True, once=True):
    """values (float64, the output's shape) inside allowed; counted as judged; how far into the bound noted."""
    allowed = Values(*(np.broadcast_to(v, values.shape) for v in (allowed.lo, allowed.hi, allowed.num, allowed.nan)))
    bad = np.argwhere(outside(allowed, values))
    if checked:
        CHECKED[op] = CHECKED.get(op, 0) + values.size
    if exact is not None:
        exact = np.broadcast_to(exact, values.shape)
        with np.errstate(all="ignore"):
            side = np.where(values >= exact, allowed.hi - exact, exact - allowed.lo)
            wide = side >= 8 * np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
            fraction = np.where(np.isfinite(values) & np.isfinite(exact) & wide, np.abs(values - exact) / side, 0.0)
        REACHED[op, once] = max(REACHED.get((op, once), 0.0), float(fraction.max()))
    if bad.size:
        at = tuple(bad[0])
        pytest.fail(f"{op} {data}, device {configuration}: {len(bad)} of {values.size} outputs outside the interval; "
                    f"at {list(at)} gave {values[at]!r}, expected within [{allowed.lo[at]!r}, {allowed.hi[at]!r}] "
                    f"(nan allowed: {bool(allowed.nan[at])})")


# (operator, shape, reduced axes, fields, Scale's and Bias's shape or None): the statistics' layouts simulated
STATISTICS = (
    (MVN1, (None, None), (1,), {"Axes": [1], "ScaleTensor": "absent", "BiasTensor": "absent"}, None),
    (MVN1, (None, None), (1,), {"Axes": [1]}, "row"),
    (MVN1, (4, None, 4), (0, 2), {"Axes": [0, 2], "ScaleTensor": "absent", "BiasTensor": "absent"}, None),
    ("MEAN_VARIANCE_NORMALIZATION", (2, None, 4, 4), (2, 3), {"CrossChannel": 0}, "channel"),
    ("MEAN_VARIANCE_NORMALIZATION", (None, 4, 2, 2), (1, 2, 3), {"CrossChannel": 1, "ScaleTensor": "absent",
                                                                   "BiasTensor": "absent"}, None),
    ("MEAN_VARIANCE_NORMALIZATION2", (None, None), (1,), {"Axes": [1], "UseMean": 0, "ScaleTensor": "absent",
                                                           "BiasTensor": "absent"}, None),
    ("MEAN_VARIANCE_NORMALIZATION2", (None, None), (1,), {"Axes": [1], "UseMean": 1}, "row"),
    (BNT, (4, None, 2, 2), (0, 2, 3), {"FusedAddTensor": "absent"}, "channel"),
)
ROWS = ((4, 60), (16, 24), (64, 8), (300, 2))  # (terms per row, rows per kind) where a layout leaves them free


def layouts():
    """(operator, shape, axes, fields, affine) with the free sizes (None) chosen for each length of ROWS."""
    for op, shape, axes, given, affine in STATISTICS:
        for n, rows in ROWS:
            free = [i for i, size in enumerate(shape) if size is None]
            reduced = int(np.prod([size for i, size in enumerate(shape) if i in axes and size is not None]))
            if n % reduced:
                continue
            sizes = list(shape)
            for i in free:
                sizes[i] = n // reduced if i in axes else rows * len(KINDS)
            yield op, tuple(sizes), axes, given, affine


def affine_inputs(rng, shape, axes, affine):
    """Scale and Bias: per element of a row (MVN1's LayerNormalization form) or per channel, or None."""
    if affine is None:
        return ()
    sizes = [1] * len(shape)
    if affine == "row":
        sizes[-1] = shape[-1]
    else:
        sizes[1] = shape[1]
    return tuple(rng.uniform(-2, 2, sizes).astype(np.float32) for _ in range(2))


def statistics_inputs(rng, op, shape, axes, affine, dtype):
    """(x, its rows (one per statistic: every kind of KINDS along the normalized axes), the axes' order that
    makes them rows, the Scale and Bias (BATCH_NORMALIZATION_TRAINING's over the kept axes))."""
    kept = [a for a in range(len(shape)) if a not in axes]
    n = int(np.prod([shape[a] for a in axes]))
    rows = int(np.prod([shape[a] for a in kept]))
    data = np.concatenate([rows_of(rng, n, rows // len(KINDS), kind, dtype) for kind in KINDS])
    order = kept + list(axes)
    x = from_rows(data, shape, order)
    extra = affine_inputs(rng, shape, axes, affine)
    if op == BNT:
        extra = tuple(rng.uniform(-2, 2, [shape[a] if a not in axes else 1 for a in range(len(shape))])
                      .astype(np.float32) for _ in range(2))
    return x, data, order, extra


@pytest.mark.parametrize("layout", range(len(STATISTICS)))
def test_correct_float32_statistics_devices_pass(layout):
    """Every simulated float32 device (each order, rounding, mad and flush of accumulation_devices; two passes or
    one; rsqrt or 1 / sqrt, rcp, sqrt and rsqrt rounded once or at either end of their d3d intervals) inside every
    output's interval: Output (and BATCH_NORMALIZATION_TRAINING's OutputMean and OutputVariance), on every kind of
    data of KINDS, for the MVN versions' axes (one, several, non-adjacent) and the training statistics."""
    rng = np.random.default_rng(20 + layout)
    chosen, ran = STATISTICS[layout], 0
    for op, shape, axes, given, affine in layouts():
        if (op, axes, given) != chosen[0:1] + chosen[2:4]:
            continue
        ran += 1
        x, data, order, extra = statistics_inputs(rng, op, shape, axes, affine, "float32")
        params = fields(op, **given)
        epsilon = float(np.float32(params["Epsilon"]))
        inputs = (x,) + extra
        outputs = 3 if op == BNT else 1
        allowed = [interval(get(op), inputs, params, "float32", k) for k in range(outputs)]
        exact = oracle.reference(op, inputs if len(inputs) > 1 else x, "float32", **params)
        exact = exact if outputs > 1 else (exact,)
        scale, bias = (to_rows(np.broadcast_to(v, shape).astype(np.float64), axes)[0] for v in extra) if extra \
            else (None, None)
        x64 = data.astype(np.float64)
        for k, (order_, rounding, flush, fused, pick) in enumerate(configurations()):
            configuration = (order_, rounding, "flush" if flush else "denormals", "fused" if fused else "unfused",
                             pick, "one pass" if k % 2 else "two passes", "rsqrt" if k // 2 % 2 else "/ sqrt")
            y, mean, variance = mvn_device(x64, epsilon, order_, rounding, one_pass=bool(k % 2),
                                           use_rsqrt=bool(k // 2 % 2), flush=flush, fused=fused, pick=pick,
                                           centred=bool(given.get("UseMean", 1)), scale=scale, bias=bias)
            values = [from_rows(y, shape, order)]
            if op == BNT:
                values += [v.reshape(extra[0].shape) for v in (mean, variance)]
            for a, v, e in zip(allowed, values, exact):
                assert_inside(op, a, v, configuration, f"{shape} over {axes}", e, once=pick in ROUNDINGS)
    assert ran >= 2, f"expected {chosen[:3]} at two lengths of ROWS at least, came {ran}"


# Mean, Variance, Scale and Bias of BATCH_NORMALIZATION: per channel, per activation (Spatial FALSE: C, H and W
# not broadcast), and mixed (each broadcast along other dimensions)
BROADCASTS = {"per channel": ((1, 16, 1, 1),) * 4, "per activation": ((1, 16, 6, 6),) * 2 + ((1, 16, 1, 1),) * 2,
              "mixed": ((1, 16, 1, 1), (1, 1, 6, 6), (1, 16, 6, 1), (1, 1, 1, 1))}


@pytest.mark.parametrize("association", ["factor", "fused", "page", "folded", "folded-fused"])
def test_correct_batch_normalization_devices_pass(association):
    """(x - Mean) * (Scale * rsqrt(Variance + Epsilon)) + Bias with the per-channel factor precomputed (with a
    fused mad or not), in the page's order, or folded into x * f + (Bias - Mean * f) (DirectML on lavapipe); rsqrt,
    or rcp of sqrt, rounded once or at the ends of their d3d intervals; every operation rounded or truncated,
    flushing or not; Mean, Variance, Scale and Bias per channel, per activation, mixed; variances of 0 and far
    below Epsilon, NaN and infinities among the inputs."""
    rng = np.random.default_rng(6)
    x = rng.uniform(-10, 10, (8, 16, 6, 6)).astype(np.float32)
    x[0, 0, 0, :4] = [np.nan, np.inf, -np.inf, 1e-40]
    for name, shapes in BROADCASTS.items():
        mean, variance, scale, bias = (rng.uniform(lo, hi, shape).astype(np.float32)
                                       for (lo, hi), shape in zip(((-2, 2), (0, 4), (-2, 2), (-1, 1)), shapes))
        variance.reshape(-1)[::3] = 0.0
        variance.reshape(-1)[1::3] = 1e-8
        params = fields(BN, Spatial=0 if name == "per activation" else 1)
        inputs = (x, mean, variance, scale, bias)
        allowed = interval(get(BN), inputs, params, "float32")
        exact = oracle.reference(BN, inputs, "float32", **params)
        d, m, v, sc, b = (a.astype(np.float64) for a in inputs)
        epsilon = np.float32(params["Epsilon"])
        for k, (rounding, flush) in enumerate([(r, f) for r in ROUNDINGS for f in (False, True)]):
            for j, pick in enumerate(PICKS):
                def r(value):
                    return rounded(value, "float32", rounding, flush)
                with np.errstate(all="ignore"):
                    spread = r(v + epsilon)
                    if (j + k) % 2:
                        inverse = primitive("rsqrt", spread, pick, "float32", rounding, flush)
                    else:
                        inverse = primitive("rcp", primitive("sqrt", spread, pick, "float32", rounding, flush), pick,
                                            "float32", rounding, flush)
                    f = r(sc * inverse)
                    y = {"factor": lambda: r(r(r(d - m) * f) + b), "fused": lambda: r(r(d - m) * f + b),
                         "page": lambda: r(r(sc * r(r(d - m) * inverse)) + b),
                         "folded": lambda: r(r(d * f) + r(b - r(m * f))),
                         "folded-fused": lambda: r(d * f + r(b - r(m * f)))}[association]()
                configuration = (association, name, rounding, "flush" if flush else "denormals", pick,
                                 "rsqrt" if (j + k) % 2 else "rcp(sqrt)")
                assert_inside(BN, allowed, y, configuration, f"{x.shape} {shapes}", exact, once=pick in ROUNDINGS)


@pytest.mark.parametrize("layout", [0, 1, 3, 5, 7])
def test_float16_summed_in_float32_passes_and_in_half_only_with_the_permission(layout):
    """float16 data computed in float32 and stored either way: inside with and without the flag; computed in
    float16 (every operation to nearest, rcp, sqrt and rsqrt with float16's accuracy): inside with
    ALLOW_HALF_PRECISION_COMPUTATION; and without it, caught over rows of 4096 terms."""
    op, _, axes, given, affine = STATISTICS[layout]
    rng = np.random.default_rng(30 + layout)
    for op, shape, axes, given, affine in [c for c in layouts() if c[0] == op and c[2:4] == (axes, given)][:3]:
        x, data, order, extra = statistics_inputs(rng, op, shape, axes, affine, "float16")
        extra = tuple(e.astype(np.float16) for e in extra)
        inputs = (x,) + extra
        outputs = 3 if op == BNT else 1
        plain = [interval(get(op), inputs, fields(op, **given), "float16", k) for k in range(outputs)]
        half = [interval(get(op), inputs, fields(op, **given, ExecutionFlags=HALF), "float16", k)
                for k in range(outputs)]
        epsilon = float(np.float32(fields(op)["Epsilon"]))
        scale, bias = (to_rows(np.broadcast_to(v, shape).astype(np.float64), axes)[0] for v in extra) if extra \
            else (None, None)
        x64 = data.astype(np.float64)
        for precision in ("float32", "float16"):
            for k, (order_, rounding, flush, fused, pick) in enumerate(configurations(precision)[::2]):
                configuration = (precision, order_, rounding, flush, fused, pick, k % 2)
                y, mean, variance = mvn_device(x64, epsilon, order_, rounding, precision, one_pass=bool(k % 2),
                                               use_rsqrt=bool(k // 2 % 2), flush=flush, fused=fused, pick=pick,
                                               centred=bool(given.get("UseMean", 1)), scale=scale, bias=bias)
                values = [from_rows(y, shape, order)] + ([v.reshape(extra[0].shape) for v in (mean, variance)]
                                                         if op == BNT else [])
                for p, h, v in zip(plain, half, values):
                    if precision == "float16":
                        assert_inside(op, h, v, configuration + (HALF,), f"float16 {shape} over {axes}")
                        continue
                    for stored in ROUNDINGS:
                        kept_ = store(v, "float16", stored).astype(np.float64)
                        assert_inside(op, p, kept_, configuration + (stored,), f"float16 {shape} over {axes}")
                        assert_inside(op, h, kept_, configuration + (stored, HALF), f"float16 {shape} over {axes}",
                                      checked=False)
    x = np.random.default_rng(16).uniform(0.5, 2, (4, 4096)).astype(np.float16)
    epsilon = float(np.float32(1e-5))
    in_float = store(mvn_device(x.astype(np.float64), epsilon)[0], "float16")
    in_half = store(mvn_device(x.astype(np.float64), epsilon, precision="float16")[0], "float16")
    for flags in ("NONE", HALF):
        params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent", ExecutionFlags=flags)
        assert failed(MVN1, (x,), params, in_float, "float16") == 0, flags
    params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent", ExecutionFlags=HALF)
    assert failed(MVN1, (x,), params, in_half, "float16") == 0
    # sharp: without the permission, half sums of 4096 terms are caught
    params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent")
    assert failed(MVN1, (x,), params, in_half, "float16") == x.size


# ---- independent: exact rational arithmetic, every or sampled order ------------------------------------------

@functools.lru_cache(maxsize=None)
def ends(name, q, precision, rounding, flush):
    """The values a device may give for the primitive name at the value q (a Fraction): its d3d interval's two
    ends and the float64 value rounded once (accumulation_devices.primitive), as Fractions."""
    values = {float(primitive(name, np.array([float(q)]), pick, precision, rounding, flush)[0])
              for pick in ("low", "high", rounding)}
    return {Fraction(v) if np.isfinite(v) else v for v in values}


def few(values, count=4):
    """At most count of a set of Fractions, the least and the greatest among them."""
    ordered = sorted(values)
    return ordered if len(ordered) <= count else [ordered[round(k * (len(ordered) - 1) / (count - 1))]
                                                     for k in range(count)]


def summed(leaves, r, rng):
    """Every tree's rounded sum of the leaves (Fractions) for n <= 5, else 24 sampled trees."""
    def combine(a, b):
        return r(a + b)
    return every_order(leaves, combine) if len(leaves) <= 5 else sampled_orders(leaves, combine, rng, 24)


def rational_mvn(row, epsilon, precision, rounding, flush, rng):
    """Each element's set of outputs of MEAN_VARIANCE_NORMALIZATION1 devices over the row, exactly: Mean =
    S / n (divided once, or by rcp(n)'s ends), two passes (the squares rounded, or exact as a mad adds them) or
    one (clamped at 0), / sqrt (either end, then divided once or by rcp's ends) or * rsqrt (either end) of
    Variance + Epsilon; every sum in every order (sampled trees beyond 5 terms), each operation rounded once."""
    def r(q):
        return round_fraction(q, precision, rounding, flush)
    n = len(row)
    x = [r(Fraction(float(v))) for v in row]  # flushed where the device flushes its inputs
    out = [set() for _ in row]

    def divided(a, b):
        return {r(a / b)} | {r(a * c) for c in ends("rcp", b, precision, rounding, flush)}
    for s in few(summed(x, r, rng), 2):
        for mean in few(divided(s, Fraction(n)), 2):
            centred = [r(v - mean) for v in x]
            variances = set()
            for leaves in ([r(c * c) for c in centred], [c * c for c in centred]):
                for q in few(summed(leaves, r, rng), 2):
                    variances |= divided(q, Fraction(n))
            for q in few(summed([r(v * v) for v in x], r, rng), 2):
                variances |= {max(r(m - r(mean * mean)), Fraction(0)) for m in divided(q, Fraction(n))}
            for variance in few(variances, 3):
                spread = r(variance + Fraction(epsilon))
                factors = [(True, f) for f in ends("rsqrt", spread, precision, rounding, flush)]
                factors += [(False, root) for root in ends("sqrt", spread, precision, rounding, flush)]
                for i, c in enumerate(centred):
                    for times, f in factors:
                        out[i] |= {r(c * f)} if times else divided(c, f)
    return out


def rational_lp(row, p_, epsilon, precision, rounding, flush, rng):
    """Each element's set of outputs of LP_NORMALIZATION devices over the row, exactly: the norm's sum in every
    order (P 2: squares rounded or exact), sqrt at either end; x / (norm + Epsilon) and x / max(norm, Epsilon)
    divided once or by rcp's ends; P 2: x * rsqrt(sum + Epsilon), x / sqrt(sum + Epsilon)."""
    def r(q):
        return round_fraction(q, precision, rounding, flush)
    x = [r(Fraction(float(v))) for v in row]
    eps = Fraction(epsilon)
    out = [set() for _ in row]

    def divided(a, b):
        return {r(a / b)} | {r(a * c) for c in ends("rcp", b, precision, rounding, flush)}
    leaf_sets = ([abs(v) for v in x],) if p_ == 1 else ([r(v * v) for v in x], [v * v for v in x])
    for leaves in leaf_sets:
        for s in few(summed(leaves, r, rng)):
            norms = {s} if p_ == 1 else ends("sqrt", s, precision, rounding, flush)
            divisors = {r(norm + eps) for norm in norms} | {max(norm, eps) for norm in norms}
            if p_ == 2:
                divisors |= ends("sqrt", r(s + eps), precision, rounding, flush)
            for i, v in enumerate(x):
                for divisor in divisors:
                    out[i] |= divided(v, divisor)
                if p_ == 2:
                    out[i] |= {r(v * f) for f in ends("rsqrt", r(s + eps), precision, rounding, flush)}
    return out


def rational_rows(rng, dtype):
    """Rows of 2 to 5 terms (every order) and 6 to 7 (sampled trees): uniform, far below Epsilon, offset 1000 +-
    1 (float16: 30 +- 1, whose squares' sum stays finite), denormal (float16: its subnormals), constant."""
    rows = []
    for k in range(10):
        n = 2 + k % 4 if k < 8 else 6 + k % 2
        kind = k % 5
        if kind == 0:
            row = rng.uniform(-1, 2, n)
        elif kind == 1:
            row = rng.uniform(-1e-4, 1e-4, n)
        elif kind == 2:
            row = 1000 + rng.uniform(-1, 1, n) if dtype == "float32" else 30 + rng.uniform(-1, 1, n)
        elif kind == 3:
            row = rng.uniform(-3, 3, n) * (2.0 ** -126 if dtype == "float32" else 2.0 ** -14)
        else:
            row = np.full(n, rng.uniform(-10, 10))
        rows.append(row.astype(dtype))
    return rows


@pytest.mark.parametrize("precision, dtype, flags", [("float32", "float32", "NONE"), ("float16", "float16", HALF),
                                                     ("float32", "float16", "NONE")])
@pytest.mark.parametrize("op", [MVN1, LP + " 1", LP + " 2"])
def test_every_order_exactly_rounded_inside(op, precision, dtype, flags):
    """Independent of the simulator's float64 tricks: MEAN_VARIANCE_NORMALIZATION1 and LP_NORMALIZATION (P 1 and
    2) of rows of at most 7 terms with exact rational arithmetic, each operation rounded once by round_fraction
    (to nearest or toward zero, flushing float32 denormals or not), rcp, sqrt and rsqrt at the ends of their d3d
    intervals, every sum in every order: every output, stored either way where the tensor is float16, inside
    interval()'s [lo, hi]; so is the exact rational result of P 1 (x / (sum |x| + Epsilon))."""
    rng = np.random.default_rng(14)
    sample = random.Random(14)
    modes = [(r, f) for r in ROUNDINGS for f in (False, True)] if precision == "float32" else [("nearest", False)]
    name, p_ = (op.split() + [None])[:2]
    seen = 0
    for row in rational_rows(rng, dtype):
        if name == MVN1:
            params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent", ExecutionFlags=flags)
        else:
            params = fields(LP, Axis=1, P=int(p_), ExecutionFlags=flags)
        allowed = interval(get(name), (row[None, :],), params, dtype)
        epsilon = float(np.float32(params["Epsilon"]))
        if p_ == "1":
            total = sum(abs(Fraction(float(v))) for v in row) + Fraction(epsilon)
            for i, v in enumerate(row):
                q = Fraction(float(v)) / total
                assert allowed.lo[0, i] <= q <= allowed.hi[0, i], \
                    f"{op} {row.tolist()}: exact {float(q)!r} outside [{allowed.lo[0, i]!r}, {allowed.hi[0, i]!r}]"
        tiny = np.abs(row.astype(np.float64)).max() < 2.0 ** -100
        for rounding, flush in modes:
            if flush and not tiny:  # flushing changes nothing there
                continue
            if name == MVN1:
                outputs = rational_mvn(row, epsilon, precision, rounding, flush, sample)
            else:
                outputs = rational_lp(row, int(p_), epsilon, precision, rounding, flush, sample)
            for i, values in enumerate(outputs):
                if dtype != precision:
                    values = {round_fraction(v, dtype, stored) for v in values for stored in ROUNDINGS}
                # an infinity of overflow (float16 rcp(Epsilon) = 1e5 past 65504) where another reading of the page
                # computes a number is no way of computing the page's result (accumulated._united)
                values = {v for v in values if isinstance(v, Fraction)}
                seen += assert_within(values, allowed.lo[0, i], allowed.hi[0, i],
                                      f"{op} {dtype} in {precision} ({rounding}, flush={flush}) of {row.tolist()}: "
                                      f"element {i}")
    print(f"{op} {dtype} in {precision}: {seen} distinct outputs checked")
    assert seen >= 100, f"expected over a hundred distinct outputs checked, came {seen}"


# ---- sharp: the faults are caught ----------------------------------------------------------------------------

def test_epsilon_ignored_is_caught_where_the_variance_is_far_below_it():
    x = np.random.default_rng(5).uniform(-1e-4, 1e-4, (64, 64)).astype(np.float32)
    params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent")
    kept = mvn_device(x.astype(np.float64), float(np.float32(params["Epsilon"])))[0].astype(np.float32)
    ignored = mvn_device(x.astype(np.float64), 0.0)[0].astype(np.float32)
    assert failed(MVN1, (x,), params, kept) == 0
    assert failed(MVN1, (x,), params, ignored) == x.size
    # batch normalization: a zero variance divided by sqrt(Epsilon), not by 0
    ones = lambda v: np.full((1, 4, 1, 1), v, np.float32)  # noqa: E731
    data = np.random.default_rng(7).uniform(-1, 1, (2, 4, 3, 3)).astype(np.float32)
    inputs = (data, ones(0.25), ones(0.0), ones(1.0), ones(0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        no_epsilon = (data.astype(np.float64) - 0.25) / np.sqrt(0.0)
        assert failed(BN, inputs, fields(BN, Epsilon=0.001), no_epsilon.astype(np.float32)) == data.size


def test_the_sample_variance_is_caught():
    """OutputVariance and Output: sum / (n - 1) in place of the population's sum / n, over 8 terms."""
    x = np.random.default_rng(8).uniform(-3, 3, (8, 3)).astype(np.float32)
    scale, bias = np.ones((1, 3), np.float32), np.zeros((1, 3), np.float32)
    params = fields(BNT, FusedAddTensor="absent")
    inputs = (x, scale, bias)
    epsilon = float(np.float32(params["Epsilon"]))
    for sample in (False, True):
        y, mean, variance = mvn_device(x.T.astype(np.float64), epsilon, sample=sample)
        wrong = [failed(BNT, inputs, params, a.astype(np.float32), output=k)
                 for k, a in enumerate((y.T, mean.T, variance.T))]
        assert wrong == ([0, 0, 0] if not sample else [x.size, 0, 3]), (sample, wrong)


def test_lrn_window_and_lp_order_ignored_are_caught():
    x = np.random.default_rng(9).uniform(-10, 10, (2, 6, 4, 5)).astype(np.float32)
    for cross in (1, 0):
        params = fields(LRN, CrossChannel=cross, LocalSize=3, Alpha=1.0)
        right = oracle.evaluate(LRN, x, "float32", **params)
        only_itself = oracle.evaluate(LRN, x, "float32", **{**params, "LocalSize": 1, "Alpha": 1.0 / 3})
        assert failed(LRN, (x,), params, right) == 0
        assert failed(LRN, (x,), params, only_itself) > 0.9 * x.size, cross
    params = fields(LP, Axis=3, P=2)
    assert failed(LP, (x,), params, oracle.evaluate(LP, x, "float32", **params)) == 0
    assert failed(LP, (x,), params, oracle.evaluate(LP, x, "float32", **{**params, "P": 1})) == x.size


@pytest.mark.parametrize("cross", [1, 0])
def test_correct_lrn_devices_pass(cross):
    """LRN's window sums in every order, rounding and flush (squares by a mad or not), the power as HLSL lowers
    it, exp2(Beta * log2(base)), with log2 and exp2 rounded once or at the ends of their d3d intervals, the
    division by the power (or by rcp's ends) or the product with the power of -Beta; windows across channels
    (5) or within the channel (5 x 5); the data uniform (a NaN and infinities among it), wide, and denormal."""
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(-10, 10, (2, 32, 12, 12)),
                        rng.choice([-1.0, 1.0], (1, 32, 12, 12)) * np.exp2(rng.uniform(-20, 20, (1, 32, 12, 12))),
                        rng.choice([-1.0, 1.0], (1, 32, 12, 12)) * np.exp2(rng.uniform(-149, -120, (1, 32, 12, 12)))])
    x[0, 3, 4, 5], x[1, 7, 0, 0], x[1, 9, 11, 11] = np.nan, np.inf, -np.inf
    x = x.astype(np.float32)
    params = fields(LRN, CrossChannel=cross, LocalSize=5, Alpha=0.5, Beta=0.75, Bias=2.0)
    allowed = interval(get(LRN), (x,), params, "float32")
    exact = oracle.reference(LRN, x, "float32", **params)
    d = x.astype(np.float64)
    for k, (order, rounding, flush, fused, pick) in enumerate(configurations()):
        def r(v):
            return rounded(v, "float32", rounding, flush)

        def apply(name, v):
            return primitive(name, v, pick, "float32", rounding, flush)
        with np.errstate(all="ignore"):
            if cross:  # each channel window, as rows of 5 (outside the tensor: nothing)
                padded = np.pad(np.moveaxis(d, 1, -1), [(0, 0)] * 3 + [(2, 2)])
                windows = np.stack([padded[..., c:c + 5] for c in range(32)], axis=-2).reshape(-1, 5)
                sums = np.moveaxis(sum_rows((windows, windows), order, "float32", rounding, fused, flush)
                                   .reshape(4, 12, 12, 32), -1, 1)
            else:  # the 5 x 5 window of the channel, row by row
                padded = np.pad(d, [(0, 0), (0, 0), (2, 2), (2, 2)])
                windows = np.stack([padded[:, :, i:i + 5, j:j + 5].reshape(4, 32, 25)
                                    for i in range(12) for j in range(12)], axis=-2).reshape(-1, 25)
                sums = sum_rows((windows, windows), order, "float32", rounding, fused, flush).reshape(4, 32, 12, 12)
            base = r(2.0 + r(np.float32(0.5 / 5) * sums))
            if k % 2:
                y = r(d * apply("exp2", r(-0.75 * apply("log2", base))))
            else:
                power = apply("exp2", r(0.75 * apply("log2", base)))
                y = r(d / power) if pick in ROUNDINGS else r(d * apply("rcp", power))
        assert_inside(LRN, allowed, y, (order, rounding, flush, fused, pick, "x * pow(-Beta)" if k % 2 else
                                        "x / pow"), f"{x.shape} CrossChannel {cross}", exact, once=pick in ROUNDINGS)


@pytest.mark.parametrize("p_, axis", [(1, 1), (2, 1), (2, 0)])
def test_correct_lp_devices_pass(p_, axis):
    """LP's norm summed in every order, rounding and flush (P 2: squares by a mad or not), sqrt, rsqrt and rcp
    rounded once or at the ends of their d3d intervals, each of the readings of Epsilon: / (norm + Epsilon),
    / max(norm, Epsilon), P 2: * rsqrt(sum + Epsilon), / sqrt(sum + Epsilon); over the kinds of data of KINDS."""
    rng = np.random.default_rng(13 + p_ + axis)
    params = fields(LP, Axis=axis, P=p_)
    epsilon = np.float32(params["Epsilon"])
    for n, rows in ROWS:
        data = np.concatenate([rows_of(rng, n, rows, kind) for kind in KINDS])
        x = data if axis == 1 else np.ascontiguousarray(data.T)
        allowed = interval(get(LP), (x,), params, "float32")
        exact = oracle.reference(LP, x, "float32", **params)
        d = data.astype(np.float64)
        readings = 4 if p_ == 2 else 2
        for k, (order, rounding, flush, fused, pick) in enumerate(configurations()):
            def r(v):
                return rounded(v, "float32", rounding, flush)

            def apply(name, v):
                return primitive(name, v, pick, "float32", rounding, flush)

            def divided(a, b):
                return r(a / b) if pick in ROUNDINGS else r(a * apply("rcp", b))
            with np.errstate(all="ignore"):
                d_ = np.where(np.abs(d) < np.finfo(np.float32).smallest_normal, 0.0, d) if flush else d
                terms = np.abs(d_) if p_ == 1 else (d_, d_)
                s = sum_rows(terms, order, "float32", rounding, fused, flush)[:, None]
                norm = s if p_ == 1 else apply("sqrt", s)
                reading = k % readings
                if reading == 0:
                    y = divided(d_, r(norm + epsilon))
                elif reading == 1:
                    y = divided(d_, np.where(np.isnan(norm), norm, np.fmax(norm, epsilon)))
                elif reading == 2:
                    y = r(d_ * apply("rsqrt", r(s + epsilon)))
                else:
                    y = divided(d_, apply("sqrt", r(s + epsilon)))
            y = y if axis == 1 else y.T
            assert_inside(LP, allowed, y, (order, rounding, flush, fused, pick, "reading", reading),
                          f"P {p_} axis {axis} n={n}", exact, once=pick in ROUNDINGS)


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 outputs of the normalization family (run with them), every
    operator of it among them; and the largest fraction of the bound a float32 device reached."""
    if set(CHECKED) != set(FAMILY):
        pytest.skip(f"run with the soundness tests of this file (came {sorted(CHECKED)})")
    total = sum(CHECKED.values())
    print(f"normalization outputs judged: {total} ({CHECKED}); the largest fraction of the bound reached: "
          f"{ {op + ('' if once else ' (ends of rcp, sqrt, rsqrt, log2, exp2)'): round(v, 3) for (op, once), v in REACHED.items()} }")
    assert total >= 10 ** 6, f"expected at least 10^6 outputs judged, came {total}: {CHECKED}"


def test_the_mvn_onnx_route_is_the_node_whose_formula_is_the_case_s():
    spec = get(MVN1)
    per_channel = (np.zeros((2, 3, 4, 5)), np.ones((1, 3, 1, 1)), np.zeros((1, 3, 1, 1)))
    params = fields(MVN1, Axes=[2, 3])
    assert spec.to_onnx("float32", params).op_type == "InstanceNormalization"
    assert spec.onnx_undefined(per_channel, "float32", params) is None
    assert spec.onnx_shapes([a.shape for a in per_channel], params) == ((2, 3, 4, 5), (3,), (3,))
    assert spec.onnx_undefined((per_channel[0], np.ones((1, 1, 4, 5)), np.ones((1, 1, 4, 5))), "float32", params)
    trailing = (np.zeros((1, 128, 768)), np.ones((1, 1, 768)), np.zeros((1, 1, 768)))
    layer = fields(MVN1, Axes=[2])
    node = spec.to_onnx("float32", layer)
    assert (node.op_type, node.attributes["axis"]) == ("LayerNormalization", 2)
    assert spec.onnx_shapes([a.shape for a in trailing], layer) == ((1, 128, 768), (768,), (768,))
    bare = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent", Epsilon=0)
    assert spec.to_onnx("float32", bare).op_type == "MeanVarianceNormalization"
    for refused in (fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent"),  # an epsilon ONNX lacks
                    fields(MVN1, Axes=[2, 3], NormalizeVariance=0),
                    fields(MVN1, Axes=[2, 3], FusedActivation={"Type": "ACTIVATION_RELU"})):
        with pytest.raises(NotReachable):
            spec.to_onnx("float32", refused)
