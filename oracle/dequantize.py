"""DML_DEQUANTIZE (6_3): OutputTensor = (InputTensor - ZeroPoint) * Scale, Scale and ZeroPoint the
QuantizationTensors (the zero point 0 where QuantizationType is SCALE), each spread over its block of
InputTensor (oracle/quantization.py). The page's text is TBD: the rule is
ELEMENT_WISE_DEQUANTIZE_LINEAR's (the difference exact, the product in float64, rounded once)."""
import numpy as np

from oracle.element_wise_dequantize_linear import dequantized
from oracle.quantization import spread

OPERATOR = "DEQUANTIZE"
DEFAULTS = {"QuantizationType": "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT", "QuantizationSizes": None,
            "OutputType": None}
TYPE_FIELDS = ("OutputType",)
OWN_SHAPES = True


def output_dtype(dtype: str, OutputType=None) -> str:
    return OutputType or "float32"


def reference(x, dtype: str, nan_rule="d3d", QuantizationType=None, QuantizationSizes=None, OutputType=None):
    values, scale, *zero = x
    zero_point = spread(zero[0], values.shape) if zero else np.zeros(values.shape, dtype=values.dtype)
    return dequantized(values, spread(scale, values.shape), zero_point)
