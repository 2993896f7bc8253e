"""What DML_ROI_ALIGN and DML_ROI_ALIGN1 share: the ROI_ALIGN1 page's pseudocode, in float64 from the float32
fields and the given ROIs (ROI_ALIGN is ROI_ALIGN1 with InputPixelOffset 0.5, OutputPixelOffset -0.5 and
AlignRegionsToCorners FALSE, as that page says). For ROI r = [x1, y1, x2, y2] of batch BatchIndices[r]:

    X1 = x1 * SpatialScaleX, X2 = x2 * SpatialScaleX        (Y alike with SpatialScaleY)
    n  = clamp(ceil((X2 - X1) / OutputWidth), MinimumSamplesPerOutput, MaximumSamplesPerOutput)
    sample s of the row (0 <= s < OutputWidth * n; output X takes s = X * n .. X * n + n - 1):
        x = (s - OutputPixelOffset) * (X2 - X1) / (OutputWidth * n) + X1 - InputPixelOffset
    AlignRegionsToCorners: x = (s - OutputPixelOffset) * (X2 - X1) / (OutputWidth * n - 1) + X1 - InputPixelOffset
        (the samples stretched to the region's corners; one sample in the row: (X1 + X2) / 2 - InputPixelOffset), as
        DirectML computes it on lavapipe: the page's pseudocode does not use the field

and each output the average (or the maximum, Direct3D's) over its n_Y * n_X samples of interpolate2D at (x, y).
Where the page errs or is silent (the specs' notes): the sample loops run n times (the page's `<=` would run n + 1);
outputSampleToInputScaleY is Y's (the page computes it from X's sizes); the count rounds up (ceil, as ONNX's
adaptive sampling_ratio, which ONNX Runtime's DirectML provider maps to Min 1, Max UINT32_MAX); LINEAR reads
the 2 x 2 elements around (x, y) with the sample OutOfBoundsInputValue where x <= -1 or x >= width (y alike;
AlignRegionsToCorners: x < 0 or x > width - 1), else clamped into the input (RULES: "samples", ONNX's reading up
to its boundary points (x < -1 or x > width), and DirectML's on lavapipe, docs/findings/issue26-roi_align.md);
"taps" is the other reading of the page: each of the 2 x 2 elements outside the input read as
OutOfBoundsInputValue. NEAREST_NEIGHBOR reads the element at
floor(x + 0.5) (halves up; HALF_DOWN the other way), OutOfBoundsInputValue where that is outside the input."""
import math

import numpy as np

from oracle.reduce import PREFIX
from oracle.resampling import LINEAR

AVERAGE, MAX = PREFIX + "AVERAGE", PREFIX + "MAX"
TAPS, SAMPLES = "taps", "samples"  # the readings of OutOfBoundsInputValue (above)
RULES = (SAMPLES, TAPS)
UINT32_MAX = 2 ** 32 - 1  # Min 1, Max UINT32_MAX: the count the region decides (ONNX Runtime's adaptive sampling)
HALF_UP, HALF_DOWN = np.floor, np.ceil  # nearest neighbour: floor(x + 0.5), ceil(x - 0.5)
# ROI_ALIGN1's fields with ROI_ALIGN's behaviour (the ROI_ALIGN1 page)
ALIGN_DEFAULTS = {"InputPixelOffset": 0.5, "OutputPixelOffset": -0.5, "AlignRegionsToCorners": 0}
DEFAULTS = {"ReductionFunction": AVERAGE, "InterpolationMode": LINEAR, "SpatialScaleX": 1.0, "SpatialScaleY": 1.0,
            "OutOfBoundsInputValue": 0.0, "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": UINT32_MAX,
            "OutputSize": None, "BatchIndicesType": None, "ExecutionFlags": "NONE"}
TYPE_FIELDS = ("BatchIndicesType",)


def f32(value) -> float:
    return float(np.float32(value))


def region(roi, first: int, scale) -> tuple:
    """(X1, X2) of one axis: first 0 for x, 1 for y; the products of float32 values, exact in float64."""
    return float(roi[first]) * f32(scale), float(roi[first + 2]) * f32(scale)


def sample_count(start: float, end: float, out: int, fields: dict) -> int:
    """n = clamp(ceil((end - start) / out), Min, Max)."""
    ratio = (end - start) / out
    return int(min(max(math.ceil(ratio), fields["MinimumSamplesPerOutput"]), fields["MaximumSamplesPerOutput"]))


def coordinates(start: float, end: float, out: int, n: int, fields: dict) -> np.ndarray:
    """Each sample's input coordinate, (out, n): output index, its sample."""
    s = np.arange(out * n, dtype=np.float64)
    shift = f32(fields["InputPixelOffset"])
    if fields.get("AlignRegionsToCorners") and out * n == 1:
        return np.full((out, n), (start + end) / 2 - shift)
    count = out * n - 1 if fields.get("AlignRegionsToCorners") else out * n
    return ((s - f32(fields["OutputPixelOffset"])) * (end - start) / count + start - shift).reshape(out, n)


def weights(c: np.ndarray, size: int, linear: bool, rule: str = SAMPLES, rounding=HALF_UP,
            corners=False) -> np.ndarray:
    """c's interpolation weights over the axis's elements and one more slot (index size) for
    OutOfBoundsInputValue: shape c.shape + (size + 1,); corners: AlignRegionsToCorners (samples outside [0, size - 1]
    are outside the input)."""
    w = np.zeros(c.shape + (size + 1,))
    put = np.put_along_axis
    if not linear:
        i = (rounding(c + 0.5) if rounding is HALF_UP else rounding(c - 0.5)).astype(np.int64)
        put(w, np.where((i >= 0) & (i < size), i, size)[..., None], 1.0, axis=-1)
        return w
    if rule == SAMPLES:
        outside = (c < 0) | (c > size - 1) if corners else (c <= -1) | (c >= size)
        c = np.clip(c, 0, size - 1)
    first = np.floor(c)
    f = c - first
    for index, weight in ((first, 1 - f), (first + 1, f)):
        index = index.astype(np.int64)
        if rule == SAMPLES:
            index = np.minimum(index, size - 1)
        slot = np.where((index >= 0) & (index < size), index, size)[..., None]
        np.add.at(w, tuple(np.indices(slot.shape[:-1])) + (slot[..., 0],), weight)
    if rule == SAMPLES:
        w[outside] = 0.0
        w[outside, size] = 1.0
    return w


def padded(image: np.ndarray, fill: float) -> np.ndarray:
    """(C, H, W) with a last row and column of OutOfBoundsInputValue."""
    c, h, w = image.shape
    out = np.full((c, h + 1, w + 1), f32(fill))
    out[:, :h, :w] = image
    return out


def samples(image, wy, wx, magnitude=False) -> np.ndarray:
    """Every sample's interpolation (C, out_y, n_y, out_x, n_x); magnitude: sum |weight * element| instead. An
    element of weight 0 is no term of a sample (the weights span the whole input: a NaN or an infinity elsewhere
    in the channel does not reach it); one of nonzero weight gives its NaN or infinity (+inf and -inf: NaN)."""
    if magnitude:
        return contract(np.abs(wy), np.abs(wx), np.abs(image))
    finite = np.isfinite(image)
    if finite.all():
        return contract(wy, wx, image)
    out = contract(wy, wx, np.where(finite, image, 0.0))
    read = [(w != 0).astype(np.float64) for w in (wy, wx)]
    up, down, nan = (contract(*read, mask.astype(np.float64)) > 0
                     for mask in (image == np.inf, image == -np.inf, np.isnan(image)))
    return np.where(nan | (up & down), np.nan, np.where(up, np.inf, np.where(down, -np.inf, out)))


def contract(wy, wx, image) -> np.ndarray:
    """sum over i, j of wy[y, s, i] * wx[x, t, j] * image[c, i, j]: (C, y, s, x, t), by two matrix products."""
    (y, s, i), (x, t, j) = wy.shape, wx.shape
    out = wy.reshape(y * s, i) @ (image @ wx.reshape(x * t, j).T)
    return out.reshape(image.shape[0], y, s, x, t)


def plan(shapes, rois, out_size, fields) -> list:
    """Per ROI: (batch slot r, (Y1, Y2, n_y), (X1, X2, n_x))."""
    height, width = out_size
    chosen = []
    for roi in np.asarray(rois, dtype=np.float64).reshape(-1, 4):
        y1, y2 = region(roi, 1, fields["SpatialScaleY"])
        x1, x2 = region(roi, 0, fields["SpatialScaleX"])
        chosen.append(((y1, y2, sample_count(y1, y2, height, fields)), (x1, x2, sample_count(x1, x2, width, fields))))
    return chosen


def align(x, fields: dict, rule: str = SAMPLES, rounding=HALF_UP, reduced=True):
    """The page's outputs (NumROIs, C, out_y, out_x), or reduced=False: the samples of each ROI, a list of
    (C, out_y, n_y, out_x, n_x) arrays."""
    data, rois, batches = x
    data = np.asarray(data, dtype=np.float64)
    out_y, out_x = fields["OutputSize"]
    linear = fields["InterpolationMode"] == LINEAR
    every = []
    for ((y1, y2, ny), (x1, x2, nx)), batch in zip(plan(data.shape, rois, (out_y, out_x), fields),
                                                 np.asarray(batches).reshape(-1).astype(np.int64)):
        corners = bool(fields["AlignRegionsToCorners"])
        wy = weights(coordinates(y1, y2, out_y, ny, fields), data.shape[2], linear, rule, rounding, corners)
        wx = weights(coordinates(x1, x2, out_x, nx, fields), data.shape[3], linear, rule, rounding, corners)
        every.append(samples(padded(data[batch], fields["OutOfBoundsInputValue"]), wy, wx))
    if not reduced:
        return every
    return np.stack([reduce(s, fields["ReductionFunction"]) for s in every]) if every else \
        np.zeros((0, data.shape[1], out_y, out_x))


def reduce(s: np.ndarray, function: str) -> np.ndarray:
    """A ROI's samples (C, out_y, n_y, out_x, n_x) averaged or maximised (Direct3D's max: NaN yields the other)."""
    if function == MAX:
        return np.fmax.reduce(np.fmax.reduce(s, axis=4), axis=2)
    return s.mean(axis=(2, 4))


def output_dtype(dtype: str, BatchIndicesType=None) -> str:
    return dtype
