"""ULP distance on the ordered-integer mapping of IEEE bit patterns.

Sign-magnitude is folded so that -0 and +0 map to 0, the distance never wraps,
and +-inf are the values after the largest finite. Integer types measure the
plain difference in units.
"""
import numpy as np

_BITS = {np.dtype("float16"): (np.uint16, 0x7FFF), np.dtype("float32"): (np.uint32, 0x7FFFFFFF),
         np.dtype("float64"): (np.uint64, 0x7FFFFFFFFFFFFFFF)}
_MANTISSA_DIGITS = {np.dtype("float16"): 11, np.dtype("float32"): 24, np.dtype("float64"): 53}
_MIN_EXPONENT = {np.dtype("float16"): -14, np.dtype("float32"): -126, np.dtype("float64"): -1022}


def ordered(values: np.ndarray) -> np.ndarray:
    """Map floats to int64 so that the order and ULP steps are those of the reals."""
    values = np.asarray(values)
    unsigned, magnitude_mask = _BITS[values.dtype]
    bits = values.view(unsigned).astype(np.int64)
    magnitude = bits & magnitude_mask
    negative = bits != magnitude
    return np.where(negative, -magnitude, magnitude)


def ulp_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Distance in ULP as int64 (floats: NaN positions are meaningless; mask them)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.dtype.kind == "f":
        return np.abs(ordered(expected) - ordered(actual))
    if expected.dtype.kind == "u":
        wide_e, wide_a = expected.astype(np.uint64), actual.astype(np.uint64)
        difference = np.maximum(wide_e, wide_a) - np.minimum(wide_e, wide_a)
        return np.minimum(difference, np.uint64(np.iinfo(np.int64).max)).astype(np.int64)
    wide_e, wide_a = expected.astype(np.int64), actual.astype(np.int64)
    if expected.dtype.itemsize < 8:
        return np.abs(wide_e - wide_a)
    high = np.maximum(wide_e, wide_a)
    low = np.minimum(wide_e, wide_a)
    difference = high.astype(np.uint64) - low.astype(np.uint64)
    return np.minimum(difference, np.uint64(np.iinfo(np.int64).max)).astype(np.int64)


def fractional_ulp_error(reference: np.ndarray, actual: np.ndarray, dtype) -> np.ndarray:
    """OpenCL CTS error: (actual - ref) in units of the ULP of ref in the target type.

    scalbn(test - ref, mant_dig - 1 - ilogb(ref)), ilogb clamped at the smallest
    normal exponent so that subnormal references use the subnormal spacing.
    """
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):  # a signalling NaN (a bitwise operator's output) raises invalid on the cast
        reference = np.asarray(reference, dtype=np.float64)
        test = np.asarray(actual).astype(np.float64)
        _, exponent = np.frexp(reference)
        ilogb = np.maximum(exponent - 1, _MIN_EXPONENT[dtype])
        error = np.ldexp(test - reference, (_MANTISSA_DIGITS[dtype] - 1 - ilogb).astype(np.int64))
    same = (test == reference) | (np.isnan(test) & np.isnan(reference))
    return np.where(same, 0.0, error)
