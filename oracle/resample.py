"""DML_RESAMPLE, nearest neighbour: "chooses the input element nearest to the corresponding pixel
centre", as RESAMPLE1 with InputPixelOffsets 0.5 and OutputPixelOffsets -0.5 (RESAMPLE1's page); of two
equally near elements the higher (the page is silent; the choice is the spec's note)."""
from oracle.resampling import LINEAR, half_up, linear, resample

OPERATOR = "RESAMPLE"
DEFAULTS = {"InterpolationMode": "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR", "Scales": None, "OutputSizes": None}
READS_BITS = True


def reference(x, dtype, nan_rule="d3d", InterpolationMode=None, Scales=None, OutputSizes=None):
    rank = len(Scales)
    if InterpolationMode == LINEAR:
        return linear(x, Scales, [0.5] * rank, [-0.5] * rank, OutputSizes)
    return resample(x, Scales, [0.5] * rank, [-0.5] * rank, half_up, OutputSizes)
