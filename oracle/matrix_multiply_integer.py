"""DML_MATRIX_MULTIPLY_INTEGER: Output = (A - AZeroPoint) x (B - BZeroPoint) in INT32, exact
(oracle/integer_matmul.py). The page gives no formula beyond the batched {M,K} x {K,N} product and
the zero points "used for dequantizing"; ONNX's MatMulInteger is this. An INT32 overflow (K above
33,025 for UINT8 extremes) is a case the page leaves open: no case has one."""
from oracle.integer_matmul import PRESENT, bound, integer_product

OPERATOR = "MATRIX_MULTIPLY_INTEGER"
OUTPUT_TYPE = "int32"
DEFAULTS = {"BType": None, "AZeroPointTensor": PRESENT, "BZeroPointTensor": PRESENT, "ExecutionFlags": "NONE"}
TYPE_FIELDS = ("BType",)
OWN_SHAPES = True
INPUTS = ("A", "AZeroPoint", "B", "BZeroPoint")


def output_dtype(dtype: str, BType=None) -> str:
    return OUTPUT_TYPE


def reference(x, dtype: str, nan_rule="d3d", BType=None, AZeroPointTensor=PRESENT, BZeroPointTensor=PRESENT,
              ExecutionFlags="NONE"):
    given = bound(x, INPUTS, {"AZeroPoint": AZeroPointTensor, "BZeroPoint": BZeroPointTensor})
    return integer_product(given["A"], given["AZeroPoint"], given["B"], given["BZeroPoint"])
