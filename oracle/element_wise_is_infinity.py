"""DML_ELEMENT_WISE_IS_INFINITY: f(x) = isinf(x) && (x > 0 && InfinityMode == POSITIVE ||
x < 0 && InfinityMode == NEGATIVE || InfinityMode == EITHER): 1 or 0, in a UINT8 output tensor.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_IS_INFINITY"
# The page gives no typical mode; EITHER is DML_IS_INFINITY_MODE's zero value (and ONNX IsInf's default).
DEFAULTS = {"InfinityMode": "DML_IS_INFINITY_MODE_EITHER"}
SIGNS = {"DML_IS_INFINITY_MODE_EITHER": (1, -1), "DML_IS_INFINITY_MODE_POSITIVE": (1,),
         "DML_IS_INFINITY_MODE_NEGATIVE": (-1,)}


def output_dtype(dtype: str) -> str:
    return "uint8"


def reference(x: np.ndarray, dtype: str, nan_rule="d3d",
              InfinityMode="DML_IS_INFINITY_MODE_EITHER") -> np.ndarray:
    return (np.isinf(x) & np.isin(np.sign(x), SIGNS[InfinityMode])).astype(np.uint8)
