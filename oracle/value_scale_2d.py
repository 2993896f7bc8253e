"""DML_VALUE_SCALE_2D: Output = Scale * Input + Bias, the bias of each element its channel's,
Bias[c] for InputTensor {BatchCount, ChannelCount, Height, Width} (ChannelCount 1 or 3, the length
of Bias). In float64, rounded once to the output's type."""
import numpy as np

OPERATOR = "VALUE_SCALE_2D"
DEFAULTS = {"Scale": 1.0, "Bias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Scale=1.0, Bias=None) -> np.ndarray:
    scale = np.float64(np.float32(Scale))  # FLOAT fields: float32 values
    bias = np.asarray(Bias, dtype=np.float32).astype(np.float64)
    channel = bias.reshape((1, -1) + (1,) * (x.ndim - 2))  # Bias[c] along dimension 1
    return scale * x + channel
