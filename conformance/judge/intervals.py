"""Acceptance intervals: what the Direct3D precision rules let a formula's result be.

A formula in primitives (conformance/specs/primitives.py) is evaluated over sets of
values, element by element: each set is a closed interval [lo, hi] of the extended
reals (num: it has a member) plus, possibly, NaN (nan). Endpoints are float64, rounded
outward; every primitive's result is widened by the accuracy Direct3D grants it and
enclosed in values of the format it computes in (ACCURACY below states each once).
This is the WebGPU CTS's method (src/webgpu/util/floating_point.ts) with Direct3D's
numbers (D3D11.3 functional spec, sections 3.1 and 22.10; the "Floating-point rules"
page of the Direct3D documentation):

- add, sub, mul: within 0.5 ULP of the exact result in float32, truncation allowed; in
  float16, rounded to nearest even ("16-bit rules adhere to 0.5 ULP for unfused operations").
- rcp, rsq, exp2: relative error 2^-21; log2: absolute 2^-21 on [0.5, 2], relative outside;
  sqrt: 1 ULP; mad: no worse than mul then add (serial; a fused result lies inside).
- float32 denormals may be flushed to sign-preserved zero on the input and output of
  arithmetic (and in min/max comparisons): a set touching the subnormal range also gets
  that zero. float16 denormals are preserved: no flushing in float16.
- float16 tensors: DirectML loads half and computes either in float, then stores half
  ("round-to-zero is used during conversion to another float format": Direct3D's data
  conversion rules; the exactly rounded, nearest-even value is accepted too), or in half, where "the 32-bit rules also hold, adjusted for the bit layout"
  (2^-21 in float's 23 fraction bits is 2^-8 in half's 10): the interval is the union of both.
Non-finite results follow Direct3D: inf - inf, 0 * inf, log2 of a negative, NaN operands
give NaN; min/max return the non-NaN operand (nan_rule "d3d").
"""
import itertools
import math
from dataclasses import dataclass

import numpy as np

from conformance.specs.primitives import Cond, Expr, substitute

INF = math.inf


@dataclass(frozen=True)
class Format:
    """A format a shader computes in, with the accuracy Direct3D grants its primitives."""
    name: str
    dtype: np.dtype
    transcendental: float  # rcp, rsq, exp2 relative error; log2 absolute error on [0.5, 2]
    sqrt_ulp: int
    truncation_allowed: bool  # add/sub/mul may truncate (float32) or must round to nearest (float16)
    flushes: bool  # denormals may flush on input and output of arithmetic


FLOAT32 = Format("float32", np.dtype(np.float32), 2.0 ** -21, 1, True, True)
FLOAT16 = Format("float16", np.dtype(np.float16), 2.0 ** -8, 1, False, False)
# The formats a tensor type may be computed in (the interval is their union).
COMPUTED_IN = {"float32": (FLOAT32,), "float16": (FLOAT32, FLOAT16)}
ACCURACY = (
    ("add, sub, mul", "float32: within 0.5 ULP, truncation allowed; float16: nearest even"),
    ("rcp, rsqrt, exp2", "relative 2^-21 (float16: 2^-8)"),
    ("log2", "absolute 2^-21 on [0.5, 2], relative 2^-21 elsewhere (float16: 2^-8)"),
    ("sqrt", "1 ULP"),
    ("exp2(+-0)", "exactly 1"),
    ("min, max, abs, neg, floor, ceil, round_ne, trunc", "exact (min/max: a NaN operand yields the other)"),
    ("float32 denormals", "may flush to sign-preserved zero on input and output of arithmetic"),
    ("float16 denormals", "preserved"),
    ("float to half on store", "round toward zero (Direct3D data conversion rules) or to nearest even"),
    ("stored", "a value held in a tensor of the case's type between layers: float16 rounded either way, "
               "or kept in float (a fused operator)"),
)
_DOUBLE_SLACK = 2.0 ** -50  # float64 exp2/log2/rcp/sqrt are within a few float64 ULP of exact


def _power_of_two(v):
    mantissa, _ = np.frexp(v)
    return np.abs(mantissa) == 0.5


def _slack(exact):
    """No slack where float64 computed the primitive exactly: the bounds stay tight there."""
    return np.where(exact, 0.0, _DOUBLE_SLACK)


class Values:
    """A set of values per element: [lo, hi] (if num) and NaN (if nan)."""
    __slots__ = ("lo", "hi", "num", "nan")

    def __init__(self, lo, hi, num, nan):
        self.lo, self.hi, self.num, self.nan = lo, hi, num, nan

    @classmethod
    def points(cls, values):
        values = np.asarray(values, dtype=np.float64)
        missing = np.isnan(values)
        clean = np.where(missing, 0.0, values)
        return cls(clean, clean.copy(), ~missing, missing)

    def union(self, other):
        lo = np.where(self.num, np.where(other.num, np.minimum(self.lo, other.lo), self.lo), other.lo)
        hi = np.where(self.num, np.where(other.num, np.maximum(self.hi, other.hi), self.hi), other.hi)
        return Values(lo, hi, self.num | other.num, self.nan | other.nan)

    def pick(self, mask, other):
        """self where mask, else other."""
        return Values(np.where(mask, self.lo, other.lo), np.where(mask, self.hi, other.hi),
                      np.where(mask, self.num, other.num), np.where(mask, self.nan, other.nan))


def _next_down(values, dtype):
    return np.nextafter(values.astype(dtype), dtype.type(-INF)).astype(np.float64)


def _next_up(values, dtype):
    return np.nextafter(values.astype(dtype), dtype.type(INF)).astype(np.float64)


def floor_to(values, dtype):
    """The largest value of dtype <= each value (float64 in, float64 out)."""
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = values.astype(dtype).astype(np.float64)
        return np.where(nearest > values, _next_down(nearest, dtype), nearest)


def ceil_to(values, dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = values.astype(dtype).astype(np.float64)
        return np.where(nearest < values, _next_up(nearest, dtype), nearest)


def nearest_to(values, dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(dtype).astype(np.float64)


def _sum_down_up(a, b):
    """(a + b rounded toward -inf, toward +inf) in float64, exact by TwoSum."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        bb = s - a
        error = (a - (s - bb)) + (b - bb)
    finite = np.isfinite(s) & np.isfinite(error)
    down = np.where(finite & (error < 0), np.nextafter(s, -INF), s)
    up = np.where(finite & (error > 0), np.nextafter(s, INF), s)
    return down, up


def _near_one(v, factor, side):
    """factor * 2**v for small v, rounded toward side (-1: down, +1: up) in float64."""
    with np.errstate(all="ignore"):
        d = np.expm1(v * np.log(2.0))
        d = d + side * np.abs(d) * _DOUBLE_SLACK  # expm1 and the product are within a few ULP
        down, up = _sum_down_up(np.full_like(d, factor), d * factor)
    return down if side < 0 else up


class Evaluator:
    """Evaluates a formula over the exact inputs x, computing in one Format."""

    def __init__(self, fmt: Format, nan_rule: str = "d3d", tensor=None):
        self.fmt = fmt
        self.nan_rule = nan_rule
        self.tensor = np.dtype(tensor or fmt.dtype)  # the case's tensor type (stored values)

    # -- enclosure in the computing format --------------------------------------------------
    def _flush(self, v: Values) -> Values:
        if not self.fmt.flushes:
            return v
        tiny = float(np.finfo(self.fmt.dtype).smallest_normal)
        touches = v.num & (v.lo < tiny) & (v.hi > -tiny) & ~((v.lo == 0) & (v.hi == 0))
        lo = np.where(touches & (v.lo > 0), 0.0, v.lo)
        hi = np.where(touches & (v.hi < 0), -0.0, v.hi)
        return Values(lo, hi, v.num, v.nan)

    def _enclose(self, lo, hi, num, nan, correctly_rounded=False) -> Values:
        dtype = self.fmt.dtype
        if correctly_rounded and not self.fmt.truncation_allowed:
            lo, hi = nearest_to(lo, dtype), nearest_to(hi, dtype)
        else:
            lo, hi = floor_to(lo, dtype), ceil_to(hi, dtype)
        return self._flush(Values(lo, hi, num, nan))

    def enclose(self, lo, hi, num, nan) -> Values:
        """[lo, hi] (float64) in values of the computing format, rounded outward, flushed where it may."""
        return self._enclose(lo, hi, num, nan)

    def _relative(self, lo, hi, error, error_hi=None):
        """Widen [lo, hi] by a relative error (sign-aware; error_hi: the upper end's, if other)."""
        error_hi = error if error_hi is None else error_hi
        lo = np.where(lo < 0, lo * (1.0 + error), lo * (1.0 - error))
        return lo, np.where(hi < 0, hi * (1.0 - error_hi), hi * (1.0 + error_hi))

    # -- evaluation -----------------------------------------------------------------------------
    def evaluate(self, node, x) -> Values:
        """x: the input's Values, or for several inputs {name: Values} (None: the first input)."""
        if isinstance(node, Cond):
            raise TypeError("a condition is not a value: use select()")
        if node.op == "x":
            return self._flush(x[node.info] if isinstance(x, dict) else x)
        if node.op == "const":
            return self._const(node, x)
        if node.op == "undefined":
            return self._undefined(node, x)
        if node.op == "select":
            return self._select(node, x)
        return self.apply(node, [self.evaluate(a, x) for a in node.args])

    def apply(self, node, args) -> Values:
        """node's primitive on its arguments' values."""
        if node.op == "declared":
            return self._declared(node.info, args)
        return getattr(self, "_" + node.op)(*args)

    def _x(self, x):  # pragma: no cover - evaluate() handles the leaf
        return x

    def _const(self, node, x):
        shape = (x[None] if isinstance(x, dict) else x).lo.shape
        value = node.value
        if math.isfinite(value):
            value = float(nearest_to(np.float64(value), self.fmt.dtype))
        if node.info is None:
            return Values.points(np.full(shape, value))
        ends = sorted((value, node.info))  # a rounded mathematical constant: either value
        return Values(np.full(shape, ends[0]), np.full(shape, ends[1]), np.ones(shape, bool), np.zeros(shape, bool))

    def _undefined(self, node, x):
        """Any value, NaN included (the page leaves the result undefined)."""
        shape = (x[None] if isinstance(x, dict) else x).lo.shape
        return Values(np.full(shape, -INF), np.full(shape, INF), np.ones(shape, bool), np.ones(shape, bool))

    def _add(self, a, b):
        lo, _ = _sum_down_up(a.lo, b.lo)
        _, hi = _sum_down_up(a.hi, b.hi)
        num = a.num & b.num
        opposite = ((a.hi == INF) & (b.lo == -INF)) | ((a.lo == -INF) & (b.hi == INF))
        nan = a.nan | b.nan | (num & opposite)
        lo, hi = np.where(np.isnan(lo), -INF, lo), np.where(np.isnan(hi), INF, hi)
        return self._enclose(lo, hi, num, nan, correctly_rounded=True)

    def _sub(self, a, b):
        return self._add(a, self._neg(b))

    def _mul(self, a, b):
        with np.errstate(invalid="ignore", over="ignore"):
            corners = np.stack([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])
        corners = np.where(np.isnan(corners), 0.0, corners)  # 0 * inf: NaN below; 0 keeps the hull sound
        num = a.num & b.num
        zero_a, zero_b = (a.lo <= 0) & (a.hi >= 0), (b.lo <= 0) & (b.hi >= 0)
        inf_a, inf_b = (a.hi == INF) | (a.lo == -INF), (b.hi == INF) | (b.lo == -INF)
        nan = a.nan | b.nan | (num & ((zero_a & inf_b) | (zero_b & inf_a)))
        return self._enclose(corners.min(axis=0), corners.max(axis=0), num, nan, correctly_rounded=True)

    def _neg(self, a):
        return Values(-a.hi, -a.lo, a.num, a.nan)

    def _abs(self, a):
        lo = np.where(a.lo >= 0, a.lo, np.where(a.hi <= 0, -a.hi, 0.0))
        hi = np.maximum(np.abs(a.lo), np.abs(a.hi))
        return Values(lo, hi, a.num, a.nan)

    def _monotone_exact(self, function, a):
        return Values(function(a.lo), function(a.hi), a.num, a.nan)

    def _floor(self, a):
        return self._monotone_exact(np.floor, a)

    def _ceil(self, a):
        return self._monotone_exact(np.ceil, a)

    def _trunc(self, a):
        return self._monotone_exact(np.trunc, a)

    def _round_ne(self, a):
        return self._monotone_exact(np.rint, a)

    def _min(self, a, b):
        return self._min_max(a, b, np.minimum)

    def _max(self, a, b):
        return self._min_max(a, b, np.maximum)

    def _min_max(self, a, b, pick):
        a, b = self._flush(a), self._flush(b)
        both = a.num & b.num
        lo = np.where(both, pick(a.lo, b.lo), np.where(a.num, a.lo, b.lo))
        hi = np.where(both, pick(a.hi, b.hi), np.where(a.num, a.hi, b.hi))
        result = Values(lo, hi, a.num | b.num, a.nan & b.nan)
        if self.nan_rule == "d3d":
            # A NaN operand yields the other operand: all of it may come through.
            result = result.union(Values(a.lo, a.hi, a.num & b.nan, np.zeros_like(a.nan)))
            result = result.union(Values(b.lo, b.hi, b.num & a.nan, np.zeros_like(b.nan)))
        else:
            result = Values(result.lo, result.hi, both, a.nan | b.nan)
        return result

    def _stored(self, a):
        """In a tensor narrower than the computing format, either neighbour of the tensor type (or the
        value itself, which lies between them)."""
        if self.tensor.itemsize >= self.fmt.dtype.itemsize:
            return a
        return Values(floor_to(a.lo, self.tensor), ceil_to(a.hi, self.tensor), a.num, a.nan)

    def _rcp(self, a):
        with np.errstate(divide="ignore"):
            point = a.lo == a.hi
            positive = (a.lo > 0) | ((a.lo == 0) & ~np.signbit(a.lo) & (a.hi > 0))
            negative = (a.hi < 0) | ((a.hi == 0) & np.signbit(a.hi) & (a.lo < 0))
            one_side = point | positive | negative
            lo = np.where(one_side, np.reciprocal(a.hi), -INF)
            hi = np.where(one_side, np.reciprocal(a.lo), INF)
        error = self.fmt.transcendental
        lo, hi = self._relative(lo, hi, error + _slack(_power_of_two(a.hi)), error + _slack(_power_of_two(a.lo)))
        return self._enclose(lo, hi, a.num, a.nan)

    def _rsqrt(self, a):
        with np.errstate(divide="ignore", invalid="ignore"):
            nan = a.nan | (a.num & (a.lo < 0))
            num = a.num & (a.hi >= 0)
            low, high = np.where(a.lo < 0, -0.0, a.lo), np.where(a.hi < 0, -0.0, a.hi)
            lo, hi = 1.0 / np.sqrt(high), 1.0 / np.sqrt(low)  # decreasing; rsq(-0) = -inf
            negative_zero = (low == 0) & np.signbit(low)
            only_negative_zero = negative_zero & (high == 0) & np.signbit(high)
            lo = np.where(negative_zero, -INF, lo)
            hi = np.where(only_negative_zero, -INF, np.where(negative_zero, INF, hi))
        error = self.fmt.transcendental
        lo, hi = self._relative(lo, hi, error + _DOUBLE_SLACK)
        return self._enclose(lo, hi, num, nan)

    def _sqrt(self, a):
        with np.errstate(invalid="ignore"):
            nan = a.nan | (a.num & (a.lo < 0))
            num = a.num & (a.hi >= 0)
            lo = np.sqrt(np.where(a.lo < 0, -0.0, a.lo))  # sqrt(-0) = -0
            hi = np.sqrt(np.where(a.hi < 0, -0.0, a.hi))
        lo, hi = self._relative(lo, hi, _slack(lo * lo == np.where(a.lo < 0, 0.0, a.lo)),
                                _slack(hi * hi == np.where(a.hi < 0, 0.0, a.hi)))
        v = self._enclose(lo, hi, num, nan)
        dtype = self.fmt.dtype
        for _ in range(self.fmt.sqrt_ulp):
            v = Values(np.where(v.lo > 0, _next_down(v.lo, dtype), v.lo), _next_up(v.hi, dtype), v.num, v.nan)
        return v

    def _exp2(self, a):
        error = self.fmt.transcendental
        with np.errstate(over="ignore", invalid="ignore"):
            lo = np.where(a.lo == 0, 1.0, np.exp2(a.lo) * (1.0 - error - _slack(a.lo == np.floor(a.lo))))
            hi = np.where(a.hi == 0, 1.0, np.exp2(a.hi) * (1.0 + error + _slack(a.hi == np.floor(a.hi))))
            # Near 0, exp2 rounds to 1 in float64: (1 + expm1) with a directed sum keeps the side of 1.
            near = np.abs(a.lo) < 2.0 ** -10
            lo = np.where(near & (a.lo != 0), _near_one(a.lo, 1.0 - error, -1), lo)
            near = np.abs(a.hi) < 2.0 ** -10
            hi = np.where(near & (a.hi != 0), _near_one(a.hi, 1.0 + error, +1), hi)
        return self._enclose(lo, hi, a.num, a.nan)

    def _log2(self, a):
        error = self.fmt.transcendental
        with np.errstate(divide="ignore", invalid="ignore"):
            nan = a.nan | (a.num & (a.lo < 0))
            num = a.num & (a.hi >= 0)
            lo = self._log2_end(np.maximum(a.lo, 0.0), error, -1)
            hi = self._log2_end(np.maximum(a.hi, 0.0), error, +1)
        return self._enclose(lo, hi, num, nan)

    @staticmethod
    def _log2_end(v, error, side):
        exact = np.log2(v)
        slack = np.abs(exact) * _slack(_power_of_two(v))
        near_one = (v >= 0.5) & (v <= 2.0)
        spread = np.where(near_one, error, np.abs(exact) * error) + slack
        return np.where(np.isfinite(exact), exact + side * spread, exact)

    def _select(self, node, x):
        condition, if_true, if_false = node.args
        may_true, may_false = self._condition(condition, x)
        a, b = self.evaluate(if_true, x), self.evaluate(if_false, x)
        either = a.union(b)
        return either.pick(may_true & may_false, a.pick(may_true, b))

    def _condition(self, cond, x):
        """(may be true, may be false) per element."""
        args = [self._flush(self.evaluate(arg, x)) for arg in cond.args]
        a = args[0]
        if cond.op == "is_nan":
            return a.nan, a.num
        if cond.op == "is_inf":
            infinite = (a.hi == INF) | (a.lo == -INF)
            only_infinite = ((a.lo == a.hi) & infinite)
            return a.num & infinite, a.nan | (a.num & ~only_infinite)
        b = args[1]
        both = a.num & b.num
        unordered = a.nan | b.nan | ~both
        if cond.op in ("lt", "gt"):
            a, b = (a, b) if cond.op == "lt" else (b, a)
            return both & (a.lo < b.hi), unordered | (a.hi >= b.lo)
        if cond.op in ("le", "ge"):
            a, b = (a, b) if cond.op == "le" else (b, a)
            return both & (a.lo <= b.hi), unordered | (a.hi > b.lo)
        overlap = both & (a.lo <= b.hi) & (b.lo <= a.hi)
        distinct = unordered | ~((a.lo == a.hi) & (b.lo == b.hi) & (a.lo == b.lo))
        return (overlap, distinct) if cond.op == "eq" else (distinct, overlap)

    def _declared(self, info, args):
        with np.errstate(all="ignore"):
            point = np.logical_and.reduce([a.lo == a.hi for a in args])
            if len(args) == 1:
                f_lo, f_hi = info.reference(args[0].lo), info.reference(args[0].hi)
            else:  # every corner of the arguments' box (a signed zero's two ends: atan2(+-0, -1))
                corners = [info.reference(*ends) for ends in itertools.product(*((a.lo, a.hi) for a in args))]
                f_lo, f_hi = np.minimum.reduce(corners), np.maximum.reduce(corners)
            if info.monotone == "decreasing":
                f_lo, f_hi = f_hi, f_lo
            elif info.monotone != "increasing":
                f_lo = np.where(point, f_lo, info.bounds[0])
                f_hi = np.where(point, f_hi, info.bounds[1])
            num = np.logical_and.reduce([a.num for a in args])
            nan = np.logical_or.reduce([a.nan for a in args]) | (num & (np.isnan(f_lo) | np.isnan(f_hi)))
            num = num & ~(np.isnan(f_lo) & np.isnan(f_hi))
            f_lo = np.where(np.isnan(f_lo), -INF, f_lo)
            f_hi = np.where(np.isnan(f_hi), INF, f_hi)
            spacing_lo, spacing_hi = self._spacing(f_lo), self._spacing(f_hi)
            ulp, absolute, relative = (self._in_format(e) for e in (info.ulp, info.abs_error, info.rel_error))
            lo = f_lo - ulp * spacing_lo - absolute - np.abs(f_lo) * (relative + _DOUBLE_SLACK)
            hi = f_hi + ulp * spacing_hi + absolute + np.abs(f_hi) * (relative + _DOUBLE_SLACK)
            lo, hi = np.maximum(lo, info.bounds[0]), np.minimum(hi, info.bounds[1])
        return self._enclose(lo, hi, num, nan)

    def _in_format(self, accuracy) -> float:
        """A declared accuracy: one number, or {format name: number} (a table that grants float32
        and float16 different figures)."""
        return accuracy[self.fmt.name] if isinstance(accuracy, dict) else accuracy

    def _spacing(self, values):
        """One ULP of the computing format at each value."""
        finfo = np.finfo(self.fmt.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            _, exponent = np.frexp(np.where(np.isfinite(values), values, 0.0))
        return np.ldexp(1.0, np.maximum(exponent - 1, finfo.minexp) - finfo.nmant)


def scale_bias(formula: Expr, scale_bias) -> Expr:
    """DML_SCALE_BIAS applies x * Scale + Bias first, as a mad (serially rounded bounds), to each
    input element: of an operator of several inputs, to every input (the pages' "each input element";
    POW's exponent too, as DirectML does)."""
    if not scale_bias:
        return formula
    from conformance.specs.primitives import lift
    scale, bias = lift(scale_bias.get("Scale", 1.0)), lift(scale_bias.get("Bias", 0.0))
    return substitute(formula, lambda leaf: leaf * scale + bias, every=True)


def interval(formula: Expr, x, dtype: str, nan_rule: str = "d3d", formats=None, names=None) -> Values:
    """The acceptance set of each element of x (exact inputs of the tensor type dtype), in
    values of dtype; formats: those the computation may use (default COMPUTED_IN[dtype]).
    Several inputs: x a tuple of flat arrays of one length, names their names (A, B) in order."""
    target = np.dtype(dtype)
    with np.errstate(invalid="ignore"):
        if isinstance(x, tuple):
            points = {name: Values.points(np.asarray(v).astype(np.float64)) for name, v in zip(names, x)}
            points[None] = points[names[0]]
        else:
            points = Values.points(np.asarray(x).astype(np.float64))
    result = None
    for fmt in formats or COMPUTED_IN[target.name]:
        v = Evaluator(fmt, nan_rule, target).evaluate(formula, points)
        if fmt.dtype != target:  # stored: rounded toward zero (Direct3D) or to nearest (IEEE)
            v = Values(floor_to(v.lo, target), ceil_to(v.hi, target), v.num, v.nan)
        result = v if result is None else result.union(v)
    return result
