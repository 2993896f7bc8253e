"""DML_ROI_POOLING: a max pool over each region of interest, transcribed from the page.

For ROI r = [BatchID, RoiX1, RoiY1, RoiX2, RoiY2] (ROITensor {1, 1, NumROIs, 5}) and output element
{r, c, Y, X} of {NumROIs, ChannelCount, PooledSize.Height, PooledSize.Width}:

    x1 = round(RoiX1 * SpatialScale)           y1 = round(RoiY1 * SpatialScale)   (x2, y2 alike)
    RegionHeight = y2 - y1 + 1                 RegionWidth = x2 - x1 + 1
    StartY = (Y * RegionHeight) / PooledSize.Height + y1
    EndY = ((Y + 1) * RegionHeight + PooledSize.Height - 1) / PooledSize.Height + y1   (X alike)

the divisions integer ones (the page's operands are integers), out-of-bounds coordinates clamped to
the input's boundaries ([0, height] for StartY and the exclusive EndY), and the output the maximum of
Input[BatchID, c, StartY:EndY, StartX:EndX]. Choices where the page is silent (the spec's notes):
`round` halves away from zero (C's round), the product RoiX1 * SpatialScale in float64 (both are
float32 values: exact); a bin left empty by the clamping gives 0; a NaN compares as Direct3D's max
(oracle.minmax). A copy of an input element: READS_BITS."""
import numpy as np

OPERATOR = "ROI_POOLING"
DEFAULTS = {"SpatialScale": 1.0, "PooledSize": None}
READS_BITS = True
OWN_SHAPES = True


def round_half_away(value):
    return np.sign(value) * np.floor(np.abs(value) + 0.5)


def bins(roi, size: int, pooled: int, scale: float, lower: int, upper: int, rounding=round_half_away) -> tuple:
    """(start, end) of each of `pooled` bins along one dimension of `size`: lower, upper the ROI's
    corner coordinates (RoiY1, RoiY2) as given; rounding: the page's round."""
    first = int(rounding(float(np.float32(roi[lower])) * float(np.float32(scale))))
    last = int(rounding(float(np.float32(roi[upper])) * float(np.float32(scale))))
    region = last - first + 1
    index = np.arange(pooled)
    start = (index * region) // pooled + first
    end = ((index + 1) * region + pooled - 1) // pooled + first
    return np.clip(start, 0, size), np.clip(end, 0, size)


def regions(x, rois, SpatialScale, PooledSize, rounding=round_half_away, rule=None):
    """Per ROI: (batch, (StartY, EndY), (StartX, EndX)), each a pair of arrays over the pooled bins;
    rule: the bins of one dimension (bins, by default)."""
    rule = rule or bins
    width, height = PooledSize
    _, _, input_height, input_width = x.shape
    for roi in np.asarray(rois, dtype=np.float64).reshape(-1, 5):
        yield (int(roi[0]), rule(roi, input_height, height, SpatialScale, 2, 4, rounding),
               rule(roi, input_width, width, SpatialScale, 1, 3, rounding))


def reference(x, dtype: str, nan_rule="d3d", SpatialScale=1.0, PooledSize=None) -> np.ndarray:
    data, rois = x
    which = sources(data, rois, SpatialScale, PooledSize, nan_rule)
    out = np.zeros(which.shape, dtype=data.dtype)
    out[which >= 0] = data.reshape(-1)[which[which >= 0]]
    return out


def sources(data, rois, SpatialScale, PooledSize, nan_rule="d3d", rounding=round_half_away, rule=None) -> np.ndarray:
    """The flat index into InputTensor of the element each output element copies (the first maximum of
    its bin in row-major order), -1 for an empty bin."""
    width, height = PooledSize
    channels = data.shape[1]
    count = int(np.size(rois)) // 5
    which = np.full((count, channels, height, width), -1, dtype=np.int64)
    flat = np.arange(data.size).reshape(data.shape)
    for r, (batch, (ys, ye), (xs, xe)) in enumerate(regions(data, rois, SpatialScale, PooledSize, rounding, rule)):
        for i in range(height):
            for j in range(width):
                if ys[i] >= ye[i] or xs[j] >= xe[j]:
                    continue
                window = data[batch, :, ys[i]:ye[i], xs[j]:xe[j]].reshape(channels, -1)
                places = flat[batch, :, ys[i]:ye[i], xs[j]:xe[j]].reshape(channels, -1)
                best, at = window[:, 0], places[:, 0]
                for k in range(1, window.shape[1]):
                    later = _later_wins(best, window[:, k], nan_rule)
                    best, at = np.where(later, window[:, k], best), np.where(later, places[:, k], at)
                which[r, :, i, j] = at
    return which


def _later_wins(a, b, nan_rule) -> np.ndarray:
    """Where Direct3D's max of a (the maximum so far) and b is b's element: b larger; +0 over -0; a NaN
    yields the other operand (nan_rule d3d) or wins (propagate). Equal values keep the first."""
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    later = (fb > fa) | ((fa == 0) & (fb == 0) & np.signbit(fa) & ~np.signbit(fb))
    if nan_rule == "d3d":
        return later | (np.isnan(fa) & ~np.isnan(fb))
    return later | (np.isnan(fb) & ~np.isnan(fa))
