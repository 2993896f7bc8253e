"""The LINEAR modes of UPSAMPLE_2D and RESAMPLE to RESAMPLE3: the oracle's multilinear interpolation against
hand-worked examples, the sound interval (conformance/specs/resampling.linear_step: the coordinates computed in
float32, the weighted sum's rounding) passing simulated float32 devices of several evaluation orders, and the
faults caught: nearest neighbour given for linear, the wrong pixel offsets, the weights swapped or held in
float16, an axis not interpolated. Every LINEAR case through the oracle and the CPU provider."""
from pathlib import Path

import numpy as np

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import load_file
from conformance.judge.accumulated import compare_accumulated
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


def test_every_interval_holds_the_exact_rational_interpolation():
    """Independent of float64: the interpolation in rational arithmetic, from the float32 fields, lies in each
    output's interval (accumulated.interval)."""
    from fractions import Fraction
    from conformance.judge.accumulated import interval
    x = np.random.default_rng(9).uniform(-1000, 1000, (3, 4)).astype(np.float32)
    quarter = {"InputPixelOffsets": [0.25], "OutputPixelOffsets": [0]}
    for scales, offsets in (((3, 1.5), CENTRES), ((0.75, 2.5), quarter)):
        params = fields(scales, offsets)
        allowed = interval(get("RESAMPLE1"), (x,), params, "float32")
        axes = []
        for size, count, s, i, o in zip(x.shape, allowed.lo.shape, scales, params["InputPixelOffsets"],
                                        params["OutputPixelOffsets"]):
            s, i, o = (Fraction(float(np.float32(v))) for v in (s, i, o))
            taps = []
            for out in range(count):
                c = min(max((out - o) / s - i, Fraction(0)), Fraction(size - 1))
                first = int(c)  # c >= 0: the floor
                taps.append((first, min(first + 1, size - 1), c - first))
            axes.append(taps)
        for r, (r0, r1, fr) in enumerate(axes[0]):
            for k, (k0, k1, fk) in enumerate(axes[1]):
                v = [[Fraction(float(x[a, b])) for b in (k0, k1)] for a in (r0, r1)]
                exact = ((1 - fr) * ((1 - fk) * v[0][0] + fk * v[0][1]) + fr * ((1 - fk) * v[1][0] + fk * v[1][1]))
                assert Fraction(allowed.lo[r, k]) <= exact <= Fraction(allowed.hi[r, k]), (scales, r, k)
