"""DML_ELEMENT_WISE_IS_NAN: f(x) = 1 if x is NaN (IEEE 754), else 0.

The output tensor is UINT32 or UINT8 (the page allows either); the harness
uses UINT8, the type ONNX Runtime's bool tensors have on DirectML.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_IS_NAN"
DEFAULTS = {}


def output_dtype(dtype: str) -> str:
    return "uint8"


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    return np.isnan(x).astype(np.uint8)
