"""The numba loops of conformance/judge/fast_kernels.py (imported on first use: it imports numba).

One element's verdict is `_element`; `float_stats` runs it over expected bits
given by the caller, `float16_table_stats` reads them from a float16 table, and
`float32_stats` rounds the float64 reference to float32 itself (numpy's astype
and this conversion are the same correctly rounded step). Where an operator's
oracle module declares a float32 plan (oracle/<op>.py float32_plan, naming one of
FORMULAS), `float32_stats` also makes the reference: that formula's element-wise
operations (`_formula`, the same IEEE operations in the same order as the
oracle's; no fast-math, so no reassociation and no fused multiply-add) around
numpy's own np.expm1, which the caller applies to a buffer first. That saves the
literal formula's pass and temporary per operation. Both return
(bad elements, max distance of the good, max |fractional| of the good as
float64 bits) and fill `histogram` (good elements by bit length of their
distance) and `positions` (where the bad ones are, the first `bad` entries).
`scratch` (uint8, as long as the chunk) holds each element's bit length or BAD.
"""
import numpy as np

from conformance.judge.compare import HISTOGRAM_BINS
from conformance.judge.jit import numba

JIT = dict(nogil=True, cache=True, error_model="numpy")
BAD = 255  # scratch mark of an element for compare.compare


@numba.njit(inline="always")
def _element(e, a, r, t, tolerance, magnitude_mask, inf_bits, mantissa_digits, min_exponent):
    """e, a: expected and actual bits (int64); r: float64 reference; t: actual as float64.
    -> (bad, distance, bit length of the distance, |fractional error| as float64 bits)."""
    e_magnitude = e & magnitude_mask
    a_magnitude = a & magnitude_mask
    e_nan = e_magnitude > inf_bits
    a_nan = a_magnitude > inf_bits
    sign_bit = magnitude_mask + 1
    e_ordered = -e_magnitude if e & sign_bit else e_magnitude
    a_ordered = -a_magnitude if a & sign_bit else a_magnitude
    distance = abs(e_ordered - a_ordered)
    distance = 0 if (e_nan | a_nan) else distance
    bad = (distance > tolerance) | (e_nan != a_nan)
    # bit length of the distance (< 2**53, so exact through float64's exponent)
    length = (np.float64(distance).view(np.int64) >> 52) - 1022
    length = length if distance > 0 else 0
    # fractional error: (t - r) * 2**(mant_dig - 1 - ilogb(r)); frexp's ilogb(0) is -1
    field = (np.float64(r).view(np.int64) >> 52) & 0x7FF
    scale = 1023 + mantissa_digits - 1 - max(field - 1023, min_exponent)
    scale = 1023 + mantissa_digits if r == 0.0 else scale
    error_bits = np.float64((t - r) * np.int64(scale << 52).view(np.float64)).view(np.int64)
    error_bits &= 0x7FFFFFFFFFFFFFFF  # |error|: for non-negative floats the bits order as values
    same = (t == r) | ((t != t) & (r != r))
    finite = error_bits < 0x7FF0000000000000
    error_bits = error_bits if (finite and not same and not bad) else 0
    return bad, distance, length, error_bits


@numba.njit(inline="always")
def _mark(i, length, count, local, positions):
    if length == BAD:
        positions[count] = i
        return count + 1
    if length >= 4:
        local[i & 3, length] += 1
    return count


@numba.njit(inline="always")
def _tail(n, bad, rest, histogram, scratch, positions):
    """One pass over the marks, if needed: the histogram bins from 4 up (distances >= 8; the
    loops count bins 0 to 3 themselves) and the positions of the bad elements. Eight marks
    at a time: a word whose bytes are all below 4 has nothing to say."""
    if bad == 0 and rest == 0:
        return
    local = np.zeros((4, HISTOGRAM_BINS), dtype=np.int64)  # four copies break the chain of repeats
    count = 0
    words = n // 8
    packed = scratch[:words * 8].view(np.uint64)
    for w in range(words):
        if packed[w] & np.uint64(0xFCFCFCFCFCFCFCFC):
            for i in range(w * 8, w * 8 + 8):
                count = _mark(i, scratch[i], count, local, positions)
    for i in range(words * 8, n):
        count = _mark(i, scratch[i], count, local, positions)
    for k in range(4, HISTOGRAM_BINS):
        histogram[k] += local[0, k] + local[1, k] + local[2, k] + local[3, k]


@numba.njit(**JIT)
def float_stats(expected_bits, actual_bits, actual, reference, tolerance, magnitude_mask, inf_bits,
                mantissa_digits, min_exponent, histogram, scratch, positions):
    n = expected_bits.shape[0]
    bad = 0
    max_distance = 0
    bin0 = bin1 = bin2 = bin3 = 0  # good elements with bit length 0, 1, 2, 3
    max_fraction = np.int64(0)
    for i in range(n):
        is_bad, distance, length, error_bits = _element(
            np.int64(expected_bits[i]), np.int64(actual_bits[i]), reference[i], np.float64(actual[i]),
            tolerance, magnitude_mask, inf_bits, mantissa_digits, min_exponent)
        bad += np.int64(is_bad)
        max_distance = max(max_distance, 0 if is_bad else distance)
        good = not is_bad
        bin0 += np.int64(good & (length == 0))
        bin1 += np.int64(good & (length == 1))
        bin2 += np.int64(good & (length == 2))
        bin3 += np.int64(good & (length == 3))
        scratch[i] = np.uint8(BAD if is_bad else length)
        max_fraction = max(max_fraction, error_bits)
    histogram[0] += bin0
    histogram[1] += bin1
    histogram[2] += bin2
    histogram[3] += bin3
    _tail(n, bad, n - bad - bin0 - bin1 - bin2 - bin3, histogram, scratch, positions)
    return bad, max_distance, max_fraction


# float32_stats formulas: the reference is given (LITERAL) or made here from x, the buffer t and the
# parameters p0, p1. An operator's oracle module names the one that is its reference() (float32_plan).
LITERAL, MAX0_PLUS_MIN0, POSITIVE_OR_SCALED, CLAMP = 0, 1, 2, 3
FORMULAS = {"literal": LITERAL,
            "max0_plus_min0": MAX0_PLUS_MIN0,          # dml_max(0, x) + dml_min(0, p0 * t)
            "positive_or_scaled": POSITIVE_OR_SCALED,  # p1 * x if x > 0 else p1 * (p0 * t)
            "clamp": CLAMP}                            # dml_max(p0, dml_min(x, p1))


# np.fmax and np.fmin (the d3d NaN rule; cases with nan_rule "propagate" take the LITERAL path):
# NaN-ignoring, and on ties (+0 and -0) the second operand, as numpy's vectorised float64 loops
# give. They select on the bit patterns: a float select could be rewritten into a max/min
# instruction that picks the other zero.
@numba.njit(inline="always")
def float_bits(value):
    return np.float64(value).view(np.int64)


@numba.njit(inline="always")
def bits_float(bits):
    return np.int64(bits).view(np.float64)


@numba.njit(inline="always")
def _fmax(a, b):
    return bits_float(float_bits(a) if (a > b) | (b != b) else float_bits(b))


@numba.njit(inline="always")
def _fmin(a, b):
    return bits_float(float_bits(a) if (a < b) | (b != b) else float_bits(b))


@numba.njit(inline="always")
def _formula(formula, x, t, p0, p1):
    """The float64 reference of one element: a FORMULAS entry, its operations in the order
    the declaring oracle module has them, with t the buffer's value (np.expm1 of the formula's
    argument)."""
    if formula == MAX0_PLUS_MIN0:
        return _fmax(0.0, x) + _fmin(0.0, p0 * t)
    if formula == POSITIVE_OR_SCALED:
        return p1 * x if x > 0 else p1 * (p0 * t)
    if formula == CLAMP:
        return _fmax(p0, _fmin(x, p1))
    return t


@numba.njit(inline="always")
def _float32_stats(formula, x, buffer, p0, p1, actual, actual_bits, tolerance, histogram, scratch,
                   positions):
    """A float32 chunk: buffer holds the reference (formula LITERAL) or what the formula needs
    (np.expm1 of its argument); on return it holds the reference."""
    n = buffer.shape[0]
    bad = 0
    max_distance = 0
    bin0 = bin1 = bin2 = bin3 = 0  # good elements with bit length 0, 1, 2, 3
    max_fraction = np.int64(0)
    for i in range(n):
        r = _formula(formula, np.float64(x[i]), buffer[i], p0, p1)
        buffer[i] = r
        is_bad, distance, length, error_bits = _element(
            np.int64(np.float32(r).view(np.uint32)), np.int64(actual_bits[i]), r, np.float64(actual[i]),
            tolerance, 0x7FFFFFFF, 0x7F800000, 24, -126)
        bad += np.int64(is_bad)
        max_distance = max(max_distance, 0 if is_bad else distance)
        good = not is_bad
        bin0 += np.int64(good & (length == 0))
        bin1 += np.int64(good & (length == 1))
        bin2 += np.int64(good & (length == 2))
        bin3 += np.int64(good & (length == 3))
        scratch[i] = np.uint8(BAD if is_bad else length)
        max_fraction = max(max_fraction, error_bits)
    histogram[0] += bin0
    histogram[1] += bin1
    histogram[2] += bin2
    histogram[3] += bin3
    _tail(n, bad, n - bad - bin0 - bin1 - bin2 - bin3, histogram, scratch, positions)
    return bad, max_distance, max_fraction


# One compiled loop per formula (the constant folds the formula's branches away, so each loop
# vectorises); float32_stats[formula] is the one to call.
@numba.njit(**JIT)
def _literal_stats(x, buffer, p0, p1, actual, actual_bits, tolerance, histogram, scratch, positions):
    return _float32_stats(LITERAL, x, buffer, p0, p1, actual, actual_bits, tolerance, histogram, scratch,
                          positions)


@numba.njit(**JIT)
def _max0_plus_min0_stats(x, buffer, p0, p1, actual, actual_bits, tolerance, histogram, scratch, positions):
    return _float32_stats(MAX0_PLUS_MIN0, x, buffer, p0, p1, actual, actual_bits, tolerance, histogram,
                          scratch, positions)


@numba.njit(**JIT)
def _positive_or_scaled_stats(x, buffer, p0, p1, actual, actual_bits, tolerance, histogram, scratch,
                              positions):
    return _float32_stats(POSITIVE_OR_SCALED, x, buffer, p0, p1, actual, actual_bits, tolerance, histogram,
                          scratch, positions)


@numba.njit(**JIT)
def _clamp_stats(x, buffer, p0, p1, actual, actual_bits, tolerance, histogram, scratch, positions):
    return _float32_stats(CLAMP, x, buffer, p0, p1, actual, actual_bits, tolerance, histogram, scratch,
                          positions)


float32_stats = {LITERAL: _literal_stats, MAX0_PLUS_MIN0: _max0_plus_min0_stats,
                 POSITIVE_OR_SCALED: _positive_or_scaled_stats, CLAMP: _clamp_stats}


@numba.njit(**JIT)
def divide(x, alpha, out):
    """out = float64(x) / alpha: a plan's argument of np.expm1 (expm1_divisor)."""
    for i in range(x.shape[0]):
        out[i] = np.float64(x[i]) / alpha


@numba.njit(**JIT)
def multiply(x, factor, out):
    """out = float64(x) * factor. For factor = 1 / alpha with alpha a power of two this is
    float64(x) / alpha exactly: both are the correctly rounded x * 2**-k (and divide costs
    several times more)."""
    for i in range(x.shape[0]):
        out[i] = np.float64(x[i]) * factor


@numba.njit(**JIT)
def float16_table_stats(codes, actual_bits, reference_table, expected_table, decode_table, tolerance, histogram,
                        scratch, positions):
    """A float16 tensor through its operator's table: codes are the input's bit patterns,
    reference_table / expected_table the oracle on every float16 (float64 / uint16 bits),
    decode_table every float16 as float64 (to read the actual values)."""
    n = codes.shape[0]
    bad = 0
    max_distance = 0
    bin0 = bin1 = bin2 = bin3 = 0  # good elements with bit length 0, 1, 2, 3
    max_fraction = np.int64(0)
    for i in range(n):
        code = codes[i]
        a = actual_bits[i]
        is_bad, distance, length, error_bits = _element(
            np.int64(expected_table[code]), np.int64(a), reference_table[code], decode_table[a],
            tolerance, 0x7FFF, 0x7C00, 11, -14)
        bad += np.int64(is_bad)
        max_distance = max(max_distance, 0 if is_bad else distance)
        good = not is_bad
        bin0 += np.int64(good & (length == 0))
        bin1 += np.int64(good & (length == 1))
        bin2 += np.int64(good & (length == 2))
        bin3 += np.int64(good & (length == 3))
        scratch[i] = np.uint8(BAD if is_bad else length)
        max_fraction = max(max_fraction, error_bits)
    histogram[0] += bin0
    histogram[1] += bin1
    histogram[2] += bin2
    histogram[3] += bin3
    _tail(n, bad, n - bad - bin0 - bin1 - bin2 - bin3, histogram, scratch, positions)
    return bad, max_distance, max_fraction


# -- the full analysis of the elements off the exactly rounded value (float32), compiled ----------
# What compare.compare says of a chunk's bad elements (flushing, NaN, histogram, worst), without a
# numpy pass per figure; conformance/judge/fast_analysis.py turns the figures into a Comparison.

@numba.njit(inline="always")
def _keep_worst(keys, where, count, key, position):
    """Insert (key, position) into the kept worst, largest key first, earlier positions first among
    equal keys (argsort's stable order over ascending positions); -> the new count."""
    limit = keys.shape[0]
    if count == limit and key <= keys[limit - 1]:
        return count
    j = min(count, limit - 1)
    while j > 0 and keys[j - 1] < key:
        keys[j] = keys[j - 1]
        where[j] = where[j - 1]
        j -= 1
    keys[j] = key
    where[j] = position
    return min(count + 1, limit)


@numba.njit(inline="always")
def _ordered(bits, magnitude_mask):
    magnitude = bits & magnitude_mask
    return -magnitude if bits & (magnitude_mask + 1) else magnitude


@numba.njit(**JIT)
def float_bad_stats(expected_bits, actual_bits, actual, reference, tolerance, flush_allowed, rows, candidates,
                    magnitude_mask, inf_bits, normal_bits, mantissa_digits, min_exponent,
                    histogram, worst_keys, worst, differing):
    """compare.compare's ULP figures of float32 or float16 elements (the bad ones of a split; the layout
    constants are fast_kernels.FLOAT_LAYOUT's, normal_bits the smallest normal's): ->
    (mismatches, NaN mismatches, flushed, max distance, max |fractional error| as float64 bits,
    kept worst, elements differing from the exactly rounded value). rows[i] >= 0 where an input of
    element i is subnormal: candidates[rows[i]] are the bits of what the oracle gives with the
    subnormal inputs flushed (one input: f(+0), f(-0); several: each set of them flushed). Fills
    histogram (counted elements by bit length), worst (positions, worst first) and differing (their
    positions)."""
    n = expected_bits.shape[0]
    mismatches = nan_mismatches = flushed_count = max_distance = kept = differ = 0
    max_fraction = np.int64(0)
    for i in range(n):
        e = np.int64(expected_bits[i])
        a = np.int64(actual_bits[i])
        e_magnitude, a_magnitude = e & magnitude_mask, a & magnitude_mask
        e_nan, a_nan = e_magnitude > inf_bits, a_magnitude > inf_bits
        distance = 0 if (e_nan | a_nan) else abs(_ordered(e, magnitude_mask) - _ordered(a, magnitude_mask))
        nan_mismatch = e_nan != a_nan
        if (e_nan != a_nan) if (e_nan | a_nan) else distance != 0:
            differing[differ] = i
            differ += 1
        bad = (distance > tolerance) | nan_mismatch
        flushed = False
        if flush_allowed and bad:
            flushed = (e_magnitude != 0) & (e_magnitude < normal_bits) & (a_magnitude == 0)
            row = rows[i]
            if row >= 0:
                for k in range(candidates.shape[1]):
                    z = candidates[row, k]
                    z_magnitude = z & magnitude_mask
                    z_nan = z_magnitude > inf_bits
                    close = abs(_ordered(z, magnitude_mask) - _ordered(a, magnitude_mask)) <= tolerance
                    close |= (z_magnitude != 0) & (z_magnitude < normal_bits) & (a_magnitude == 0)
                    flushed |= (z_nan & a_nan) | (close & (not z_nan) & (not a_nan))
            if flushed:
                bad = False
                nan_mismatch = False
        if flushed:
            flushed_count += 1
        else:
            max_distance = max(max_distance, distance)
            t = np.float64(actual[i])
            r = reference[i]
            field = (np.float64(r).view(np.int64) >> 52) & 0x7FF
            scale = 1023 + mantissa_digits - 1 - max(field - 1023, min_exponent)
            scale = 1023 + mantissa_digits if r == 0.0 else scale
            error_bits = np.float64((t - r) * np.int64(scale << 52).view(np.float64)).view(np.int64)
            error_bits &= 0x7FFFFFFFFFFFFFFF
            same = (t == r) | ((t != t) & (r != r))
            if error_bits < 0x7FF0000000000000 and not same:
                max_fraction = max(max_fraction, error_bits)
            if nan_mismatch:
                nan_mismatches += 1
            else:
                length = (np.float64(distance).view(np.int64) >> 52) - 1022
                histogram[length if distance > 0 else 0] += 1
        if bad:
            mismatches += 1
            kept = _keep_worst(worst_keys, worst, kept, np.int64(0x7FFFFFFFFFFFFFFF) if nan_mismatch else distance,
                               i)
    return mismatches, nan_mismatches, flushed_count, max_distance, max_fraction, kept, differ


@numba.njit(**JIT)
def float_d3d_verdicts(expected, actual, reference, lo, hi, num, may_nan, keeps_sign, has_range, low, high,
                       denormal_flushed, ratio, semantic, worst_keys, worst):
    """judge.d3d.IntervalJudge.elements and compare.interval_summary's figures of float elements
    (float32, or float64 holding a float16 tensor's values) with their bounds: -> (failed, outside, semantic,
    lowering-defined, all ratios finite, max ratio, kept worst). denormal_flushed: the elements that
    break the float16 denormal rule (d3d.IntervalJudge.denormals_flushed). Fills ratio and semantic
    (per element) and worst (failed elements, largest ratio first)."""
    n = expected.shape[0]
    failed = outside = broken = lowering = kept = 0
    finite = True
    max_ratio = -np.inf
    for i in range(n):
        a = np.float64(actual[i])
        e = np.float64(expected[i])
        a_nan = a != a
        same = (a_nan & (e != e)) | (a == e)
        inside = same | (may_nan[i] if a_nan else (num[i] & (lo[i] <= a) & (a <= hi[i])))
        a_inf = (a == np.inf) | (a == -np.inf)
        if inside & (not same) & (a_nan | a_inf):
            lowering += 1
        rule = 0
        r = reference[i]
        if keeps_sign and (((r < 0) & (a > 0)) | ((r > 0) & (a < 0))):
            rule = 1
        if has_range and (e == e) and (a_nan | (a < low) | (a > high)):
            rule = 2
        if denormal_flushed[i]:
            rule = 3
        semantic[i] = rule
        half = (hi[i] - lo[i]) / 2
        middle = lo[i] + half
        value = abs(a - middle) / (half if half > 0 else 1.0) if half > 0 else (0.0 if inside else np.inf)
        if a_nan | a_inf | (not np.isfinite(value)):
            value = 0.0 if inside else np.inf
        ratio[i] = value
        if value == np.inf:
            finite = False
        max_ratio = max(max_ratio, value)
        if not inside:
            outside += 1
        if rule != 0:
            broken += 1
        if (not inside) | (rule != 0):
            failed += 1
            kept = _keep_worst(worst_keys, worst, kept, value, i)
    return failed, outside, broken, lowering, finite, max_ratio, kept
