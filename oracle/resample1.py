"""DML_RESAMPLE1, nearest neighbour: OutputTensorX = (InputTensorX + InputPixelOffset) * Scale +
OutputPixelOffset, the input element nearest to each output element's coordinate; of two equally near
the higher (the page is silent; the choice is the spec's note)."""
from oracle.resampling import LINEAR, half_up, linear, resample

OPERATOR = "RESAMPLE1"
DEFAULTS = {"InterpolationMode": "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR", "Scales": None,
            "InputPixelOffsets": None, "OutputPixelOffsets": None, "OutputSizes": None}
READS_BITS = True


def reference(x, dtype, nan_rule="d3d", InterpolationMode=None, Scales=None, InputPixelOffsets=None,
              OutputPixelOffsets=None, OutputSizes=None):
    if InterpolationMode == LINEAR:
        return linear(x, Scales, InputPixelOffsets, OutputPixelOffsets, OutputSizes)
    return resample(x, Scales, InputPixelOffsets, OutputPixelOffsets, half_up, OutputSizes)
