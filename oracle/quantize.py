"""DML_QUANTIZE (6_3): OutputTensor = clamp(round(InputTensor / Scale) + ZeroPoint, Min, Max), Scale and
ZeroPoint the QuantizationTensors (the zero point 0 where QuantizationType is SCALE), each spread over
its block of InputTensor (oracle/quantization.py). The page's text is TBD: the rule is
ELEMENT_WISE_QUANTIZE_LINEAR's (ties to even, saturated to the output type)."""
import numpy as np

from oracle.element_wise_quantize_linear import quantized
from oracle.quantization import spread

OPERATOR = "QUANTIZE"
DEFAULTS = {"QuantizationType": "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT", "QuantizationSizes": None,
            "OutputType": None}
TYPE_FIELDS = ("OutputType",)
OWN_SHAPES = True


def output_dtype(dtype: str, OutputType=None) -> str:
    return OutputType or "uint8"


def reference(x, dtype: str, nan_rule="d3d", QuantizationType=None, QuantizationSizes=None, OutputType=None):
    values, scale, *zero = x
    zero_point = spread(zero[0], values.shape) if zero else 0
    return quantized(values, spread(scale, values.shape), zero_point, output_dtype(dtype, OutputType))
