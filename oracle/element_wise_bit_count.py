"""DML_ELEMENT_WISE_BIT_COUNT: the number of bits set in each element, in its native encoding.

The page lets the output be UINT32 or UINT8 for any input type; the harness uses UINT32
for 32- and 64-bit inputs and UINT8 for 8- and 16-bit ones, so that both are exercised.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_BIT_COUNT"
DEFAULTS = {}
READS_BITS = True  # float inputs arrive in their own type: their bits are the operand
_BITS_IN_BYTE = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.uint8)


def output_dtype(dtype: str) -> str:
    return "uint32" if np.dtype(dtype).itemsize >= 4 else "uint8"


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    x = np.ascontiguousarray(x)
    per_byte = _BITS_IN_BYTE[x.reshape(x.shape + (1,)).view(np.uint8)]
    return per_byte.sum(axis=-1, dtype=np.int64)
