"""DML_RESAMPLE2, nearest neighbour: OutputTensorX = (InputTensorX + InputPixelOffset) * Scale +
OutputPixelOffset; RoundingDirection: "Round fractional coordinates toward increasing axis values (ceil)"
(INCREASING) or "toward decreasing axis values (floor)" (DECREASING)."""
import numpy as np

from oracle.resampling import LINEAR, linear, resample

OPERATOR = "RESAMPLE2"
DEFAULTS = {"InterpolationMode": "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR",
            "RoundingDirection": "DML_AXIS_DIRECTION_DECREASING", "Scales": None,
            "InputPixelOffsets": None, "OutputPixelOffsets": None, "OutputSizes": None}
READS_BITS = True
ROUNDING = {"DML_AXIS_DIRECTION_INCREASING": np.ceil, "DML_AXIS_DIRECTION_DECREASING": np.floor}


def reference(x, dtype, nan_rule="d3d", InterpolationMode=None, RoundingDirection=None, Scales=None,
              InputPixelOffsets=None, OutputPixelOffsets=None, OutputSizes=None):
    if InterpolationMode == LINEAR:
        return linear(x, Scales, InputPixelOffsets, OutputPixelOffsets, OutputSizes)
    return resample(x, Scales, InputPixelOffsets, OutputPixelOffsets, ROUNDING[RoundingDirection], OutputSizes)
