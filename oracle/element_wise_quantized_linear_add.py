"""DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD: AValue = (A - AZeroPoint) * AScale, BValue = (B - BZeroPoint)
* BScale, OutputTensor = clamp(round((AValue + BValue) / OutputScale) + OutputZeroPoint, Min, Max).

Each dequantization is ELEMENT_WISE_DEQUANTIZE_LINEAR's (exact difference, float64 product), the sum in
float64, the requantization ELEMENT_WISE_QUANTIZE_LINEAR's (ties to even, saturated to the output type).
"""
from oracle.element_wise_dequantize_linear import dequantized
from oracle.element_wise_quantize_linear import quantized

OPERATOR = "ELEMENT_WISE_QUANTIZED_LINEAR_ADD"
DEFAULTS = {"BType": None, "OutputType": None}  # no DirectML fields: tensor types a case may choose
TYPE_FIELDS = ("OutputType",)
QUANTIZED = ("int8", "uint8")
# The inputs of one element each (short names)
SCALES = ("AScale", "AZeroPoint", "BScale", "BZeroPoint", "OutputScale", "OutputZeroPoint")


def output_dtype(dtype: str, OutputType=None) -> str:
    """OutputTensor's type: OutputZeroPointTensor's, ATensor's unless the case chooses."""
    return OutputType or dtype


def reference(x, dtype: str, nan_rule="d3d", BType=None, OutputType=None):
    a, a_scale, a_zero, b, b_scale, b_zero, scale, zero = x
    total = dequantized(a, a_scale, a_zero) + dequantized(b, b_scale, b_zero)
    return quantized(total, scale, zero, output_dtype(dtype, OutputType))
