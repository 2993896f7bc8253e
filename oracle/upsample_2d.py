"""DML_UPSAMPLE_2D, nearest neighbour: the last two dimensions (height, width) of a 4-D NCHW or 5-D
NCDHW tensor scaled by the UINTs ScaleSize {Width, Height}; each output element is "the input element
nearest to the corresponding pixel centre": the centre of output row h maps to (h + 0.5) / Height - 0.5,
which for an integer scale is nearest to row floor(h / Height). A copy: bits kept."""
import numpy as np

from oracle.resampling import LINEAR, linear

OPERATOR = "UPSAMPLE_2D"
DEFAULTS = {"ScaleSize": None, "InterpolationMode": "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"}
READS_BITS = True


def reference(x, dtype, nan_rule="d3d", ScaleSize=None, InterpolationMode=None):
    width, height = ScaleSize
    if InterpolationMode == LINEAR:  # at pixel centres (the spec's judge also accepts the corners' reading)
        rank = np.ndim(x)
        return linear(x, [1] * (rank - 2) + [height, width], [0.5] * rank, [-0.5] * rank)
    return np.repeat(np.repeat(x, height, axis=-2), width, axis=-1)
