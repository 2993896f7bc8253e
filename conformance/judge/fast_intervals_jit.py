"""judge/intervals.py's float32 evaluation with its busiest primitives compiled (numba).

`Evaluator` is intervals.Evaluator for the FLOAT32 format, the same tree walk, with
`_flush`, `_enclose`, `_add`, `_mul`, `_min`, `_max` and `_exp2` each one compiled pass
doing the numpy version's operations in its order (no fast-math); the transcendental
values themselves (np.exp2, np.expm1) still come from numpy, on whole arrays, as in the
numpy version. A subtree without x (a constant, rcp(Alpha)) is evaluated once and
repeated. Other primitives run the numpy methods unchanged. Rounding to float32 never
uses a float32 operation (_near32): the processor's slow path for subnormals stays out of
the loops.

tests/test_speed_equivalence.py holds the bounds equal to intervals.interval's.
"""
import numba
import numpy as np

from conformance.judge import intervals
from conformance.judge.fast_kernels_jit import bits_float, float_bits
from conformance.judge.intervals import FLOAT32, Values

JIT = dict(nogil=True, cache=True, error_model="numpy")
TINY = 2.0 ** -126  # smallest normal float32
SUB = 2.0 ** -149  # smallest subnormal float32
FLT_MAX = float(np.finfo(np.float32).max)
SLACK = 2.0 ** -50  # intervals._DOUBLE_SLACK
BLOCK = 1 << 18  # elements evaluated together: a few Python calls per span (the tree walk holds the GIL)


# Each helper computes every case and selects (no branches: the elements' cases are mixed, and a
# mispredicted branch costs more than the arithmetic).
@numba.njit(inline="always")
def _near32(v):
    """float64(float32(v)) without a float32 operation (which LLVM may hoist out of a branch, and
    which takes the processor's slow path when it makes a subnormal): below the normal range a
    multiple of 2**-149, above it the float64 bits rounded to 24 significant bits, half to even."""
    small = np.rint(v * 2.0 ** 149) * SUB
    bits = float_bits(v)
    rounded = bits_float((bits + 0x0FFFFFFF + ((bits >> 29) & 1)) & ~0x1FFFFFFF)
    rounded = rounded if abs(rounded) < 2.0 ** 128 else np.copysign(np.inf, v)
    rounded = rounded if abs(v) < np.inf else v  # NaN and the infinities stay
    return small if abs(v) < TINY else rounded


@numba.njit(inline="always")
def _down32(n):
    """np.nextafter(float32(n), -inf) of a float32 value n, in float64."""
    stepped = bits_float(float_bits(n) + (-(1 << 29) if n > 0 else (1 << 29)))
    stepped = stepped if stepped > -(2.0 ** 128) else -np.inf
    r = n - SUB if (n > -TINY) & (n <= TINY) else stepped
    r = FLT_MAX if n == np.inf else r
    return n if (n != n) | (n == -np.inf) else r


@numba.njit(inline="always")
def _up32(n):
    return -_down32(-n)


@numba.njit(inline="always")
def _floor32(v):
    nearest = _near32(v)
    down = _down32(nearest)
    return down if nearest > v else nearest


@numba.njit(inline="always")
def _ceil32(v):
    nearest = _near32(v)
    up = _up32(nearest)
    return up if nearest < v else nearest


@numba.njit(inline="always")
def _flush_lo(lo, hi, num):
    touches = num & (lo < TINY) & (hi > -TINY) & ((lo != 0) | (hi != 0))
    return 0.0 if touches & (lo > 0) else lo


@numba.njit(inline="always")
def _flush_hi(lo, hi, num):
    touches = num & (lo < TINY) & (hi > -TINY) & ((lo != 0) | (hi != 0))
    return -0.0 if touches & (hi < 0) else hi


@numba.njit(inline="always")
def _sum(a, b, side):
    """a + b rounded toward side (-1: down, +1: up), exact by TwoSum (intervals._sum_down_up)."""
    s = a + b
    bb = s - a
    error = (a - (s - bb)) + (b - bb)
    # the next float64 toward side: s is not zero where the sum was inexact
    following = bits_float(float_bits(s) + (1 if (s > 0) == (side > 0) else -1))
    return following if np.isfinite(s) & np.isfinite(error) & (error * side > 0) else s


@numba.njit(inline="always")
def _minimum(a, b):  # np.minimum: NaN-propagating, the second operand on ties
    return a if (a < b) | (a != a) else b


@numba.njit(inline="always")
def _maximum(a, b):
    return a if (a > b) | (a != a) else b


@numba.njit(inline="always")
def _store(lo, hi, num, out_lo, out_hi, i):
    """intervals.Evaluator._enclose for FLOAT32: outward to float32, then flushed."""
    lo, hi = _floor32(lo), _ceil32(hi)
    out_lo[i] = _flush_lo(lo, hi, num)
    out_hi[i] = _flush_hi(lo, hi, num)


@numba.njit(**JIT)
def enclose(lo, hi, num, out_lo, out_hi):
    for i in range(lo.shape[0]):
        _store(lo[i], hi[i], num[i], out_lo, out_hi, i)


@numba.njit(**JIT)
def flush(lo, hi, num, out_lo, out_hi):
    for i in range(lo.shape[0]):
        out_lo[i] = _flush_lo(lo[i], hi[i], num[i])
        out_hi[i] = _flush_hi(lo[i], hi[i], num[i])


@numba.njit(**JIT)
def add(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, out_lo, out_hi, out_num, out_nan):
    for i in range(a_lo.shape[0]):
        lo = _sum(a_lo[i], b_lo[i], -1.0)
        hi = _sum(a_hi[i], b_hi[i], 1.0)
        num = a_num[i] & b_num[i]
        opposite = ((a_hi[i] == np.inf) & (b_lo[i] == -np.inf)) | ((a_lo[i] == -np.inf) & (b_hi[i] == np.inf))
        out_num[i] = num
        out_nan[i] = a_nan[i] | b_nan[i] | (num & opposite)
        _store(-np.inf if lo != lo else lo, np.inf if hi != hi else hi, num, out_lo, out_hi, i)


@numba.njit(inline="always")
def _corner(value):
    return 0.0 if value != value else value


@numba.njit(**JIT)
def mul(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, out_lo, out_hi, out_num, out_nan):
    for i in range(a_lo.shape[0]):
        c0, c1 = _corner(a_lo[i] * b_lo[i]), _corner(a_lo[i] * b_hi[i])
        c2, c3 = _corner(a_hi[i] * b_lo[i]), _corner(a_hi[i] * b_hi[i])
        lo = _minimum(_minimum(_minimum(c0, c1), c2), c3)
        hi = _maximum(_maximum(_maximum(c0, c1), c2), c3)
        num = a_num[i] & b_num[i]
        zero_a = (a_lo[i] <= 0) & (a_hi[i] >= 0)
        zero_b = (b_lo[i] <= 0) & (b_hi[i] >= 0)
        inf_a = (a_hi[i] == np.inf) | (a_lo[i] == -np.inf)
        inf_b = (b_hi[i] == np.inf) | (b_lo[i] == -np.inf)
        out_num[i] = num
        out_nan[i] = a_nan[i] | b_nan[i] | (num & ((zero_a & inf_b) | (zero_b & inf_a)))
        _store(lo, hi, num, out_lo, out_hi, i)


@numba.njit(inline="always")
def _union(lo, hi, num, other_lo, other_hi, other_num):
    if not num:
        return other_lo, other_hi, other_num
    if other_num:
        return _minimum(lo, other_lo), _maximum(hi, other_hi), True
    return lo, hi, num


@numba.njit(**JIT)
def min_max(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, is_max, d3d, out_lo, out_hi, out_num, out_nan):
    """intervals.Evaluator._min_max: operands flushed, then min or max, and under the d3d NaN rule
    the union with either operand where the other may be NaN."""
    for i in range(a_lo.shape[0]):
        an, bn = a_num[i], b_num[i]
        alo, ahi = _flush_lo(a_lo[i], a_hi[i], an), _flush_hi(a_lo[i], a_hi[i], an)
        blo, bhi = _flush_lo(b_lo[i], b_hi[i], bn), _flush_hi(b_lo[i], b_hi[i], bn)
        both = an & bn
        if both:
            lo = _maximum(alo, blo) if is_max else _minimum(alo, blo)
            hi = _maximum(ahi, bhi) if is_max else _minimum(ahi, bhi)
        else:
            lo, hi = (alo, ahi) if an else (blo, bhi)
        num, nan = an | bn, a_nan[i] & b_nan[i]
        if d3d:  # Values.union with each operand where the other may be NaN
            lo, hi, num = _union(lo, hi, num, alo, ahi, an & b_nan[i])
            lo, hi, num = _union(lo, hi, num, blo, bhi, bn & a_nan[i])
        else:
            num, nan = both, a_nan[i] | b_nan[i]
        out_lo[i], out_hi[i], out_num[i], out_nan[i] = lo, hi, num, nan


@numba.njit(inline="always")
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


def _uses_x(node) -> bool:
    return node.op == "x" or any(_uses_x(arg) for arg in node.args if hasattr(arg, "op"))


class Evaluator(intervals.Evaluator):
    """intervals.Evaluator(FLOAT32), compiled where it matters (same values, same order)."""

    def __init__(self, nan_rule: str = "d3d"):
        super().__init__(FLOAT32, nan_rule)
        self._constant = {}

    def evaluate(self, node, x):
        if getattr(node, "op", "x") != "x" and not _uses_x(node):
            key = id(node)
            if key not in self._constant:  # the node stays alive in the formula the caller holds
                self._constant[key] = intervals.Evaluator(self.fmt, self.nan_rule).evaluate(
                    node, Values.points(np.zeros(1)))
            one, n = self._constant[key], x.lo.shape[0]
            return Values(np.full(n, one.lo[0]), np.full(n, one.hi[0]), np.full(n, one.num[0]),
                          np.full(n, one.nan[0]))
        return super().evaluate(node, x)

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
            near_lo, near_hi = np.expm1(lo * np.log(2.0)), np.expm1(hi * np.log(2.0))
        out_lo, out_hi = np.empty_like(lo), np.empty_like(hi)
        exp2_rest(lo, hi, _bool(a.num), power_lo, power_hi, near_lo, near_hi, self.fmt.transcendental,
                  out_lo, out_hi)
        return Values(out_lo, out_hi, a.num, a.nan)


def _float64(values):
    return np.ascontiguousarray(values, dtype=np.float64)


def _bool(values):
    return np.ascontiguousarray(values, dtype=bool)


def _fields(v):
    return _float64(v.lo), _float64(v.hi), _bool(v.num), _bool(v.nan)


def bounds(judge, x, expected):
    """judge.bounds(x, expected) for a float32 judge, flat float32 x."""
    if judge.exact or judge.dtype != np.float32:
        return judge.bounds(x, expected)
    evaluator = Evaluator(judge.nan_rule)
    x = np.asarray(x).reshape(-1)
    lo, hi, num, nan = np.empty(x.size), np.empty(x.size), np.empty(x.size, bool), np.empty(x.size, bool)
    for start in range(0, x.size, BLOCK):
        with np.errstate(invalid="ignore"):
            points = Values.points(x[start:start + BLOCK].astype(np.float64))
        v = evaluator.evaluate(judge.formula, points)
        end = start + v.lo.shape[0]
        lo[start:end], hi[start:end], num[start:end], nan[start:end] = v.lo, v.hi, v.num, v.nan
    return lo, hi, num, nan

