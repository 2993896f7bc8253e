"""ROI_ALIGN and ROI_ALIGN1: the oracle against bilinear samples worked by hand; simulated float32 devices that
compute the page's pseudocode (coordinates, weights, sums in either order, every operation rounded once) pass the
sound judge on over 10^6 counted outputs of uniform (NaN, infinities), cancelling, wide and denormal data, and the
exact rational outputs lie inside; a NaN or infinity reaches only the samples that read it; the faults are caught
(nearest instead of bilinear, a wrong pixel offset, n + 1 samples as the page's `<=` reads, the average where the
maximum is asked)."""
import itertools
from fractions import Fraction as Q
from pathlib import Path

import numpy as np
import pytest

import oracle
import accumulation_devices as dev
from accumulation_devices import rounded
from soundness_tally import Tally
from conformance import specs
from conformance.judge.accumulated import compare_accumulated, interval
from oracle.roi_aligning import ALIGN_DEFAULTS, AVERAGE, DEFAULTS, LINEAR, MAX, SAMPLES, TAPS, align

GRID = np.array([[0, 10, 20], [30, 40, 90]], dtype=np.float64).reshape(1, 1, 2, 3)
CORNER = {"InputPixelOffset": 0.0, "OutputPixelOffset": -0.5}  # samples at bin centres, pixels at corners


def run(op, data, rois, params, batches=None):
    batches = np.zeros(len(rois), np.uint32) if batches is None else batches
    return oracle.evaluate(op, (data, np.asarray(rois, np.float32), batches), "float32", **params)


def test_one_sample_is_the_bilinear_mean_of_its_four_elements():
    # x = 1.5, y = 0.5: a quarter of each of 10, 20, 40, 90
    out = run("ROI_ALIGN1", GRID, [[1, 0, 2, 1]], {**CORNER, "OutputSize": [1, 1], "MinimumSamplesPerOutput": 1,
                                                    "MaximumSamplesPerOutput": 1})
    assert out.reshape(-1).tolist() == [40.0]


@pytest.mark.parametrize("function, expected", [(AVERAGE, 30.0), (MAX, 52.5)])
def test_two_by_two_samples_averaged_and_maximised(function, expected):
    # samples at x 0.5, 1.5 and y 0.25, 0.75: 12.5, 27.5 (row y 0.25: 7.5, 17.5, 37.5), 27.5, 52.5 (22.5, 32.5, 72.5)
    params = {**CORNER, "OutputSize": [1, 1], "MinimumSamplesPerOutput": 2, "MaximumSamplesPerOutput": 2,
              "ReductionFunction": function}
    assert run("ROI_ALIGN1", GRID, [[0, 0, 2, 1]], params).reshape(-1).tolist() == [expected]


@pytest.mark.parametrize("rule, half_outside", [(SAMPLES, 0.0), (TAPS, 3.5)])
def test_roi_align_shifts_by_half_a_pixel_and_reads_outside_as_the_value(rule, half_outside):
    fields = {**DEFAULTS, **ALIGN_DEFAULTS, "OutputSize": [1, 1], "MinimumSamplesPerOutput": 1,
              "MaximumSamplesPerOutput": 1, "OutOfBoundsInputValue": 7.0}
    rois = np.array([[0, 0, 1, 1], [-1, 0, 0, 1], [-0.5, 0, 0.5, 1]], np.float32)
    # x = 0.5 - 0.5 = 0: the element itself; x = -1: outside either way; x = -0.5: clamped to the element (samples),
    # or half the element left of the input (taps)
    got = align((GRID, rois, np.zeros(3, np.uint32)), fields, rule)
    assert got.reshape(-1).tolist() == [0.0, 7.0, half_outside]


def test_adaptive_count_rounds_the_ratio_up():
    # width 2.5 over 1 output: 3 samples at x 5/12, 15/12, 25/12 (pixels at corners); rows are 0, 10, 20 + 0 at y
    params = {**CORNER, "OutputSize": [1, 1]}
    row = np.array([[0, 10, 20, 30]], dtype=np.float64).reshape(1, 1, 1, 4)
    got = run("ROI_ALIGN1", row, [[0, 0, 2.5, 0]], params)
    assert got.reshape(-1)[0] == pytest.approx(10 * (5 + 15 + 25) / 12 / 3)


# A device: the pseudocode in float32 -------------------------------------------------------------------------


def device(data, rois, batches, params, order="sequential", fault=None, rounding="nearest"):
    """OutputTensor as a float32 device computes it: every coordinate, weight and sum rounded once to float32, to
    nearest or toward zero (Direct3D lets float32 arithmetic truncate)."""
    def F(value):
        return rounded(np.asarray(value, np.float64), "float32", rounding).astype(np.float32)

    p = {"InputPixelOffset": 0.5, "OutputPixelOffset": -0.5, "OutOfBoundsInputValue": 0.0,
         "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": 2 ** 32 - 1, "SpatialScaleX": 1.0,
         "SpatialScaleY": 1.0, "ReductionFunction": AVERAGE, **params}
    if fault == "pixel offset":
        p["InputPixelOffset"] = F(p["InputPixelOffset"]) - F(0.5)
    height, width = p["OutputSize"]
    data = data.astype(np.float32)
    _, channels, rows, cols = data.shape
    out = np.zeros((len(rois), channels, height, width), np.float32)

    def axis(start, end, size):
        span = F(end - start)
        n = int(min(max(np.ceil(F(span / F(size))), p["MinimumSamplesPerOutput"]), p["MaximumSamplesPerOutput"]))
        step = F(span / F(size * n))
        s = np.arange(size * n + (1 if fault == "n + 1 samples" else 0), dtype=np.float32)
        c = F(F(F(s - F(p["OutputPixelOffset"])) * step) + F(start)) - F(p["InputPixelOffset"])
        return c.astype(np.float32), n

    def taps(c, limit):
        """DirectML's reading on lavapipe: outside where c <= -1 or c >= limit (index -1), else clamped."""
        if c[0] <= -1 or c[0] >= limit:
            return [(np.array([-1]), np.ones_like(c))]
        if fault == "nearest":
            return [(np.minimum(np.floor(c + F(0.5)), limit - 1).astype(np.int64), np.ones_like(c))]
        c = np.clip(c, F(0), F(limit - 1))
        first = np.floor(c)
        f = F(c - first)
        return [(first.astype(np.int64), F(F(1) - f)), (np.minimum(first + 1, limit - 1).astype(np.int64), f)]

    for r, roi in enumerate(rois.astype(np.float32)):
        image = data[int(batches[r])]
        cy, ny = axis(F(roi[1] * F(p["SpatialScaleY"])), F(roi[3] * F(p["SpatialScaleY"])), height)
        cx, nx = axis(F(roi[0] * F(p["SpatialScaleX"])), F(roi[2] * F(p["SpatialScaleX"])), width)
        for oy in range(height):
            for ox in range(width):
                values = []
                for y in cy[oy * ny:oy * ny + ny + (1 if fault == "n + 1 samples" else 0)]:
                    for x in cx[ox * nx:ox * nx + nx + (1 if fault == "n + 1 samples" else 0)]:
                        v = np.zeros(channels, np.float32)
                        terms = []
                        for iy, wy in taps(np.array([y], np.float32), rows):
                            for ix, wx in taps(np.array([x], np.float32), cols):
                                inside = 0 <= iy[0] < rows and 0 <= ix[0] < cols
                                element = image[:, iy[0], ix[0]] if inside else np.full(channels, F(
                                    p["OutOfBoundsInputValue"]))
                                terms.append(F(F(wy[0] * wx[0]) * element))
                        for t in (terms if order == "sequential" else terms[::-1]):
                            v = F(v + t)
                        values.append(v)
                if p["ReductionFunction"] == MAX and fault != "average for max":
                    out[r, :, oy, ox] = np.max(values, axis=0)
                else:
                    total = np.zeros(channels, np.float32)
                    for v in (values if order == "sequential" else values[::-1]):
                        total = F(total + v)
                    out[r, :, oy, ox] = F(total / F(len(values)))
    return out


def judged(op, inputs, params, actual):
    spec = specs.get(op)
    expected = oracle.evaluate(op, inputs, "float32", **params)
    reference = oracle.reference(op, inputs, "float32", **params)
    return compare_accumulated(spec, inputs, params, "float32", expected, reference, actual, 84).d3d["failed"]


def _inputs(seed):
    rng = np.random.default_rng(seed)
    data = rng.uniform(-100, 100, (2, 3, 9, 11)).astype(np.float32)
    corners = rng.uniform(-1.5, 11.5, (12, 4)).astype(np.float32)
    rois = np.concatenate([np.minimum(corners[:, :2], corners[:, 2:]), np.maximum(corners[:, :2], corners[:, 2:])],
                          axis=1)
    return data, rois[:, [0, 1, 2, 3]], rng.integers(0, 2, 12).astype(np.uint32)


CASES = [("ROI_ALIGN", {"OutputSize": [3, 3], "MinimumSamplesPerOutput": 2, "MaximumSamplesPerOutput": 2}),
         ("ROI_ALIGN", {"OutputSize": [2, 3], "ReductionFunction": MAX}),
         ("ROI_ALIGN1", {"OutputSize": [3, 2], "InputPixelOffset": 0.0, "SpatialScaleX": 0.75,
                         "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": 3})]


@pytest.mark.parametrize("op, params", CASES)
@pytest.mark.parametrize("order, rounding", [("sequential", "nearest"), ("reverse", "nearest"), ("sequential", "zero")])
def test_float32_devices_pass(op, params, order, rounding):
    data, rois, batches = _inputs(1)
    actual = device(data, rois, batches, params, order, rounding=rounding)
    assert judged(op, (data, rois, batches), params, actual) == 0


@pytest.mark.parametrize("fault, params", [
    ("nearest", CASES[0][1]), ("pixel offset", CASES[0][1]), ("n + 1 samples", CASES[0][1]),
    ("average for max", CASES[1][1])])
def test_faults_are_caught(fault, params):
    data, rois, batches = _inputs(2)
    actual = device(data, rois, batches, params, fault=fault)
    assert judged("ROI_ALIGN", (data, rois, batches), params, actual) > 0


# -- sound: devices whose every operation is rounded once, counted (issue 26) --------------------------------------

TALLY = Tally("ROI_ALIGN")
KINDS = ("uniform", "cancel", "wide", "tiny")


def roi_devices():
    """(order, rounding, fused, flush, rcp): the 4 taps' and the samples' sums in each order, rounding either way,
    a mad fused or not; divisions correctly rounded (to nearest) or a multiply by rcp at the low or high end of
    its Direct3D interval (truncating); two that flush."""
    chosen = [(order, rounding, fused, False, "low" if fused else "high") for order in dev.PRODUCT_ORDERS
              for rounding in dev.ROUNDINGS for fused in (False, True)]
    return chosen + [("sequential", "zero", False, True, "low"), ("pairwise", "nearest", True, True, "high")]


def vector_device(data, rois, batches, params, order, rounding, fused, flush, rcp, precision="float32"):
    """ROI_ALIGN1's pseudocode (ROI_ALIGN's fields by default) as a float32 device computes it, vectorised over
    channels and samples, every operation rounded once (tests/accumulation_devices.py); the samples outside where
    their coordinate is <= -1 or >= the size (OutOfBoundsInputValue), else clamped (DirectML's reading). precision
    float16: the coordinates and weights in float32, the weights held in half, the sums and the mean in half."""
    p = {**DEFAULTS, **ALIGN_DEFAULTS, **params}

    def F(v):
        return dev.rounded(np.asarray(v, np.float64), "float32", rounding, flush)

    def H(v):  # a value of the computing precision
        return F(v) if precision == "float32" else dev.rounded(np.asarray(v, np.float64), precision, rounding)

    def add(a, b):
        return dev.add(a, b, "float32", rounding, flush)

    def divide(a, b):
        return F(a / b) if rounding == "nearest" else F(a * dev.primitive("rcp", b, rcp, "float32", rounding, flush))

    out_y, out_x = p["OutputSize"]
    fill = F(p["OutOfBoundsInputValue"])
    _, channels, rows, cols = data.shape
    out = np.zeros((len(rois), channels, out_y, out_x))

    def axis(start, end, size, limit):
        """Per sample: the two indices (limit: the fill slot), their weights; and the count n."""
        span = add(end, -start)
        n = int(min(max(np.ceil(divide(span, float(size))), p["MinimumSamplesPerOutput"]), p["MaximumSamplesPerOutput"]))
        step = divide(span, float(size * n))
        s = np.arange(size * n, dtype=np.float64)
        c = add(add(F(add(s, -F(p["OutputPixelOffset"])) * step), start), -F(p["InputPixelOffset"]))
        outside = (c <= -1) | (c >= limit)
        c = np.clip(c, 0, limit - 1)
        first = np.floor(c)
        f = c - first  # exact
        w0 = add(1.0, -f)
        i0 = np.where(outside, limit, first).astype(np.intp)
        i1 = np.where(outside, limit, np.minimum(first + 1, limit - 1)).astype(np.intp)
        return (i0, i1), (np.where(outside, 1.0, w0), np.where(outside, 0.0, f)), n

    for r, roi in enumerate(np.asarray(rois, np.float64)):
        image = np.full((channels, rows + 1, cols + 1), fill)
        image[:, :rows, :cols] = dev.rounded(data[int(batches[r])].astype(np.float64), "float32", rounding, flush)
        ys, wy, ny = axis(F(roi[1] * F(p["SpatialScaleY"])), F(roi[3] * F(p["SpatialScaleY"])), out_y, rows)
        xs, wx, nx = axis(F(roi[0] * F(p["SpatialScaleX"])), F(roi[2] * F(p["SpatialScaleX"])), out_x, cols)
        weights, values = [], []
        for a, b in itertools.product(range(2), range(2)):
            w = H(F(wy[a][:, None] * wx[b][None, :]))
            weights.append(np.broadcast_to(w, (channels,) + w.shape).reshape(-1))
            values.append(image[:, ys[a][:, None], xs[b][None, :]].reshape(-1))
        sampled = dev.sum_rows((np.stack(weights, axis=1), np.stack(values, axis=1)), order, precision, rounding, fused,
                               flush)
        grid = sampled.reshape(channels, out_y, ny, out_x, nx).transpose(0, 1, 3, 2, 4).reshape(-1, ny * nx)
        if p["ReductionFunction"] == MAX:
            with np.errstate(invalid="ignore"):
                total = np.fmax.reduce(grid, axis=1)  # Direct3D's max: a NaN operand yields the other
        else:
            total = H(divide(dev.sum_rows(grid, order, precision, rounding, False, flush), float(ny * nx)))
        out[r] = total.reshape(channels, out_y, out_x)
    return out


def roi_data(rng, kind, dtype="float32"):
    """(data, rois, batches): data of 2 batches of 88 channels of 9 x 11; 10 ROIs from 1.5 outside the input to
    0.5 beyond it. uniform in [-100, 100] with a NaN, an infinity and both infinities; cancel: +-1000 alternating plus
    up to 1; wide: magnitudes 2^-60 to 2^60; tiny: the denormal range; signs random."""
    shape = (2, 88, 9, 11)
    if kind == "uniform":
        data = rng.uniform(-100, 100, shape)
        data[0, 0, 4, 5], data[0, 1, 2, 2], data[1, 2, 6, 6], data[1, 3, 3, 3:5] = np.nan, np.inf, -np.inf, (np.inf,
                                                                                                             -np.inf)
    elif kind == "cancel":
        data = 1000 * (-1.0) ** np.indices(shape)[2:].sum(axis=0) + rng.uniform(-1, 1, shape)
    else:
        low, high = (-60, 60) if kind == "wide" else (-149, -120)
        data = rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(low, high, shape))
    corners = rng.uniform(-1.5, 11.5, (10, 4))
    rois = np.concatenate([np.minimum(corners[:, :2], corners[:, 2:]), np.maximum(corners[:, :2], corners[:, 2:])],
                          axis=1)
    if dtype == "float16":  # within float16's range
        data = np.where(np.isfinite(data), np.sign(data) * np.minimum(np.abs(data), 2.0 ** 12) if kind == "wide" else
                        data * 2.0 ** 120 if kind == "tiny" else data, data)
    return data.astype(dtype), rois.astype(dtype), rng.integers(0, 2, 10).astype(np.uint32)


ROI_CASES = [("ROI_ALIGN", {"OutputSize": [3, 3], "MinimumSamplesPerOutput": 2, "MaximumSamplesPerOutput": 2}),
             ("ROI_ALIGN", {"OutputSize": [2, 3], "ReductionFunction": MAX}),
             ("ROI_ALIGN1", {"OutputSize": [3, 2], "InputPixelOffset": 0.0, "SpatialScaleX": 0.75,
                             "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": 3, "OutOfBoundsInputValue": 2.5})]


@pytest.mark.parametrize("op, params", ROI_CASES, ids=["average", "max", "align1"])
def test_float32_devices_inside(op, params):
    """Every simulated float32 device (order x rounding x fused x flush, rcp's ends) inside every output's interval,
    on every kind of data."""
    rng = np.random.default_rng(26)
    for kind in KINDS:
        inputs = roi_data(rng, kind)
        allowed = interval(specs.get(op), inputs, params, "float32")
        exact = oracle.reference(op, inputs, "float32", **params)
        for device in roi_devices():
            TALLY.judge(f"{op} {'MAX' if params.get('ReductionFunction') == MAX else 'AVERAGE'}", allowed,
                        vector_device(*inputs, params, *device), (kind, *device), exact, key=kind)


@pytest.mark.parametrize("op, params", ROI_CASES[:1], ids=["average"])
def test_float16_devices_inside(op, params):
    """float16 computed in float32 and stored either way: inside with and without the flag; the samples' sums and
    the mean in float16 (the weights held in half): inside with ALLOW_HALF_PRECISION_COMPUTATION."""
    rng = np.random.default_rng(27)
    half_flag = {**params, "ExecutionFlags": "ALLOW_HALF_PRECISION_COMPUTATION"}
    for kind in KINDS:
        inputs = roi_data(rng, kind, "float16")
        inputs = (inputs[0][:, :12], *inputs[1:])
        plain, half = (interval(specs.get(op), inputs, p, "float16") for p in (params, half_flag))
        for device in roi_devices()[::3]:
            computed = vector_device(*inputs, params, *device)
            for stored in dev.ROUNDINGS:
                values = dev.store(computed, "float16", stored).astype(np.float64)
                TALLY.judge(f"{op} float16", plain, values, ("float32", kind, *device, stored))
                TALLY.judge(f"{op} float16", half, values, ("float32", kind, *device, "flag"), count=False)
        for device in roi_devices()[:4]:
            device = (device[0], "nearest", *device[2:4], device[4])
            TALLY.judge(f"{op} float16 in half", half, vector_device(*inputs, params, *device, "float16"),
                        ("float16", kind, *device, "flag"))


def test_a_nan_or_infinity_reaches_only_the_samples_that_read_it():
    """An infinity in the corner of a channel far from the ROI: its outputs are the same numbers as with a 0 there
    (the oracle's weights span the whole input, and 0 * inf was NaN in every sample of the channel); a NaN among a
    sample's taps: NaN; a correct device inside. A tap of weight 0 (a coordinate at an integer) may be read or not:
    NaN or the number."""
    data, rois, batches = _inputs(4)
    rois, batches = np.array([[2, 2, 6, 5]], np.float32), np.zeros(1, np.uint32)
    params = {"OutputSize": [2, 2], "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": 1}
    far, near = data.copy(), data.copy()
    far[0, 0, 8, 10], far[0, 1, 0, 0] = np.inf, np.nan
    near[0, 0, 2, 2] = np.nan  # sample (0, 0) of channel 0 reads rows 1-2, columns 2-3 (coordinate 1.5 - 0.5 + 1)
    zeroed = np.where(np.isfinite(far), far, 0).astype(np.float32)
    got = oracle.evaluate("ROI_ALIGN", (far, rois, batches), "float32", **params)
    assert np.array_equal(got, oracle.evaluate("ROI_ALIGN", (zeroed, rois, batches), "float32", **params)), got[0, :2]
    spread = oracle.evaluate("ROI_ALIGN", (near, rois, batches), "float32", **params)
    assert np.isnan(spread[0, 0, 0, 0]) and np.isfinite(spread[0, 0]).sum() == 3 and np.isfinite(spread[0, 1:]).all()
    for inputs in ((far, rois, batches), (near, rois, batches)):
        device = vector_device(*inputs, params, "sequential", "zero", False, False, "low")
        assert judged("ROI_ALIGN", inputs, params, device.astype(np.float32)) == 0
    # x coordinate 3 exactly (ROI from 2.5 to 4.5, one sample, pixel centres): columns 3 and 4, the second of weight 0
    edge = data.copy()
    edge[0, :, :, 4] = np.inf
    one = {"OutputSize": [1, 1], "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": 1}
    box = np.array([[2.5, 2.5, 4.5, 4.5]], np.float32)
    allowed = interval(specs.get("ROI_ALIGN"), (edge, box, batches), one, "float32")
    assert allowed.nan.all() and allowed.num.all() and np.isfinite(allowed.lo).all(), (allowed.lo, allowed.nan)


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 outputs of ROI_ALIGN and ROI_ALIGN1 (run with them); the line
    printed gives the count and the largest fraction of the bound a device reached."""
    if len(TALLY.checked) < 2:
        pytest.skip("run with the soundness tests of this file")
    TALLY.report()


def test_linear_is_the_default_interpolation():
    assert specs.get("ROI_ALIGN").defaults()["InterpolationMode"] == LINEAR


def test_a_roi_tensor_of_a_rank_the_page_does_not_allow_is_refused_at_load(tmp_path):
    from conformance.caseset.caseload import CaseFileError, load_file
    text = Path("cases/roi_align.yaml").read_text().replace("ROI: [5, 4], BatchIndices: [5]",
                                                            "ROI: [1, 1, 1, 5, 4], BatchIndices: [5]", 1)
    path = tmp_path / "roi_align.yaml"
    path.write_text(text)
    with pytest.raises(CaseFileError) as refused:
        load_file(path)
    assert any("never allows 5 dimensions in ROI" in p and str(path) in p for p in refused.value.problems)


def _exact_sample(image, y, x, fill):
    """The bilinear sample at rational (y, x), DirectML's reading of the edges, in Fractions."""
    rows, cols = len(image), len(image[0])
    if y <= -1 or y >= rows or x <= -1 or x >= cols:
        return fill
    y, x = min(max(y, 0), rows - 1), min(max(x, 0), cols - 1)
    y0, x0 = int(y), int(x)  # floor: both are at least 0
    y1, x1 = min(y0 + 1, rows - 1), min(x0 + 1, cols - 1)
    fy, fx = y - y0, x - x0
    return ((1 - fy) * ((1 - fx) * image[y0][x0] + fx * image[y0][x1])
            + fy * ((1 - fx) * image[y1][x0] + fx * image[y1][x1]))


@pytest.mark.parametrize("function", [AVERAGE, MAX])
def test_every_interval_holds_the_exact_rational_output(function):
    """Independent of float64: each output from the float32 fields and inputs in exact rationals."""
    data, rois, batches = _inputs(3)
    params = {"OutputSize": [2, 3], "ReductionFunction": function, "InputPixelOffset": 0.0, "SpatialScaleX": 0.75,
              "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": 3, "OutOfBoundsInputValue": 2.5}
    inputs = (data, rois, batches)
    allowed = interval(specs.get("ROI_ALIGN1"), inputs, params, "float32")
    shift, offset, fill = Q(0), Q(-1, 2), Q(2.5)
    checked = 0
    for r, roi in enumerate(rois):
        axes = []
        for first, scale, out in ((1, Q(1), 2), (0, Q(float(np.float32(0.75))), 3)):
            start, end = Q(float(roi[first])) * scale, Q(float(roi[first + 2])) * scale
            n = min(max(-((start - end) // out), 1), 3)  # ceil((end - start) / out), clamped
            axes.append([[(s - offset) * (end - start) / (out * n) + start - shift for s in range(o * n, o * n + n)]
                         for o in range(out)])
        for c in range(data.shape[1]):
            image = [[Q(float(v)) for v in row] for row in data[batches[r], c]]
            for oy, ys in enumerate(axes[0]):
                for ox, xs in enumerate(axes[1]):
                    values = [_exact_sample(image, y, x, fill) for y in ys for x in xs]
                    exact = max(values) if function == MAX else sum(values) / len(values)
                    at = (r, c, oy, ox)
                    assert allowed.lo[at] <= exact <= allowed.hi[at], (at, float(exact), allowed.lo[at], allowed.hi[at])
                    checked += 1
    assert checked == 12 * 3 * 6
