"""The integer matrix products of MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT and
QUANTIZED_LINEAR_MATRIX_MULTIPLY: sum over k of (A - AZeroPoint)(B - BZeroPoint), exact in int64,
BatchCount * ChannelCount products over the last two dimensions; a zero point per tensor, per row of
A ({.., M, 1}) or per column of B ({.., 1, N}) broadcast as numpy does. An absent zero point is 0."""
import numpy as np

PRESENT = "present"


def bound(x, names: tuple, present: dict) -> dict:
    """The case's inputs (in the page's order, an absent optional one left out) by short name; an
    absent zero point as 0."""
    given = iter(x)
    return {name: (next(given) if present.get(name, PRESENT) == PRESENT else np.int64(0)) for name in names}


def integer_product(a, a_zero, b, b_zero) -> np.ndarray:
    """(A - AZeroPoint) x (B - BZeroPoint), exact (int64: |terms| <= 255^2, K far below 2^47)."""
    left = np.asarray(a).astype(np.int64) - np.asarray(a_zero).astype(np.int64)
    right = np.asarray(b).astype(np.int64) - np.asarray(b_zero).astype(np.int64)
    return np.matmul(left, right)
