"""DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT: Output = (A - AZeroPoint) * AScale x (B - BZeroPoint) * BScale + Bias
(the page gives no formula; its fields' words and ONNX Runtime's MatMulIntegerToFloat, which the DirectML EP
maps to it). AScale[m] * BScale[n] * sum over k of (A - AZeroPoint)(B - BZeroPoint): the integer sum exact
(oracle/integer_matmul.py), the scales and Bias in float64; absent zero points 0, an absent Bias 0."""
import numpy as np

from oracle.integer_matmul import PRESENT, bound, integer_product

OPERATOR = "MATRIX_MULTIPLY_INTEGER_TO_FLOAT"
DEFAULTS = {"OutputType": None, "AZeroPointTensor": PRESENT, "BZeroPointTensor": PRESENT, "BiasTensor": PRESENT,
            "ExecutionFlags": "NONE"}
TYPE_FIELDS = ("OutputType",)
OWN_SHAPES = True
INPUTS = ("A", "AScale", "AZeroPoint", "B", "BScale", "BZeroPoint", "Bias")
UNSET_OUTPUT_TYPE = "float32"


def output_dtype(dtype: str, OutputType=None) -> str:
    """The scales', Bias's and OutputTensor's type: FLOAT32 unless the case chooses FLOAT16."""
    return OutputType or UNSET_OUTPUT_TYPE


def reference(x, dtype: str, nan_rule="d3d", OutputType=None, AZeroPointTensor=PRESENT, BZeroPointTensor=PRESENT,
              BiasTensor=PRESENT, ExecutionFlags="NONE"):
    given = bound(x, INPUTS, {"AZeroPoint": AZeroPointTensor, "BZeroPoint": BZeroPointTensor, "Bias": BiasTensor})
    total = integer_product(given["A"], given["AZeroPoint"], given["B"], given["BZeroPoint"]).astype(np.float64)
    return total * np.asarray(given["AScale"], np.float64) * np.asarray(given["BScale"], np.float64) \
        + np.asarray(given["Bias"], np.float64)
