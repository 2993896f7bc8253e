"""DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD: AValue = (A - AZeroPoint) * AScale, BValue = (B - BZeroPoint)
* BScale, OutputTensor = clamp(round((AValue + BValue) / OutputScale) + OutputZeroPoint, Min, Max).

Each dequantization is ELEMENT_WISE_DEQUANTIZE_LINEAR's (exact difference, float64 product), the sum in
float64, the requantization ELEMENT_WISE_QUANTIZE_LINEAR's (ties to even, saturated to the output type).
"""
from oracle.element_wise_dequantize_linear import dequantized
from oracle.element_wise_quantize_linear import quantized

OPERATOR = "ELEMENT_WISE_QUANTIZED_LINEAR_ADD"
# No DirectML fields: tensor types a case may choose, and whether each _Maybenull_ zero point is bound
DEFAULTS = {"BType": None, "OutputType": None, "AZeroPointTensor": "present", "BZeroPointTensor": "present",
            "OutputZeroPointTensor": "present"}
TYPE_FIELDS = ("OutputType",)
QUANTIZED = ("int8", "uint8")
# The inputs of one element each (short names)
SCALES = ("AScale", "AZeroPoint", "BScale", "BZeroPoint", "OutputScale", "OutputZeroPoint")


def output_dtype(dtype: str, OutputType=None) -> str:
    """OutputTensor's type: OutputZeroPointTensor's, ATensor's unless the case chooses."""
    return OutputType or dtype


def reference(x, dtype: str, nan_rule="d3d", BType=None, OutputType=None, AZeroPointTensor="present",
              BZeroPointTensor="present", OutputZeroPointTensor="present"):
    given = iter(x)  # an absent zero point is no input: 0 (the page)
    a, a_scale = next(given), next(given)
    a_zero = next(given) if AZeroPointTensor == "present" else 0
    b, b_scale = next(given), next(given)
    b_zero = next(given) if BZeroPointTensor == "present" else 0
    scale = next(given)
    zero = next(given) if OutputZeroPointTensor == "present" else 0
    total = dequantized(a, a_scale, a_zero) + dequantized(b, b_scale, b_zero)
    return quantized(total, scale, zero, output_dtype(dtype, OutputType))
