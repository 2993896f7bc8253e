"""judge/intervals.py's float32 primitives compiled (numba), for fused_intervals.

One-element helpers (enclosed, add1, mul1, min_max1, flush_lo/hi, minimum, maximum) that the
generated loops of fused_intervals call, and `Evaluator`, intervals.Evaluator for the FLOAT32
format with `_flush`, `_enclose`, `_add`, `_mul`, `_min`, `_max`, `_exp2` and `_log2` each one compiled
pass doing the numpy version's operations in its order (no fast-math): fused_intervals runs the
primitives that call a library function (exp2, log2, ...) through it, on whole arrays. The
transcendental values themselves (np.exp2, np.expm1, np.log2) come from numpy, as in the numpy version;
np.expm1 only where it is read. Rounding to float32 never uses a float32 operation (_near): the
processor's slow path for subnormals stays out of the loops.

tests/test_speed_equivalence.py holds the bounds equal to intervals.interval's.
"""
import numpy as np

from conformance.judge import intervals
from conformance.judge.fast_kernels_jit import bits_float, float_bits
from conformance.judge.intervals import FLOAT32, Values
from conformance.judge.jit import numba

JIT = dict(nogil=True, cache=True, error_model="numpy")
TINY = 2.0 ** -126  # smallest normal float32
SUB = 2.0 ** -149  # smallest subnormal float32
FLT_MAX = float(np.finfo(np.float32).max)
SLACK = 2.0 ** -50  # intervals._DOUBLE_SLACK
TINY16 = 2.0 ** -14  # smallest normal float16
SUB16 = 2.0 ** -24  # smallest subnormal float16
HALF_MAX = float(np.finfo(np.float16).max)


# Each helper computes every case and selects (no branches: the elements' cases are mixed, and a
# mispredicted branch costs more than the arithmetic).
#
# Inlining: numba's inline="always" inlines at the level of its own IR, retyping the callee at every
# call site, and nesting multiplies it: with every helper so marked, one fused CELU loop took 10 s to
# compile. The small helpers below are plain functions, which LLVM inlines itself; only add1, mul1 and
# min_max1, which LLVM judges too large to inline (they stayed calls, and the loops ran up to 4x
# slower), are inlined by numba, one level deep. Six formulas' loops: 53 s -> 12 s to compile from an
# empty cache, the same speed, the same bits (performance.md).
# A binary format's rounding constants: (fraction bits float64 has beyond it, smallest normal,
# 1 / smallest subnormal, smallest subnormal, 2**(emax + 1), largest finite); numba folds them.
F32 = (29, TINY, 2.0 ** 149, SUB, 2.0 ** 128, FLT_MAX)
F16 = (42, TINY16, 2.0 ** 24, SUB16, 2.0 ** 16, HALF_MAX)


@numba.njit(error_model="numpy")
def _near(v, f):
    """float64(float32(v)) (f = F32) or float64(float16(v)) (F16, numpy's correctly rounded
    conversion) without an operation in that format (which LLVM may hoist out of a branch, and which
    takes the processor's slow path when it makes a subnormal): below the normal range a multiple of
    the smallest subnormal, above it the float64 bits rounded to the format's significant bits, half
    to even."""
    drop, tiny, scale, sub, overflow, _ = f
    small = np.rint(v * scale) * sub
    bits = float_bits(v)
    rounded = bits_float((bits + ((1 << (drop - 1)) - 1) + ((bits >> drop) & 1)) & ~((1 << drop) - 1))
    rounded = rounded if abs(rounded) < overflow else np.copysign(np.inf, v)
    rounded = rounded if abs(v) < np.inf else v  # NaN and the infinities stay
    return small if abs(v) < tiny else rounded


@numba.njit(error_model="numpy")
def _down(n, f):
    """np.nextafter(n, -inf) in the format of f, of a value n of that format, in float64."""
    drop, tiny, _, sub, overflow, largest = f
    stepped = bits_float(float_bits(n) + (-(1 << drop) if n > 0 else (1 << drop)))
    stepped = stepped if stepped > -overflow else -np.inf
    r = n - sub if (n > -tiny) & (n <= tiny) else stepped
    r = largest if n == np.inf else r
    return n if (n != n) | (n == -np.inf) else r


@numba.njit(error_model="numpy")
def _floor(v, f):
    nearest = _near(v, f)
    down = _down(nearest, f)
    return down if nearest > v else nearest


@numba.njit(error_model="numpy")
def _ceil(v, f):
    nearest = _near(v, f)
    up = -_down(-nearest, f)
    return up if nearest < v else nearest


@numba.njit(error_model="numpy")
def outward16(lo, hi):
    """intervals.floor_to / ceil_to float16 of one element's ends (a value stored in a float16 tensor)."""
    return _floor(lo, F16), _ceil(hi, F16)


@numba.njit(error_model="numpy")
def flush_lo(lo, hi, num):
    touches = num & (lo < TINY) & (hi > -TINY) & ((lo != 0) | (hi != 0))
    return 0.0 if touches & (lo > 0) else lo


@numba.njit(error_model="numpy")
def flush_hi(lo, hi, num):
    touches = num & (lo < TINY) & (hi > -TINY) & ((lo != 0) | (hi != 0))
    return -0.0 if touches & (hi < 0) else hi


@numba.njit(error_model="numpy")
def _sum(a, b, side):
    """a + b rounded toward side (-1: down, +1: up), exact by TwoSum (intervals._sum_down_up)."""
    s = a + b
    bb = s - a
    error = (a - (s - bb)) + (b - bb)
    # the next float64 toward side: s is not zero where the sum was inexact
    following = bits_float(float_bits(s) + (1 if (s > 0) == (side > 0) else -1))
    return following if np.isfinite(s) & np.isfinite(error) & (error * side > 0) else s


@numba.njit(error_model="numpy")
def minimum(a, b):  # np.minimum: NaN-propagating, the second operand on ties
    return a if (a < b) | (a != a) else b


@numba.njit(error_model="numpy")
def maximum(a, b):
    return a if (a > b) | (a != a) else b


@numba.njit(error_model="numpy")
def _store(lo, hi, num, out_lo, out_hi, i):
    out_lo[i], out_hi[i] = enclosed(lo, hi, num)


@numba.njit(**JIT)
def enclose(lo, hi, num, out_lo, out_hi):
    for i in range(lo.shape[0]):
        _store(lo[i], hi[i], num[i], out_lo, out_hi, i)


@numba.njit(**JIT)
def flush(lo, hi, num, out_lo, out_hi):
    for i in range(lo.shape[0]):
        out_lo[i] = flush_lo(lo[i], hi[i], num[i])
        out_hi[i] = flush_hi(lo[i], hi[i], num[i])


@numba.njit(error_model="numpy")
def enclosed(lo, hi, num):
    """intervals.Evaluator._enclose for FLOAT32 of one element: outward to float32, then flushed."""
    lo, hi = _floor(lo, F32), _ceil(hi, F32)
    return flush_lo(lo, hi, num), flush_hi(lo, hi, num)


@numba.njit(error_model="numpy")
def enclosed_in(lo, hi, num, half, correctly_rounded):
    """intervals.Evaluator._enclose of one element in FLOAT32 (half False) or FLOAT16 (half True:
    no flushing; a correctly rounded primitive to nearest even, the others outward)."""
    if not half:
        return enclosed(lo, hi, num)
    if correctly_rounded:
        return _near(lo, F16), _near(hi, F16)
    return _floor(lo, F16), _ceil(hi, F16)


@numba.njit(error_model="numpy")
def flushed_in(lo, hi, num, half):
    """intervals.Evaluator._flush of one element's ends (FLOAT16 does not flush)."""
    if half:
        return lo, hi
    return flush_lo(lo, hi, num), flush_hi(lo, hi, num)


@numba.njit(inline="always")
def add1(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, half=False):
    """intervals.Evaluator._add of one element: (lo, hi, num, nan); half: in FLOAT16."""
    lo = _sum(a_lo, b_lo, -1.0)
    hi = _sum(a_hi, b_hi, 1.0)
    num = a_num & b_num
    opposite = ((a_hi == np.inf) & (b_lo == -np.inf)) | ((a_lo == -np.inf) & (b_hi == np.inf))
    lo, hi = enclosed_in(-np.inf if lo != lo else lo, np.inf if hi != hi else hi, num, half, True)
    return lo, hi, num, a_nan | b_nan | (num & opposite)


@numba.njit(**JIT)
def add(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, out_lo, out_hi, out_num, out_nan):
    for i in range(a_lo.shape[0]):
        out_lo[i], out_hi[i], out_num[i], out_nan[i] = add1(a_lo[i], a_hi[i], a_num[i], a_nan[i],
                                                            b_lo[i], b_hi[i], b_num[i], b_nan[i])


@numba.njit(error_model="numpy")
def _corner(value):
    return 0.0 if value != value else value


@numba.njit(error_model="numpy")
def _signbit(v):
    return float_bits(v) < 0


@numba.njit(inline="always")
def rcp1(a_lo, a_hi, a_num, a_nan, error, half=False):
    """intervals.Evaluator._rcp of one element: 1/x of a set on one side of zero (a signed zero on
    its side), else everything; widened by the relative error (plus float64's slack where the end
    is not a power of two), enclosed outward."""
    one_side = (a_lo == a_hi) | (a_lo > 0) | ((a_lo == 0) & (not _signbit(a_lo)) & (a_hi > 0)) \
        | (a_hi < 0) | ((a_hi == 0) & _signbit(a_hi) & (a_lo < 0))
    lo = 1.0 / a_hi if one_side else -np.inf
    hi = 1.0 / a_lo if one_side else np.inf
    error_lo = error + (0.0 if _power_of_two(a_hi) else SLACK)
    error_hi = error + (0.0 if _power_of_two(a_lo) else SLACK)
    lo = lo * (1.0 + error_lo) if lo < 0 else lo * (1.0 - error_lo)
    hi = hi * (1.0 - error_hi) if hi < 0 else hi * (1.0 + error_hi)
    lo, hi = enclosed_in(lo, hi, a_num, half, False)
    return lo, hi, a_num, a_nan


@numba.njit(inline="always")
def mul1(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, half=False):
    """intervals.Evaluator._mul of one element."""
    c0, c1 = _corner(a_lo * b_lo), _corner(a_lo * b_hi)
    c2, c3 = _corner(a_hi * b_lo), _corner(a_hi * b_hi)
    lo = minimum(minimum(minimum(c0, c1), c2), c3)
    hi = maximum(maximum(maximum(c0, c1), c2), c3)
    num = a_num & b_num
    zero_a = (a_lo <= 0) & (a_hi >= 0)
    zero_b = (b_lo <= 0) & (b_hi >= 0)
    inf_a = (a_hi == np.inf) | (a_lo == -np.inf)
    inf_b = (b_hi == np.inf) | (b_lo == -np.inf)
    lo, hi = enclosed_in(lo, hi, num, half, True)
    return lo, hi, num, a_nan | b_nan | (num & ((zero_a & inf_b) | (zero_b & inf_a)))


@numba.njit(**JIT)
def mul(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, out_lo, out_hi, out_num, out_nan):
    for i in range(a_lo.shape[0]):
        out_lo[i], out_hi[i], out_num[i], out_nan[i] = mul1(a_lo[i], a_hi[i], a_num[i], a_nan[i],
                                                            b_lo[i], b_hi[i], b_num[i], b_nan[i])


@numba.njit(error_model="numpy")
def _union(lo, hi, num, other_lo, other_hi, other_num):
    if not num:
        return other_lo, other_hi, other_num
    if other_num:
        return minimum(lo, other_lo), maximum(hi, other_hi), True
    return lo, hi, num


@numba.njit(inline="always")
def min_max1(a_lo, a_hi, an, a_nan, b_lo, b_hi, bn, b_nan, is_max, d3d, half=False):
    """intervals.Evaluator._min_max of one element: operands flushed (not in FLOAT16), then min or
    max, and under the d3d NaN rule the union with either operand where the other may be NaN."""
    alo, ahi = flushed_in(a_lo, a_hi, an, half)
    blo, bhi = flushed_in(b_lo, b_hi, bn, half)
    both = an & bn
    if both:
        lo = maximum(alo, blo) if is_max else minimum(alo, blo)
        hi = maximum(ahi, bhi) if is_max else minimum(ahi, bhi)
    else:
        lo, hi = (alo, ahi) if an else (blo, bhi)
    num, nan = an | bn, a_nan & b_nan
    if d3d:  # Values.union with each operand where the other may be NaN
        lo, hi, num = _union(lo, hi, num, alo, ahi, an & b_nan)
        lo, hi, num = _union(lo, hi, num, blo, bhi, bn & a_nan)
    else:
        num, nan = both, a_nan | b_nan
    return lo, hi, num, nan


@numba.njit(**JIT)
def min_max(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, is_max, d3d, out_lo, out_hi, out_num, out_nan):
    for i in range(a_lo.shape[0]):
        out_lo[i], out_hi[i], out_num[i], out_nan[i] = min_max1(a_lo[i], a_hi[i], a_num[i], a_nan[i], b_lo[i],
                                                                b_hi[i], b_num[i], b_nan[i], is_max, d3d)


@numba.njit(error_model="numpy")
def _exp2_end(a, power, near_power, factor, side):
    """One end of intervals.Evaluator._exp2: power = np.exp2(a), near_power = np.expm1(a * ln 2)."""
    if a == 0:
        end = 1.0
    else:
        end = power * (factor + side * (0.0 if a == np.floor(a) else SLACK))
    if (abs(a) < 2.0 ** -10) & (a != 0):
        d = near_power
        d = d + side * abs(d) * SLACK
        end = _sum(factor, d * factor, side)
    return end


@numba.njit(**JIT)
def exp2_rest(a_lo, a_hi, a_num, power_lo, power_hi, near_lo, near_hi, error, out_lo, out_hi):
    for i in range(a_lo.shape[0]):
        lo = _exp2_end(a_lo[i], power_lo[i], near_lo[i], 1.0 - error, -1.0)
        hi = _exp2_end(a_hi[i], power_hi[i], near_hi[i], 1.0 + error, 1.0)
        _store(lo, hi, a_num[i], out_lo, out_hi, i)


@numba.njit(error_model="numpy")
def _power_of_two(v):
    """intervals._power_of_two (np.frexp's mantissa is +-0.5) of one element, on its bits."""
    bits = float_bits(v) & 0x7FFFFFFFFFFFFFFF
    exponent, mantissa = bits >> 52, bits & 0xFFFFFFFFFFFFF
    normal = (exponent != 0) & (exponent != 0x7FF) & (mantissa == 0)
    return normal | ((exponent == 0) & (mantissa != 0) & ((mantissa & (mantissa - 1)) == 0))


@numba.njit(error_model="numpy")
def _log2_end(v, exact, error, side):
    """intervals.Evaluator._log2_end of one element: exact = np.log2(v)."""
    slack = abs(exact) * (0.0 if _power_of_two(v) else SLACK)
    spread = (error if (v >= 0.5) & (v <= 2.0) else abs(exact) * error) + slack
    return exact + side * spread if np.isfinite(exact) else exact


@numba.njit(**JIT)
def log2_rest(a_lo, a_hi, a_num, a_nan, v_lo, v_hi, exact_lo, exact_hi, error, out_lo, out_hi, out_num, out_nan):
    for i in range(a_lo.shape[0]):
        out_nan[i] = a_nan[i] | (a_num[i] & (a_lo[i] < 0))
        out_num[i] = a_num[i] & (a_hi[i] >= 0)
        lo = _log2_end(v_lo[i], exact_lo[i], error, -1.0)
        hi = _log2_end(v_hi[i], exact_hi[i], error, 1.0)
        _store(lo, hi, out_num[i], out_lo, out_hi, i)


class Evaluator(intervals.Evaluator):
    """intervals.Evaluator(FLOAT32), compiled where it matters (same values, same order)."""

    def __init__(self, nan_rule: str = "d3d"):
        super().__init__(FLOAT32, nan_rule)

    @staticmethod
    def _binary(kernel, a, b, *extra):
        n = a.lo.shape[0]
        out = Values(np.empty(n), np.empty(n), np.empty(n, bool), np.empty(n, bool))
        kernel(*_fields(a), *_fields(b), *extra, out.lo, out.hi, out.num, out.nan)
        return out

    def _flush(self, v):
        lo, hi = np.empty_like(v.lo), np.empty_like(v.hi)
        flush(_float64(v.lo), _float64(v.hi), _bool(v.num), lo, hi)
        return Values(lo, hi, v.num, v.nan)

    def _enclose(self, lo, hi, num, nan, correctly_rounded=False):
        lo, hi, num = _float64(lo), _float64(hi), _bool(num)
        out_lo, out_hi = np.empty_like(lo), np.empty_like(hi)
        enclose(lo, hi, num, out_lo, out_hi)
        return Values(out_lo, out_hi, num, nan)

    def _add(self, a, b):
        return self._binary(add, a, b)

    def _mul(self, a, b):
        return self._binary(mul, a, b)

    def _min(self, a, b):
        return self._binary(min_max, a, b, False, self.nan_rule == "d3d")

    def _max(self, a, b):
        return self._binary(min_max, a, b, True, self.nan_rule == "d3d")

    def _exp2(self, a):
        lo, hi = _float64(a.lo), _float64(a.hi)
        with np.errstate(all="ignore"):
            power_lo, power_hi = np.exp2(lo), np.exp2(hi)
            near_lo, near_hi = _near_zero_expm1(lo), _near_zero_expm1(hi)
        out_lo, out_hi = np.empty_like(lo), np.empty_like(hi)
        exp2_rest(lo, hi, _bool(a.num), power_lo, power_hi, near_lo, near_hi, self.fmt.transcendental,
                  out_lo, out_hi)
        return Values(out_lo, out_hi, a.num, a.nan)

    def _log2(self, a):
        lo, hi, num, nan = _fields(a)
        with np.errstate(all="ignore"):
            v_lo, v_hi = np.maximum(lo, 0.0), np.maximum(hi, 0.0)
            exact_lo, exact_hi = np.log2(v_lo), np.log2(v_hi)
        out = Values(np.empty_like(lo), np.empty_like(hi), np.empty_like(num), np.empty_like(nan))
        log2_rest(lo, hi, num, nan, v_lo, v_hi, exact_lo, exact_hi, self.fmt.transcendental,
                  out.lo, out.hi, out.num, out.nan)
        return out


@numba.njit(**JIT)
def near_zero(a, positions):
    """The positions of the elements exp2_rest takes near_power of (0 < |a| < 2**-10); -> their count."""
    count = 0
    for i in range(a.shape[0]):
        positions[count] = i
        count += (abs(a[i]) < 2.0 ** -10) & (a[i] != 0)
    return count


def _near_zero_expm1(a):
    """np.expm1(a * ln 2) where exp2_rest reads it (elsewhere zero, or the whole array's value where
    most elements are read): the same values there as the whole array's (the function is element-wise)."""
    positions = np.empty(a.shape[0], np.int64)
    count = near_zero(a, positions)
    if count > a.shape[0] // 4:  # most of them (a sweep's tiny inputs): gathering costs more than it saves
        out = np.multiply(a, np.log(2.0))
        return np.expm1(out, out=out)
    where = positions[:count]
    out = np.zeros_like(a)
    if where.size:
        out[where] = np.expm1(a[where] * np.log(2.0))
    return out


def _float64(values):
    return np.ascontiguousarray(values, dtype=np.float64)


def _bool(values):
    return np.ascontiguousarray(values, dtype=bool)


def _fields(v):
    return _float64(v.lo), _float64(v.hi), _bool(v.num), _bool(v.nan)
