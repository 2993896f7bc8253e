"""The LINEAR modes of UPSAMPLE_2D and RESAMPLE to RESAMPLE3: the oracle's multilinear interpolation against
hand-worked examples; the sound interval (conformance/specs/resampling.linear_step: the coordinates computed in
float32, the weighted sum's rounding, a NaN or infinity a coordinate at an integer may read or not) passing
simulated devices whose every operation is rounded once (lerps, weighted pairs, the 2^D weights' products; every
order, rounding, fused mad, reciprocal and flush; float16 either way) on over 10^6 counted outputs, and every device
result in exact rational arithmetic; the faults caught: nearest neighbour given for linear, the wrong pixel offsets,
the weights swapped or held in float16, an axis not interpolated. Every LINEAR case through the oracle and the CPU
provider."""
import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import accumulation_devices as dev
from exact_orders import every_order, round_fraction
from soundness_tally import Tally

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import load_file
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import get
from oracle.resampling import LINEAR

CASES = Path(__file__).resolve().parent.parent / "cases"
CENTRES = {"InputPixelOffsets": [0.5, 0.5], "OutputPixelOffsets": [-0.5, -0.5]}


def fields(scales, offsets=None, **more) -> dict:
    offsets = offsets or CENTRES
    rank = len(scales)
    return {"InterpolationMode": LINEAR, "Scales": list(scales),
            **{k: list(v[:1]) * rank for k, v in offsets.items()}, **more}


def failed(op, x, params, actual, dtype="float32") -> int:
    """The d3d verdict's count of elements outside their interval."""
    x = np.asarray(x, dtype=dtype)
    result = compare_accumulated(get(op), (x,), params, dtype, oracle.evaluate(op, x, dtype, **params),
                                 oracle.reference(op, x, dtype, **params), np.asarray(actual, dtype=dtype),
                                 ulp_tolerance=0)
    return result.d3d["failed"]


def device(x, scales, ins, outs, form="lerp", reciprocal=False, swap=False, skip_axis=None, half_weights=False):
    """A float32 device: along each axis in turn, the coordinate (o - out) / scale - in computed in float32 (or
    with a float32 reciprocal), clamped, and the two elements around it combined in float32, as a lerp
    a + f * (b - a) or as weights (1 - f) * a + f * b."""
    f32 = np.float32
    y = np.asarray(x, dtype=f32)
    for axis, (scale, i, o) in enumerate(zip(scales, ins, outs)):
        count = int(np.floor(y.shape[axis] * float(f32(scale))))
        if axis == skip_axis:  # not interpolated: the nearest element below
            count_index = np.arange(count, dtype=f32)
            c = np.clip(np.floor((count_index - f32(o)) / f32(scale) - f32(i)), 0, y.shape[axis] - 1)
            y = np.take(y, c.astype(np.intp), axis=axis)
            continue
        index = np.arange(count, dtype=f32)
        q = (index - f32(o)) * (f32(1) / f32(scale)) if reciprocal else (index - f32(o)) / f32(scale)
        c = np.clip((q - f32(i)).astype(f32), 0, y.shape[axis] - 1)
        first = np.floor(c)
        f = (c - first).astype(f32)
        if swap:
            f = (f32(1) - f).astype(f32)
        if half_weights:  # the weights held in float16: 11 bits
            f = f.astype(np.float16).astype(f32)
        shape = [1] * y.ndim
        shape[axis] = -1
        f = f.reshape(shape)
        a = np.take(y, first.astype(np.intp), axis=axis)
        b = np.take(y, np.minimum(first + 1, y.shape[axis] - 1).astype(np.intp), axis=axis)
        y = (a + f * (b - a) if form == "lerp" else (f32(1) - f) * a + f * b).astype(f32)
    return y


def test_the_oracle_is_the_interpolation_worked_by_hand():
    line = np.array([0.0, 10.0], dtype=np.float32)
    assert oracle.evaluate("RESAMPLE1", line, "float32", **fields([2])).tolist() == [0, 2.5, 7.5, 10]
    corners = fields([2], {"InputPixelOffsets": [0], "OutputPixelOffsets": [0]})
    assert oracle.evaluate("RESAMPLE1", line, "float32", **corners).tolist() == [0, 5, 10, 10]
    square = np.array([[0.0, 10.0], [20.0, 30.0]], dtype=np.float32)
    got = oracle.evaluate("RESAMPLE", square, "float32", InterpolationMode=LINEAR, Scales=[2, 2])
    assert got[1].tolist() == [5, 7.5, 12.5, 15] and got[:, 0].tolist() == [0, 5, 15, 20]
    image = square.reshape(1, 1, 2, 2)
    assert (oracle.evaluate("UPSAMPLE_2D", image, "float32", ScaleSize=[2, 2], InterpolationMode=LINEAR)
            == got.reshape(1, 1, 4, 4)).all()
    # a scale of 1 at the pixel centres is a copy
    assert (oracle.evaluate("RESAMPLE2", square, "float32", **fields([1, 1])) == square).all()


def test_float32_devices_of_several_orders_pass_and_the_faults_are_caught():
    rng = np.random.default_rng(26)
    for op in ("RESAMPLE1", "RESAMPLE2"):
        # the long axis: coordinates near 3000, whose float32 rounding (2^-12) moves the value past the sum's own
        # bound; the coordinates' error (the Dot's spread) accepts it
        for shape, scales in (((5, 7), (3, 1.5)), ((6, 4), (0.75, 2.5)), ((2, 3, 3, 4), (1, 2, 1.5, 0.5)),
                              ((3001,), (2.9,))):
            x = rng.uniform(-100, 100, shape).astype(np.float32)
            params = fields(scales, **({"RoundingDirection": "DML_AXIS_DIRECTION_DECREASING"} if op == "RESAMPLE2"
                                       else {}))
            ins, outs = params["InputPixelOffsets"], params["OutputPixelOffsets"]
            for form in ("lerp", "weights"):
                for reciprocal in (False, True):
                    assert failed(op, x, params, device(x, scales, ins, outs, form, reciprocal)) == 0, \
                        (op, shape, form, reciprocal)
            half = x.astype(np.float16)
            assert failed(op, half, params, device(half, scales, ins, outs).astype(np.float16), "float16") == 0
            nearest = oracle.evaluate(op, x, "float32", **{**params, "InterpolationMode":
                                                           "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"})
            size = nearest.size
            assert failed(op, x, params, nearest) > size // 2, (op, shape)
            assert failed(op, x, params, device(x, scales, [0] * len(ins), [0] * len(outs))) > size // 2
            assert failed(op, x, params, device(x, scales, ins, outs, swap=True)) > size // 2
            if max(shape) < 100:  # (on the long axis the coordinates' own float32 rounding is as large)
                # caught where a weight is not a float16 value (thirds, tenths; not the quarters of a scale of 2)
                assert failed(op, x, params, device(x, scales, ins, outs, half_weights=True)) > size // 8, (op, shape)
            assert failed(op, x, params, device(x, scales, ins, outs, skip_axis=max(len(shape) - 2, 0))) > size // 4


# -- sound: devices whose every operation is rounded once, counted (issue 26) --------------------------------------

TALLY = Tally("linear resampling")
HALF = "ALLOW_HALF_PRECISION_COMPUTATION"
KINDS = ("uniform", "cancel", "wide", "tiny")
# (form, order): separable lerps a + f (b - a); separable weights (1 - f) a + f b summed either way; the 2^D
# weights' products and one dot product over the 2^D elements, in three orders
FORMS = (("lerp", None), ("weights", "sequential"), ("weights", "reverse"), ("tensor", "sequential"),
         ("tensor", "reverse"), ("tensor", "pairwise"))


def linear_devices(precision="float32"):
    """(form, order, rounding, fused, reciprocal, flush): each form and order, rounding either way, mad fused or
    not, the coordinate divided or multiplied by the reciprocal (alternately), and two that flush."""
    if precision == "float16":
        return [(form, order, "nearest", False, False, False) for form, order in FORMS]
    chosen = [(form, order, rounding, fused, fused != (rounding == "zero"), False) for form, order in FORMS
              for rounding in dev.ROUNDINGS for fused in (False, True)]
    return chosen + [("lerp", None, "zero", False, True, True), ("tensor", "pairwise", "nearest", True, False, True)]


def exact_device(x, mapping, form, order, rounding, fused, reciprocal, flush, precision="float32"):
    """The LINEAR mode as a simulated device computes it, every operation rounded once (tests/accumulation_devices.py):
    the coordinates (o - OutputPixelOffset) / Scale - InputPixelOffset in float32 (a division, or a multiply by the
    rounded reciprocal), clamped; the weights 1 - f and f in float32 (held in precision); then the form's sums in
    precision. mapping: per axis (Scale, InputPixelOffset, OutputPixelOffset, output size)."""
    def r32(v):
        return dev.rounded(v, "float32", rounding, flush)

    def add(a, b, p="float32", fused_product=None):
        """a + b rounded once (b + fused_product[0] * fused_product[1] where given: a mad)."""
        if fused_product is None:
            return dev.add(a, b, p, rounding, flush)
        a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
        f, d = (np.broadcast_to(v, a.shape).reshape(-1) for v in fused_product)
        out = dev.sum_rows((np.stack([np.ones(a.size), f], axis=1), np.stack([a.reshape(-1), d], axis=1)),
                           "sequential", p, rounding, True, flush)
        return out.reshape(a.shape)

    taps = []
    for size, (scale, ins, outs, count) in zip(x.shape, mapping):
        s, i, o = (float(np.float32(v)) for v in (scale, ins, outs))
        d = add(np.arange(count, dtype=np.float64), -o)
        q = r32(d * r32(1.0 / s)) if reciprocal else r32(d / s)
        c = np.clip(add(q, -i), 0, size - 1)
        first = np.floor(c)
        f = c - first  # exact
        w0 = add(1.0, -f)
        if precision != "float32":  # weights held in the computing precision
            f, w0 = (dev.rounded(v, precision, "nearest") for v in (f, w0))
        taps.append((first.astype(np.intp), np.minimum(first + 1, size - 1).astype(np.intp), w0, f))
    y = dev.rounded(np.asarray(x, np.float64), precision, rounding, flush)
    if form == "tensor":
        corners, weights = [], []
        for bits in itertools.product((0, 1), repeat=y.ndim):
            corners.append(y[np.ix_(*[t[b] for t, b in zip(taps, bits)])])
            w = np.ones(())
            for axis, (t, b) in enumerate(zip(taps, bits)):
                shape = [1] * y.ndim
                shape[axis] = -1
                w = dev.rounded(w * t[2 + b].reshape(shape), precision, rounding, flush)
            weights.append(np.broadcast_to(w, corners[-1].shape))
        shape = corners[0].shape
        flat = lambda arrays: np.stack([a.reshape(-1) for a in arrays], axis=1)  # noqa: E731
        return dev.sum_rows((flat(weights), flat(corners)), order, precision, rounding, fused, flush).reshape(shape)
    for axis, (first, second, w0, f) in enumerate(taps):
        shape = [1] * y.ndim
        shape[axis] = -1
        a, b = np.take(y, first, axis=axis), np.take(y, second, axis=axis)
        f, w0 = np.broadcast_to(f.reshape(shape), a.shape), np.broadcast_to(w0.reshape(shape), a.shape)
        if form == "lerp":
            with np.errstate(invalid="ignore"):
                step = add(b, -a, precision)
                y = add(a, 0.0, precision, (f, step)) if fused else \
                    add(a, dev.rounded(f * step, precision, rounding, flush), precision)
        else:
            pairs = (np.stack([w0.reshape(-1), f.reshape(-1)], axis=1), np.stack([a.reshape(-1), b.reshape(-1)], axis=1))
            y = dev.sum_rows(pairs, order, precision, rounding, fused, flush).reshape(a.shape)
    return y


def linear_data(rng, kind, shape, dtype):
    """uniform in [-100, 100] with a NaN, an infinity and both infinities near each other; cancel: +-1000
    alternating along every axis plus up to 1 (an interpolation between neighbours cancels); wide: magnitudes
    2^-60 to 2^60 (float16 2^-20 to 2^12); tiny: the denormal range; signs random."""
    f16 = dtype == "float16"
    if kind == "uniform":
        x = rng.uniform(-100, 100, shape)
        flat = x.reshape(-1)
        flat[[7, 40]], flat[[90, 91]], flat[150] = np.nan, (np.inf, -np.inf), np.inf
    elif kind == "cancel":
        signs = (-1.0) ** np.indices(shape).sum(axis=0)
        x = 1000 * signs + rng.uniform(-1, 1, shape)
    else:
        low, high = {("wide", False): (-60, 60), ("wide", True): (-20, 12), ("tiny", False): (-149, -120),
                     ("tiny", True): (-24, -10)}[kind, f16]
        x = rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(low, high, shape))
    return x.astype(dtype)


RESAMPLED = (
    ("RESAMPLE1", fields([1, 1, 2, 2]), (2, 2, 16, 16)),
    ("RESAMPLE2", fields([1, 1, 0.75, 1.5], {"InputPixelOffsets": [0.25], "OutputPixelOffsets": [0]},
                         RoundingDirection="DML_AXIS_DIRECTION_INCREASING"), (2, 2, 40, 24)),
    ("RESAMPLE3", fields([2.5, 2, 0.5], Antialiased=0), (6, 12, 20)),
    ("RESAMPLE", {"InterpolationMode": LINEAR, "Scales": [2, 3]}, (30, 20)),
    ("UPSAMPLE_2D", {"ScaleSize": [3, 2], "InterpolationMode": LINEAR}, (1, 2, 16, 20)),
)


def mapping_of(op, shape, params):
    """The device's reading of the fields: per axis (Scale, InputPixelOffset, OutputPixelOffset, output size)
    (UPSAMPLE_2D: the pixel centres' reading)."""
    from conformance.specs import upsample_2d
    from conformance.specs.resampling import resample_mapping
    if op == "UPSAMPLE_2D":
        return list(upsample_2d.mapping(upsample_2d.READINGS[0])(shape, params))
    return list(resample_mapping(shape, params))


class Judged:
    """The intervals of one input for the devices: a lerp, a + f (b - a), meets an infinity as inf - inf (NaN)
    where the weighted average is infinite, so its input holds NaN there instead
    (test_a_lerp_beside_an_infinity_gives_nan_which_the_judge_refuses); each interval computed once."""

    def __init__(self, op, x, params):
        self.op, self.x, self.params, self.known = op, x, params, {}

    def __call__(self, device, flags="NONE"):
        """(input, interval, exact) for the device (its form first)."""
        lerp = device[0] == "lerp" and bool(np.isinf(self.x).any())
        if (lerp, flags) not in self.known:
            x = np.where(np.isinf(self.x), np.nan, self.x).astype(self.x.dtype) if lerp else self.x
            dtype = x.dtype.name
            self.known[lerp, flags] = (x, interval(get(self.op), (x,), {**self.params, "ExecutionFlags": flags}, dtype),
                                       oracle.reference(self.op, x, dtype, **self.params))
        return self.known[lerp, flags]


@pytest.mark.parametrize("op, params, shape", RESAMPLED, ids=[r[0] for r in RESAMPLED])
def test_float32_devices_inside(op, params, shape):
    """Every simulated float32 device (form x order x rounding x fused x reciprocal, two flushing) inside every
    output's interval, on every kind of data."""
    rng = np.random.default_rng(26)
    mapping = mapping_of(op, shape, params)
    for kind in KINDS:
        judged = Judged(op, linear_data(rng, kind, shape, "float32"), params)
        for device in linear_devices():
            x, allowed, exact = judged(device)
            TALLY.judge(op, allowed, exact_device(x, mapping, *device), (kind, *device), exact, key=kind)


@pytest.mark.parametrize("op, params, shape", RESAMPLED[::2], ids=[r[0] for r in RESAMPLED[::2]])
def test_float16_devices_inside(op, params, shape):
    """float16 computed in float32 and stored either way: inside with and without the flag; the weighted sums in
    float16 (the weights held in half): inside with ALLOW_HALF_PRECISION_COMPUTATION."""
    rng = np.random.default_rng(27)
    mapping = mapping_of(op, shape, params)
    for kind in KINDS:
        judged = Judged(op, linear_data(rng, kind, shape, "float16"), params)
        for device in linear_devices()[::4]:
            (x, plain, _), (_, half, _) = judged(device), judged(device, HALF)
            computed = exact_device(x, mapping, *device)
            for stored in dev.ROUNDINGS:
                values = dev.store(computed, "float16", stored).astype(np.float64)
                TALLY.judge(op + " float16", plain, values, ("float32", kind, *device, stored))
                TALLY.judge(op + " float16", half, values, ("float32", kind, *device, HALF), count=False)
        for device in linear_devices("float16"):
            x, half, _ = judged(device, HALF)
            TALLY.judge(op + " float16 in half", half, exact_device(x, mapping, *device, precision="float16"),
                        ("float16", kind, *device, HALF))


def test_a_coordinate_at_an_integer_beside_a_nan_may_read_either_side():
    """RESAMPLE1 of [1, 2, NaN, 4] by 3 at the pixel centres: output 4's coordinate 4.5 / 3 - 0.5 is 1 exactly, so
    the exact weights read element 2 (NaN) with weight 0: NaN; a device whose float32 coordinate comes just below 1
    (truncating, or times the reciprocal 1/3 rounded down) reads elements 0 and 1 instead: a number near 2. Both
    are accepted (Dot.reach); a number near element 0's 1 is not."""
    x = np.array([1.0, 2.0, np.nan, 4.0], np.float32)
    params = fields([3])
    allowed = interval(get("RESAMPLE1"), (x,), params, "float32")
    mapping = mapping_of("RESAMPLE1", x.shape, params)
    device = exact_device(x, mapping, "weights", "sequential", "zero", False, True, False)
    assert 1.99 < device[4] < 2.0, f"expected the truncating device to read elements 0 and 1 at output 4, came {device}"
    lo, hi, num, nan = (v[4] for v in (allowed.lo, allowed.hi, allowed.num, allowed.nan))
    assert nan and num and lo <= device[4] <= hi, f"expected NaN and {device[4]!r} accepted, came [{lo!r}, {hi!r}], " \
                                                  f"NaN {nan}"
    assert not lo <= 1.0 + 1e-3 <= hi, f"expected a number near 1 refused at output 4, came [{lo!r}, {hi!r}]"
    exact = oracle.evaluate("RESAMPLE1", x, "float32", **params)
    assert failed("RESAMPLE1", x, params, device) == 0 and np.isnan(exact[4])


def test_a_lerp_beside_an_infinity_gives_nan_which_the_judge_refuses():
    """An open question, pinned: HLSL's lerp(a, b, f) is a + f (b - a); at [1, inf, 2] by 2, output 3 reads inf and 2
    with f = 1/4: the page's weighted average 3/4 inf + 1/4 2 is inf, the lerp inf + (2 - inf) / 4 is NaN (output 4
    likewise, f = 3/4). The judge takes the page's weighted average literally and refuses those NaN (where no
    infinity is read, a lerp is inside: the soundness tests above)."""
    x = np.array([1.0, np.inf, 2.0], np.float32)
    params = fields([2])
    mapping = mapping_of("RESAMPLE1", x.shape, params)
    lerp = exact_device(x, mapping, "lerp", None, "nearest", False, False, False)
    weighted = exact_device(x, mapping, "weights", "sequential", "nearest", False, False, False)
    assert np.isnan(lerp[3:5]).all() and (weighted[3:5] == np.inf).all(), (lerp, weighted)
    allowed = interval(get("RESAMPLE1"), (x,), params, "float32")
    assert not allowed.nan[3:5].any() and (allowed.lo[3:5] == np.inf).all()
    assert failed("RESAMPLE1", x, params, weighted) == 0 and failed("RESAMPLE1", x, params, lerp) == 2


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 outputs of the LINEAR modes (run with them); the line
    printed gives the count and the largest fraction of the bound a device reached."""
    if len(TALLY.checked) < len(RESAMPLED):
        pytest.skip("run with the soundness tests of this file")
    TALLY.report()


def test_upsample_2d_accepts_either_reading_of_its_coordinates_and_no_other():
    x = np.random.default_rng(5).uniform(-1000, 1000, (2, 3, 4, 5)).astype(np.float32)
    params = {"ScaleSize": [3, 2], "InterpolationMode": LINEAR}
    scales, rank = [1, 1, 2, 3], 4
    centres = device(x, scales, [0.5] * rank, [-0.5] * rank)
    corners = device(x, scales, [0] * rank, [0] * rank)
    assert failed("UPSAMPLE_2D", x, params, centres) == 0 and failed("UPSAMPLE_2D", x, params, corners) == 0
    assert failed("UPSAMPLE_2D", x, params, device(x, scales, [0.5] * rank, [-0.5] * rank, swap=True)) > 100
    quarter = device(x, scales, [0.25] * rank, [0] * rank)  # a third reading: not the page's
    assert failed("UPSAMPLE_2D", x, params, quarter) > 100


def test_every_linear_case_passes_through_the_oracle_and_the_cpu_provider():
    chosen = [c for op in ("upsample_2d", "resample", "resample1", "resample2", "resample3")
              for c in load_file(CASES / f"{op}.yaml") if c.params.get("InterpolationMode") == LINEAR]
    assert len(chosen) >= 150
    for name in ("python:oracle:evaluate", "cpu"):
        records = runner.run(chosen, backends.create(name, announce=lambda m: None), "6_4",
                             ResultsWriter(None)).records
        by_status = {s: [r["id"] for r in records if r["status"] == s] for s in statuses.ALL}
        assert not by_status[statuses.FAIL] and not by_status[statuses.ERROR], (name, by_status[statuses.FAIL][:3])
        # ONNX Runtime's CPU linear Resize: 2-D, or 4-D with the first two scales 1; offsets of half_pixel or
        # asymmetric
        assert len(by_status[statuses.PASS]) >= (len(chosen) if name.startswith("python") else 60), name


def rational_taps(size, count, scale, ins, outs, rounding):
    """Per output index, the set of (first, second, 1 - f, f) a float32 device may compute, in Fractions: the
    coordinate (o - OutputPixelOffset) * rcp(Scale) - InputPixelOffset with rcp at either end of its Direct3D
    interval (conformance/judge/intervals.py: a / b is a * rcp(b)) or a correctly rounded division, each operation
    rounded once (round_fraction), clamped; the weights 1 - f rounded."""
    from conformance.judge.intervals import interval as elementwise
    from conformance.specs.primitives import X, rcp

    def r(v):
        return round_fraction(v, "float32", rounding)
    s, i, o = (Fraction(float(np.float32(v))) for v in (scale, ins, outs))
    ends = elementwise(rcp(X), np.array([float(s)]), "float32")
    reciprocals = {Fraction(float(ends.lo[0])), Fraction(float(ends.hi[0]))}
    out = []
    for index in range(count):
        d = r(index - o)
        chosen = set()
        for q in {r(d * reciprocal) for reciprocal in reciprocals} | {r(d / s)}:
            c = min(max(r(q - i), Fraction(0)), Fraction(size - 1))
            first = math.floor(c)
            f = c - first
            chosen.add((first, min(first + 1, size - 1), r(1 - f), f))
        out.append(chosen)
    return out


def test_every_interval_holds_the_exact_rational_interpolation():
    """Independent of float64: RESAMPLE1 of a 3 x 4 input, in rational arithmetic from the float32 fields: the exact
    interpolation, and every result a float32 device may give with each operation rounded once (to nearest or
    toward zero; its coordinates by rational_taps): separable lerps a + f (b - a) and separable weighted pairs (either
    order), a mad fused or not; the four weights' products and every order of their sum, fused or not. All inside
    each output's interval (accumulated.interval)."""
    x = np.random.default_rng(9).uniform(-1000, 1000, (3, 4)).astype(np.float32)
    x[1, 2] = -x[1, 1] * (1 + 2.0 ** -20)  # neighbours that cancel
    quarter = {"InputPixelOffsets": [0.25], "OutputPixelOffsets": [0]}
    judged = 0
    for scales, offsets in (((3, 1.5), CENTRES), ((0.75, 2.5), quarter)):
        params = fields(scales, offsets)
        allowed = interval(get("RESAMPLE1"), (x,), params, "float32")
        value = [[Fraction(float(v)) for v in row] for row in x]
        for rounding in dev.ROUNDINGS:
            def r(v):
                return round_fraction(v, "float32", rounding)

            def pair(a, b, w0, f):
                """Each way a device combines two elements with weights 1 - f (rounded) and f, one rounding an op."""
                step = r(b - a)
                return {r(a + r(f * step)), r(a + f * step), r(r(w0 * a) + r(f * b)), r(r(w0 * a) + f * b),
                        r(w0 * a + r(f * b))}
            sizes = zip(x.shape, allowed.lo.shape, scales, params["InputPixelOffsets"], params["OutputPixelOffsets"])
            axes = [rational_taps(size, count, scale, i, o, rounding) for size, count, scale, i, o in sizes]
            for (row, rows), (col, cols) in itertools.product(enumerate(axes[0]), enumerate(axes[1])):
                lo, hi = Fraction(allowed.lo[row, col]), Fraction(allowed.hi[row, col])
                coordinates = [(out - Fraction(float(np.float32(params["OutputPixelOffsets"][0])))) /
                               Fraction(float(np.float32(scale))) - Fraction(float(np.float32(params["InputPixelOffsets"][0])))
                               for out, scale in ((row, scales[0]), (col, scales[1]))]
                (c0, e0), (c1, e1) = ((min(max(c, Fraction(0)), Fraction(size - 1)), size) for c, size in
                                      zip(coordinates, x.shape))
                a0, a1 = math.floor(c0), math.floor(c1)
                fa, fb = c0 - a0, c1 - a1
                v = [[value[a][b] for b in (a1, min(a1 + 1, e1 - 1))] for a in (a0, min(a0 + 1, e0 - 1))]
                exact = (1 - fa) * ((1 - fb) * v[0][0] + fb * v[0][1]) + fa * ((1 - fb) * v[1][0] + fb * v[1][1])
                assert lo <= exact <= hi, f"{scales} at ({row}, {col}): exact {float(exact)!r} outside"
                results = set()
                for (r0, r1, u0, fr), (k0, k1, w0, fk) in itertools.product(rows, cols):
                    v = [[value[a][b] for b in (k0, k1)] for a in (r0, r1)]
                    for first, second in itertools.product(pair(v[0][0], v[1][0], u0, fr), pair(v[0][1], v[1][1], u0, fr)):
                        results |= pair(first, second, w0, fk)
                    weights = [r(a * b) for a in (u0, fr) for b in (w0, fk)]
                    corners = [v[0][0], v[0][1], v[1][0], v[1][1]]
                    for leaves in ([r(w * c) for w, c in zip(weights, corners)], [w * c for w, c in zip(weights, corners)]):
                        results |= every_order(leaves, lambda a, b: r(a + b))
                bad = sorted(float(v) for v in results if not lo <= v <= hi)
                assert not bad, (f"RESAMPLE1 {scales} at ({row}, {col}) ({rounding}): device results {bad[:3]} outside "
                                 f"[{float(lo)!r}, {float(hi)!r}]")
                judged += 1
    assert judged >= 100, judged

@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_an_8_bit_linear_output_is_any_rounding_of_the_interpolation_and_nothing_further(dtype):
    """RESAMPLE1's INT8 and UINT8 LINEAR (6_2): the page gives no rounding to the type, so a device converting the
    interpolated value by truncation, floor, ceiling or to nearest passes (DirectML on lavapipe truncates toward
    zero), and one a unit further off on the elements whose value is no integer fails there alone."""
    from conformance.caseset.case import Case
    from conformance.judge.entry import compare_case
    info = np.iinfo(dtype)
    x = np.random.default_rng(8).integers(info.min, info.max, (1, 2, 5, 6), endpoint=True).astype(dtype)
    params = {**get("RESAMPLE1").defaults(), **fields([1, 1, 1.5, 0.75], {k: [v[0]] for k, v in CENTRES.items()})}
    case = Case(id=f"RESAMPLE1/{dtype}/linear", op="RESAMPLE1", dtype=dtype, shape=x.shape, params=params,
                generator={"kind": "test"}, required_level="6_2", tolerance=0)
    exact = np.asarray(oracle.reference("RESAMPLE1", x.astype(np.float64), "float64", **case.oracle_params()))
    between = np.abs(exact - np.rint(exact)) > 1e-3
    assert between.sum() > exact.size // 4, "expected most outputs between two integers"
    for name, rounding in (("truncated", np.trunc), ("floor", np.floor), ("ceiling", np.ceil), ("nearest", np.rint)):
        got = compare_case(case, x, rounding(exact).astype(dtype))
        assert got.mismatches == 0, f"{dtype} {name}: expected inside, came {got.mismatches} outside: {got.worst[:2]}"
    further = np.where(between, np.floor(exact) - 1, exact).clip(info.min, info.max).astype(dtype)
    got = compare_case(case, x, further)
    wrong = int((between & (np.floor(exact) - 1 >= info.min)).sum())
    assert got.mismatches == wrong, f"{dtype}: expected {wrong} elements a unit below the floor outside, came " \
                                    f"{got.mismatches}"
