"""DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY: Output = Quantize(Dequantize(A, AScale, AZeroPoint) x
Dequantize(B, BScale, BZeroPoint), OutputScale, OutputZeroPoint) (the page's two functions).

The product of the dequantized matrices is AScale[m] * BScale[n] * sum over k of (A - AZeroPoint)(B -
BZeroPoint): the integer sum exact (oracle/integer_matmul.py), the scales in float64; then
ELEMENT_WISE_QUANTIZE_LINEAR's rule (ties to even, saturated to the output type). Absent zero points: 0."""
import numpy as np

from oracle.element_wise_quantize_linear import quantized
from oracle.integer_matmul import PRESENT, bound, integer_product

OPERATOR = "QUANTIZED_LINEAR_MATRIX_MULTIPLY"
DEFAULTS = {"BType": None, "OutputType": None, "AZeroPointTensor": PRESENT, "BZeroPointTensor": PRESENT,
            "OutputZeroPointTensor": PRESENT, "ExecutionFlags": "NONE"}
TYPE_FIELDS = ("BType", "OutputType")
OWN_SHAPES = True
INPUTS = ("A", "AScale", "AZeroPoint", "B", "BScale", "BZeroPoint", "OutputScale", "OutputZeroPoint")


def output_dtype(dtype: str, BType=None, OutputType=None) -> str:
    """OutputZeroPointTensor's type: ATensor's unless the case chooses."""
    return OutputType or dtype


def reference(x, dtype: str, nan_rule="d3d", BType=None, OutputType=None, AZeroPointTensor=PRESENT,
              BZeroPointTensor=PRESENT, OutputZeroPointTensor=PRESENT, ExecutionFlags="NONE"):
    given = bound(x, INPUTS, {"AZeroPoint": AZeroPointTensor, "BZeroPoint": BZeroPointTensor,
                              "OutputZeroPoint": OutputZeroPointTensor})
    total = integer_product(given["A"], given["AZeroPoint"], given["B"], given["BZeroPoint"]).astype(np.float64)
    value = total * np.asarray(given["AScale"], np.float64) * np.asarray(given["BScale"], np.float64)
    return quantized(value, given["OutputScale"], given["OutputZeroPoint"], output_dtype(dtype, BType, OutputType))
