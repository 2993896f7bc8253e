"""What ROI_ALIGN and ROI_ALIGN1 share: the fields, the tables, the shape rule and checks, the ONNX route
(RoiAlign-16, as ONNX Runtime's DirectML provider maps it onto ROI_ALIGN1) and the formula as accumulation
steps (oracle/roi_aligning.py writes the page's pseudocode).

The bound: every sample's interpolation is a sum of at most 4 products (weight x element) whose weights the device
computes from float32 coordinates; each coordinate is within COORDINATE_ROUNDINGS units of roundoff of the
magnitudes of its formula's terms (X1 and X2 from the ROI times the scale, their difference, the division by
OutputSize * n, the product with (s - OutputPixelOffset), the adds), and the exact value's range over those
coordinates joins the bound (Dot.spread, as RESAMPLE's LINEAR). AVERAGE is then one sum over the samples' taps
divided by the count: gamma(10 + n + 1) (the interpolation's 10 operations, RESAMPLE's 2^D + 3D, the n - 1 adds
of the samples, the division as a reciprocal and a product) times the mean of the elements' magnitudes. MAX is
Direct3D's max (exact) of the samples' own intervals, each gamma(10). The count n = clamp(ceil((X2 - X1) /
OutputSize)) is computed in float32 too: where its roundoff may carry it to the next integer, both counts are
alternatives (the union)."""
import itertools

import numpy as np

from conformance.specs.accumulation import Dot, Extreme
from conformance.specs.base import (FLOATS, Input, NotReachable, OnnxNode, Output, Parameter, SupportTable,
                                    execution_flags)
from conformance.specs.primitives import input_
from conformance.specs.resampling import INTERPOLATION, NEAREST
from oracle import roi_aligning as o
from oracle.reduce import FUNCTIONS

_U = 2.0 ** -23
_FLUSHED = 2.0 ** -126
COORDINATE_ROUNDINGS = 6
_INTERPOLATION_OPERATIONS = 10  # 2^2 products and adds, 3 x 2 weight operations (RESAMPLE's 2^D + 3D)

REDUCTION = Parameter("ReductionFunction", "enum", o.AVERAGE,
                      "A DML_REDUCE_FUNCTION: AVERAGE or MAX, over all the input samples that contribute to an "
                      "output element (their number bounded by MinimumSamplesPerOutput and MaximumSamplesPerOutput).",
                      choices=(o.AVERAGE, o.MAX), enum_values={f: FUNCTIONS.index(f) for f in (o.AVERAGE, o.MAX)})
INTERPOLATION_MODE = Parameter("InterpolationMode", "enum", o.LINEAR,
                               "A DML_INTERPOLATION_MODE: NEAREST_NEIGHBOR chooses the input element nearest to the "
                               "sample's coordinate; LINEAR the weighted average of the 2 x 2 nearest elements.",
                               choices=INTERPOLATION.choices, enum_values=INTERPOLATION.enum_values)


def scale(axis: str, size: str) -> Parameter:
    return Parameter(f"SpatialScale{axis}", "float", 1.0,
                     f"The {axis} component of the factor the ROI coordinates are multiplied by to make them "
                     f"proportionate to the input (normalized ROIs: usually {size}).")


OUT_OF_BOUNDS = Parameter("OutOfBoundsInputValue", "float", 0.0,
                          "The value read from InputTensor where the ROIs (scaled) reach outside its bounds.")
MINIMUM = Parameter("MinimumSamplesPerOutput", "uint", 1,
                    "The minimum number of input samples per output element along each axis: the count is "
                    "ScaledCropSize / OutputSize clamped to [Minimum, Maximum].")
MAXIMUM = Parameter("MaximumSamplesPerOutput", "uint", o.UINT32_MAX,
                    "The maximum number of input samples per output element along each axis (Minimum = Maximum: a "
                    "fixed count, ONNX's sampling_ratio).")
PIXEL_OFFSETS = (Parameter("InputPixelOffset", "float", 0.5,
                           "The offset subtracted from the scaled region's coordinates: 0.5 treats pixels as their "
                           "centres (DML_ROI_ALIGN's behaviour, ONNX's half_pixel), 0 as their top left corners."),
                 Parameter("OutputPixelOffset", "float", -0.5,
                           "The offset of the output samples: -0.5 samples at their centres (DML_ROI_ALIGN's "
                           "behaviour), 0 at their top left corners."))
CORNERS = Parameter("AlignRegionsToCorners", "int", 0,
                    "A BOOL: the output sample points stretched to the very corners of the region rather than spread "
                    "evenly within it (FALSE, the default: DML_ROI_ALIGN's behaviour).")
OUTPUT_SIZE = Parameter("OutputSize", "uint_array", None,
                        "No field: OutputTensor's [OutputHeight, OutputWidth] (its last two sizes); required.",
                        sizes_of="OutputTensor")
BATCH_INDICES_TYPE = Parameter("BatchIndicesType", "tensor_type", None,
                               "No field: BatchIndicesTensor's data type (UINT32 where the case gives none; UINT64 "
                               "from DML_FEATURE_LEVEL_5_0).", choices=("uint32", "uint64"),
                               unset=lambda dtype: "uint32", tensors=("BatchIndicesTensor",))
FIELDS_BEFORE = (REDUCTION, INTERPOLATION_MODE, scale("X", "InputWidth"), scale("Y", "InputHeight"))
NO_FIELDS = (OUTPUT_SIZE, BATCH_INDICES_TYPE, execution_flags())
INPUTS = (Input("InputTensor", broadcast=False, aliases_output=False),
          Input("ROITensor", role="rois", broadcast=False, aliases_output=False, ranks=(2, 3, 4)),
          Input("BatchIndicesTensor", role="indices", broadcast=False, aliases_output=False,
                dtype=lambda dtype: "uint32", ranks=(1, 2, 3, 4)))


def tables(first_level: str) -> tuple:
    """InputTensor and OutputTensor: 4-D FLOAT32 and FLOAT16 (ROITensor their type, 2 to 4-D; BatchIndicesTensor
    1 to 4-D UINT32, UINT64 from 5_0: BatchIndicesType's level)."""
    return (SupportTable("5_0", (4,), FLOATS), SupportTable(first_level, (4,), FLOATS))


def parameter_level(params) -> str | None:
    return "5_0" if params.get("BatchIndicesType") == "uint64" else None


def output_shapes(input_shapes, params) -> tuple:
    """{NumROIs, ChannelCount, OutputHeight, OutputWidth}."""
    height, width = params["OutputSize"]
    return ((input_shapes[1][-2], input_shapes[0][1], height, width),)


def shape_check(input_shapes, params) -> str | None:
    data, rois, batches = input_shapes
    if len(data) != 4:
        return f"InputTensor has {len(data)} dimensions: {{BatchCount, ChannelCount, InputHeight, InputWidth}}"
    if not 2 <= len(rois) <= 4 or rois[-1] != 4 or any(n != 1 for n in rois[:-2]):
        return f"ROITensor {list(rois)}: the page allows {{NumROIs, 4}}, {{1, NumROIs, 4}} or {{1, 1, NumROIs, 4}}"
    if not 1 <= len(batches) <= 4 or any(n != 1 for n in batches[:-1]) or batches[-1] != rois[-2]:
        return (f"BatchIndicesTensor {list(batches)}: the page allows {{NumROIs}} to {{1, 1, 1, NumROIs}}, NumROIs "
                f"{rois[-2]} as ROITensor's")
    size = params.get("OutputSize")
    if size is None or len(size) != 2 or min(size) < 1:
        return f"OutputSize {size}: [OutputHeight, OutputWidth], each at least 1"
    low, high = params.get("MinimumSamplesPerOutput", 1), params.get("MaximumSamplesPerOutput", o.UINT32_MAX)
    if not 1 <= low <= high:
        return (f"MinimumSamplesPerOutput {low}, MaximumSamplesPerOutput {high}: 1 <= Minimum <= Maximum (a count of "
                "0 has no average)")
    if params.get("AlignRegionsToCorners", 0) not in (0, 1):
        return f"AlignRegionsToCorners {params['AlignRegionsToCorners']}: a BOOL, 0 or 1"
    return None


def values_check(name: str, values, input_shapes, params) -> str | None:
    """ROIs of finite coordinates (the batch indices are an index input: within [0, BatchCount))."""
    if name == "ROI" and values is not None and not np.isfinite(np.asarray(values, dtype=np.float64)).all():
        return "ROI: coordinates must be finite numbers"
    return None


def index_bounds(input_shapes, params):
    """Each batch index addresses a batch of InputTensor."""
    return np.int64(input_shapes[0][0])


def onnx_shapes(input_shapes, params) -> tuple:
    """RoiAlign takes the ROIs as (num_rois, 4) and the batch indices as (num_rois,)."""
    return (input_shapes[0], tuple(input_shapes[1][-2:]), (input_shapes[2][-1],))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """RoiAlign-16, mapped as ONNX Runtime's DirectML provider maps it onto ROI_ALIGN1."""
    fields = {**o.DEFAULTS, **o.ALIGN_DEFAULTS, **params}
    sx, sy = (float(np.float32(fields[f"SpatialScale{a}"])) for a in "XY")
    transform = {0.5: "half_pixel", 0.0: "output_half_pixel"}.get(float(np.float32(fields["InputPixelOffset"])))
    low, high = fields["MinimumSamplesPerOutput"], fields["MaximumSamplesPerOutput"]
    why = ("InterpolationMode NEAREST_NEIGHBOR: RoiAlign is bilinear" if fields["InterpolationMode"] == NEAREST else
           f"SpatialScaleX {sx} and SpatialScaleY {sy}: RoiAlign has one spatial_scale" if sx != sy else
           "OutOfBoundsInputValue: RoiAlign has none (ONNX Runtime's DirectML provider passes 0)"
           if fields["OutOfBoundsInputValue"] != 0 else
           "OutputPixelOffset other than -0.5: RoiAlign samples at bin centres"
           if float(np.float32(fields["OutputPixelOffset"])) != -0.5 else
           "InputPixelOffset other than 0.5 (half_pixel) or 0 (output_half_pixel)" if transform is None else
           "AlignRegionsToCorners: RoiAlign has no such mode" if fields["AlignRegionsToCorners"] else
           f"MinimumSamplesPerOutput {low}, MaximumSamplesPerOutput {high}: sampling_ratio is a fixed count (Min = "
           f"Max) or 0, adaptive (Min 1, Max UINT32_MAX)" if low != high and (low, high) != (1, o.UINT32_MAX) else
           None)
    if why:
        raise NotReachable(why)
    height, width = params["OutputSize"]
    attributes = {"mode": "max" if fields["ReductionFunction"] == o.MAX else "avg", "output_height": int(height),
                  "output_width": int(width), "sampling_ratio": int(low) if low == high else 0,
                  "spatial_scale": sx, "coordinate_transformation_mode": transform}
    return OnnxNode("RoiAlign", 16, attributes, input_types=(dtype, dtype, "int64"), alone=True)


# The judge's steps ---------------------------------------------------------------------------------------------

def _error(values, u=_U) -> np.ndarray:
    return COORDINATE_ROUNDINGS * u * values


def _counts(start: float, end: float, out: int, fields: dict) -> tuple:
    """(fewer, more): the sample counts a float32 (X2 - X1) / OutputSize may round to (equal: one)."""
    ratio = (end - start) / out
    slack = 0.0 if start == end else float(_error((abs(start) + abs(end)) / out + abs(ratio)))
    low, high = fields["MinimumSamplesPerOutput"], fields["MaximumSamplesPerOutput"]
    return tuple(int(min(max(np.ceil(ratio + d), low), high)) for d in (-slack, slack))


def _candidates(start, end, out, n, fields, linear) -> tuple:
    """(exact coordinates, [(coordinates, rounding), ...]): each sample's coordinate at both ends of its float32
    error, and an integer between (linear: its kink); nearest: each end rounded either way at halves."""
    c = o.coordinates(start, end, out, n, fields)
    shift, offset = abs(float(np.float32(fields["InputPixelOffset"]))), float(np.float32(fields["OutputPixelOffset"]))
    product = c + float(np.float32(fields["InputPixelOffset"])) - start
    error = _error((abs(start) + abs(end) + np.abs(product) + shift + np.abs(c)) * (1 + abs(offset))) + _FLUSHED
    # an empty region: every coordinate X1 - InputPixelOffset (the difference 0), exact where X1 and it are float32
    if start == end and float(np.float32(start)) == start and np.all(c.astype(np.float32) == c):
        error = np.zeros_like(c)
    if np.any(error >= 0.5):
        raise ValueError(f"ROI coordinates up to {np.abs(c).max():g}: their float32 rounding spans more than one "
                         "input element")
    ends = (c - error, c + error)
    if linear:
        between = np.ceil(c - error)
        return c, [(e, o.HALF_UP) for e in ends + (np.where(between < c + error, between, c),)]
    return c, [(e, rounding) for e in ends for rounding in (o.HALF_UP, o.HALF_DOWN)]


_MEMO = {}  # the tables of the last inputs, by rule and counts: the Dot reads each part, the alternatives repeat


def table(inputs, params, rule, more) -> dict:
    """Every sample of every ROI, padded to the most samples of any ROI (NaN there): exact, magnitude, reach
    (the exact value's range over its coordinates' error), and each ROI's count; more: per axis (Y, X) whether
    the larger of two possible counts is taken."""
    data, rois, batches = (np.ascontiguousarray(v) for v in inputs)
    key = (data.tobytes(), data.shape, data.dtype.str, rois.tobytes(), rois.dtype.str,
           batches.astype(np.int64).tobytes(), tuple(sorted((k, repr(v)) for k, v in params.items())))
    if _MEMO.get("key") != key:
        _MEMO.clear()
        _MEMO["key"] = key
    plans = _plans(inputs, params, more)
    chosen = (rule, tuple((a[0][2], a[1][2]) for _, a in plans))
    if chosen not in _MEMO:
        _MEMO[chosen] = _compute_table(inputs, params, rule, plans)
    return _MEMO[chosen]


def _plans(inputs, params, more) -> list:
    """Per ROI: (batch, ((Y1, Y2, n_y, height), (X1, X2, n_x, width)))."""
    fields = {**o.DEFAULTS, **o.ALIGN_DEFAULTS, **params}
    data, rois, batches = inputs
    out = tuple(int(v) for v in fields["OutputSize"])
    plans = []
    for roi, batch in zip(np.asarray(rois, dtype=np.float64).reshape(-1, 4),
                          np.asarray(batches).reshape(-1).astype(np.int64)):
        axes = []
        for first, axis, size, bigger in ((1, "Y", np.shape(data)[2], more[0]), (0, "X", np.shape(data)[3], more[1])):
            start, end = o.region(roi, first, fields[f"SpatialScale{axis}"])
            n = _counts(start, end, out[len(axes)], fields)[int(bigger)]
            axes.append((start, end, n, size))
        plans.append((batch, tuple(axes)))
    return plans


def _compute_table(inputs, params, rule, plans) -> dict:
    fields = {**o.DEFAULTS, **o.ALIGN_DEFAULTS, **params}
    data = np.asarray(inputs[0], dtype=np.float64)
    out = tuple(int(v) for v in fields["OutputSize"])
    linear = fields["InterpolationMode"] == o.LINEAR
    ny = max((a[0][2] for _, a in plans), default=1)
    nx = max((a[1][2] for _, a in plans), default=1)
    shape = (len(plans), data.shape[1], out[0], ny, out[1], nx)
    exact, magnitude, reach = np.full(shape, np.nan), np.zeros(shape), np.zeros(shape)
    number, nan, up, down = (np.zeros(shape, bool) for _ in range(4))  # padded samples: none of them
    counts = np.ones((len(plans), 1, 1, 1))
    for r, (batch, ((y1, y2, my, hy), (x1, x2, mx, hx))) in enumerate(plans):
        image = o.padded(data[batch], fields["OutOfBoundsInputValue"])
        finite = np.where(np.isfinite(image), image, 0.0)
        cy, ys = _candidates(y1, y2, out[0], my, fields, linear)
        cx, xs = _candidates(x1, x2, out[1], mx, fields, linear)
        corners = bool(fields["AlignRegionsToCorners"])
        wy, wx = o.weights(cy, hy, linear, rule, corners=corners), o.weights(cx, hx, linear, rule, corners=corners)
        centre, plain = o.samples(image, wy, wx), o.samples(finite, wy, wx)
        far, big = np.zeros(centre.shape), np.zeros(centre.shape)
        sets = [np.zeros(centre.shape, bool) for _ in range(4)]  # number, NaN, +inf, -inf over the candidates
        every_y = [o.weights(py, hy, linear, rule, ry, corners) for py, ry in ys]
        every_x = [o.weights(px, hx, linear, rule, rx, corners) for px, rx in xs]
        touched = None if np.isfinite(image).all() else \
            [_touched(candidates, size, linear, rule, corners) for candidates, size in ((ys, hy), (xs, hx))]
        for wy, wx in itertools.product(every_y, every_x):
            far = np.maximum(far, np.abs(o.samples(finite, wy, wx) - plain))
            big = np.maximum(big, o.samples(finite, wy, wx, magnitude=True))
            if touched is not None:
                sets = _reached(sets, image, touched, wy, wx)
        if np.isfinite(image).all():
            sets[0] = np.ones(centre.shape, bool)
        for array, chosen in zip((number, nan, up, down), sets):
            array[r, :, :, :my, :, :mx] = chosen
        exact[r, :, :, :my, :, :mx] = centre
        reach[r, :, :, :my, :, :mx] = far
        magnitude[r, :, :, :my, :, :mx] = big
        counts[r] = my * mx
    return {"exact": exact, "magnitude": magnitude, "reach": reach, "counts": counts,
            "sets": (number, nan, up, down)}


def _touched(candidates, size, linear, rule, corners) -> np.ndarray:
    """The elements a device's taps may read around any of the candidate coordinates (one perhaps with weight 0):
    those of nonzero weight half a pixel either side."""
    return sum((o.weights(c + d, size, linear, rule, rounding, corners) != 0).astype(np.float64)
               for c, rounding in candidates for d in (-0.5, 0.0, 0.5)) > 0


def _reached(sets, image, touched, wy, wx) -> list:
    """The IEEE values a sample may take at one corner of its coordinates' box (a NaN or infinity of nonzero weight
    gives itself; oracle.samples), and NaN where an element the taps may touch is a NaN or an infinity these weights
    do not read (read with weight 0: 0 * inf)."""
    v = o.samples(image, wy, wx)
    bad = (~np.isfinite(image)).astype(np.float64)
    read = [(w != 0).astype(np.float64) for w in (wy, wx)]
    zero_weight = o.contract(*[t.astype(np.float64) for t in touched], bad) > o.contract(*read, bad)
    return [sets[0] | np.isfinite(v), sets[1] | np.isnan(v) | zero_weight, sets[2] | (v == np.inf),
            sets[3] | (v == -np.inf)]


def _mean(values, counts) -> np.ndarray:
    return np.nansum(values, axis=(3, 5)) / counts if values.size else values.sum(axis=(3, 5))


def average_step(rule: str, more: tuple) -> Dot:
    def part(name):
        def read(inputs, params):
            t = table(inputs, params, rule, more)
            values = np.where(np.isnan(t["exact"]), np.nan, t[name]) if name != "exact" else t[name]
            return _mean(values, t["counts"])
        return read

    def count(inputs, params):
        return _INTERPOLATION_OPERATIONS + table(inputs, params, rule, more)["counts"] + 1

    def sets(inputs, params):
        """The mean's IEEE values over the samples': a number where each may be one, NaN where one may be NaN or
        one +inf and another -inf, an infinity where one may be (padded samples: a number)."""
        t = table(inputs, params, rule, more)
        number, nan, up, down = t["sets"]
        number = (number | ~(nan | up | down)).all(axis=(3, 5))  # a padded sample is none of them
        up, down = up.any(axis=(3, 5)), down.any(axis=(3, 5))
        return number, nan.any(axis=(3, 5)) | (up & down), up, down
    return Dot("Output", part("exact"), part("magnitude"), count, part("reach"), sets)


def samples_step(rule: str, more: tuple) -> Dot:
    def part(name):
        return lambda inputs, params: table(inputs, params, rule, more)[name]
    return Dot("Samples", part("exact"), part("magnitude"), lambda inputs, params: _INTERPOLATION_OPERATIONS,
               part("reach"), part("sets"))


def _over_samples(params):
    return lambda array, ufunc: ufunc.reduce(ufunc.reduce(array, axis=5), axis=3)


def accumulation(params) -> tuple:
    """One alternative per reading of OutOfBoundsInputValue (LINEAR: oracle/roi_aligning.RULES) and per pair of
    possible sample counts; AVERAGE: one sum; MAX: the samples, then their maximum."""
    rules = o.RULES if params.get("InterpolationMode", o.LINEAR) == o.LINEAR else (o.SAMPLES,)
    alternatives = []
    for rule, more in itertools.product(rules, itertools.product((False, True), repeat=2)):
        if params.get("ReductionFunction", o.AVERAGE) == o.MAX:
            alternatives.append((samples_step(rule, more),
                                 Extreme("Output", input_("Samples"), _over_samples, True)))
        else:
            alternatives.append((average_step(rule, more),))
    return tuple(alternatives)


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """No WebNN roiAlign: RESAMPLE's bilinear count (WebNN's resample2d linear, 84 float32, 10 float16), the sound
    bound deciding"""
    return {"float32": 84, "float16": 10}.get(dtype, 0)


OUTPUTS = (Output("OutputTensor"),)
SAME_TYPE = ("InputTensor, OutputTensor, and ROITensor must have the same DataType. The tables: ROITensor 2 to 4 "
             "dimensions ({NumROIs, 4}, {1, NumROIs, 4}, {1, 1, NumROIs, 4}), BatchIndicesTensor 1 to 4 ({NumROIs} to "
             "{1, 1, 1, NumROIs}).")
NOTES = (
    "The page's pseudocode (ROI_ALIGN1's) errs twice: outputSampleToInputScaleY is computed from X's sizes (Y's are "
    "meant) and the sample loops run `to <=` (n + 1 samples): the harness takes Y's sizes and n samples.",
    "The page does not say how ScaledCropSize / OutputSize becomes a whole count: rounded up (ONNX's adaptive "
    "sampling_ratio, which ONNX Runtime's DirectML provider maps to Minimum 1, Maximum UINT32_MAX); where float32 "
    "roundoff may carry the ratio past an integer, both counts are accepted.",
    "OutOfBoundsInputValue: the page reads it 'when the ROIs are outside the bounds'; both readings are accepted: "
    "a sample at x <= -1 or x >= size (AlignRegionsToCorners: x < 0 or x > size - 1) is the value, else clamped into "
    "the input (the oracle's: DirectML's on lavapipe, ONNX's up to its boundary points), or each of the 2 x 2 "
    "elements outside the input read as the value.",
    "NEAREST_NEIGHBOR: the element nearest to the sample's coordinate, halves either way (the page is silent).",
    "AlignRegionsToCorners: the page's pseudocode does not use it; its field text: the samples stretched to the "
    "region's corners, read as DirectML computes it on lavapipe: x = (s - OutputPixelOffset) * (X2 - X1) / "
    "(OutputWidth * n - 1) + X1 - InputPixelOffset; one sample in the row: (X1 + X2) / 2 - InputPixelOffset.",
    "Judged by the sound interval of its steps (conformance specs shows them): AVERAGE within gamma(n + 11) of the "
    "mean of the samples' element magnitudes plus the range of the exact value over the float32 coordinates' "
    "error; MAX: each sample within gamma(10) and that range, then Direct3D's max. float16 is summed in float32 "
    "unless ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION.",
    "MAX through ONNX Runtime's CPU provider is no reference: it takes the maximum of the four weighted corner "
    "values, not of the interpolated samples (onnx/onnx#4764).",
)
