"""The d3d model of an accumulating operator (REDUCE, GEMM, softmax, ...): each output element's
acceptance interval from its spec's steps (conformance/specs/accumulation.py), sound for every order
of summation a device (or a vendor's metacommand) may choose.

The error model, stated once (ERROR_MODEL; Higham, Accuracy and Stability of Numerical Algorithms,
2nd ed., 2002, sections 3.1-3.4):
- a sum of n terms in any order, each add within u relatively: |s' - s| <= gamma(n - 1) * sum |t_i|,
  gamma(k) = k u / (1 - k u); a sum of n products (Dot): gamma(n) (a fused mad lies inside); a term
  the device may add into the same accumulator (a Dot's addend: CONVOLUTION's bias, GEMM's Beta * C,
  which a kernel may start its accumulator with) is one more term: gamma(n + 1) over the magnitudes
  with it (added after the sum, u |S + b| alone would miss the n roundings of partial sums near b);
- u: float32 2^-23 (Direct3D lets float32 add and mul truncate), float16 2^-11 (nearest even);
  a float16 tensor is summed in float32 unless the case's ExecutionFlags allow half precision,
  where float16 summation is allowed too (the union of both);
- each add may also flush a float32 denormal (absolute 2^-126; float16 keeps its denormals: half
  its smallest, 2^-25), and a flushed float32 input changes a product by at most 2^-126 times the
  other factor;
- a product of n factors: |p' - p| <= gamma(n - 1) |p|, and 0 where some order's partial product
  may underflow;
- an order whose partial sums may pass the format's largest finite value may give that infinity
  (both: NaN too), or in float32, truncated, that largest value, from which later terms of the other
  sign bring it back (a product: down to the largest value times the factors below 1);
- the terms and the steps after the sums are the element-wise primitives with Direct3D's accuracy
  (conformance/judge/intervals.py), the store Direct3D's conversion;
- the oracle's float64 sums carry their own bound, gamma(n) with u = 2^-53, which joins the interval;
- where a device computes a Dot's coefficients itself (RESAMPLE's linear weights from float32 coordinates),
  the exact sum's range over their possible values (the spec's Dot.spread) joins the bound; where those
  coefficients may read a NaN or an infinity the exact ones read with weight 0, or not read one they read
  with weight 0 (Dot.reach), the sum's IEEE values over them join the set: a number (the sum of the finite
  products, within the bound), NaN, an infinity;
- where a spec allows several ways of computing the page's formula (alternatives), the union of their
  sets, except where one computes a finite number: there an alternative whose sums or other earlier
  steps may overflow adds nothing, and no alternative's NaN or infinity is accepted (_united).
"""
from dataclasses import replace
from functools import partial, reduce

import numpy as np

from conformance.judge.compare import (WORST_SHOWN, Comparison, empty_interval_summary, hex_bits, jsonable,
                                       ulp_histogram, wrong_type_or_shape)
from conformance.judge.intervals import COMPUTED_IN, FLOAT32, Evaluator, Values, ceil_to, floor_to
from conformance.judge.ulp import ulp_distance
from conformance.specs.base import half_precision_allowed
from conformance.specs.accumulation import Dot, Extreme, Product, Sum, Then, gamma

ERROR_MODEL = (
    ("sum of n terms, any order", "|s' - s| <= gamma(n - 1) * sum |t_i|, gamma(k) = k u / (1 - k u)"),
    ("sum of n products, any order", "|s' - s| <= gamma(n) * sum |a_i b_i| (fused mad inside)"),
    ("a term added into the products' sum", "a bias or Beta * C a device may start the accumulator with: one more "
                                            "term, gamma(n + 1) * (sum |a_i b_i| + |b|)"),
    ("product of n factors", "|p' - p| <= gamma(n - 1) * |p|; 0 where a partial product may underflow"),
    ("u", "float32 2^-23 (truncation allowed); float16 2^-11, only with ALLOW_HALF_PRECISION_COMPUTATION"),
    ("denormals", "float32 may flush on each operation (2^-126 each); float16 keeps them (2^-25 each)"),
    ("overflow", "an order whose partial sums pass the largest finite value may give that infinity, or (float32, "
                 "truncated) that value, which later terms of the other sign bring back"),
    ("oracle", "float64 sums within gamma(n) with u = 2^-53, added to the interval"),
    ("computed coefficients", "where a device computes a sum's coefficients (linear interpolation's weights), the "
                              "exact sum's range over their possible values (Dot.spread), added to the bound; and "
                              "where they may read a NaN or infinity of weight 0 or not (Dot.reach), a number, NaN "
                              "or that infinity as the IEEE sum over them may give"),
    ("alternatives", "the union of the ways a spec allows (one or two passes, / sqrt or * rsqrt); where one gives a "
                     "finite number, another whose sums overflow adds nothing, and NaN and infinities are refused"),
)
_F64_U = 2.0 ** -53
_SLACK = 1.0 + 2.0 ** -40  # the float64 arithmetic of the radius itself


def formats(dtype: str, params: dict) -> tuple:
    """The formats the accumulation may be carried in: float16 only where the case allows it."""
    if np.dtype(dtype).name == "float16" and half_precision_allowed(params):
        return COMPUTED_IN["float16"]
    return (FLOAT32,)


def unit_roundoff(fmt) -> float:
    eps = float(np.finfo(fmt.dtype).eps)
    return eps if fmt.truncation_allowed else eps / 2


def _underflow_step(fmt) -> float:
    info = np.finfo(fmt.dtype)
    return float(info.smallest_normal) if fmt.flushes else float(info.smallest_subnormal)


def integer_bounds(spec, inputs, params, dtype) -> tuple:
    """(lo, hi) of an integer output that is its real result converted by a rounding the page does not give
    (OperatorSpec.rounded_integers): the floor of the float32 interval's low end to the ceiling of its high
    end, within the type's range; the inputs are exact in float32 (8-bit integers)."""
    allowed = interval(spec, tuple(np.asarray(x, np.float32) for x in inputs), params, "float32")
    info = np.iinfo(dtype)
    ends = ((np.floor, allowed.lo, info.min), (np.ceil, allowed.hi, info.max))
    lo, hi = (np.clip(f(np.nan_to_num(v, nan=m, posinf=info.max, neginf=info.min)), info.min, info.max).astype(dtype)
              for f, v, m in ends)
    return lo, hi


def interval(spec, inputs, params: dict, dtype: str, output: int = 0) -> Values:
    """Each output element's acceptance set in the output's type (float64 endpoints); output: which
    output, where the spec has several (the step named as that output, without "Tensor"; one output:
    the last step)."""
    chosen = spec.outputs_for(params)[output]
    target = np.dtype(spec.tensor_type(chosen.name, dtype, params))
    names = [t.short for t in spec.input_tensors(params)]
    points = {name: Values.points(np.asarray(v).astype(np.float64)) for name, v in zip(names, inputs)}
    points[None] = points[names[0]] if names else None
    methods, overflows = [], []
    with np.errstate(all="ignore"):
        for steps in spec.accumulation_for(params):
            result, overflow = None, False
            for fmt in formats(target.name, params):  # the output's type (an integer input's float output)
                env = _evaluate(steps, Evaluator(fmt, "d3d", target), dict(points), inputs, params)
                value = env.get(chosen.short, env["last"])
                value = Values(floor_to(value.lo, target), ceil_to(value.hi, target), value.num, value.nan)
                result = value if result is None else result.union(value)
                overflow = overflow | _overflowed(steps, env, chosen.short, value.lo.shape)
            methods.append(result)
            overflows.append(overflow)
    if any(np.asarray(v).dtype.kind == "f" and not np.isfinite(v).all() for v in inputs):
        # an alternative's NaN or infinity may come of reading a NaN or infinity (RESAMPLE's coordinates
        # may read an element another reading of the page does not), not of overflow: every set stays whole
        return reduce(Values.union, methods)
    return _united(methods, overflows, target)


def _overflowed(steps, env, output: str, shape):
    """Where a step before the output (a sum, its terms, a mean) may pass the largest finite value."""
    out = np.zeros(shape, bool)
    for step in steps:
        if step.name == output or step is steps[-1]:
            break
        v = env[step.name]
        flag = v.num & (np.isinf(v.lo) | np.isinf(v.hi))
        try:
            out = out | np.broadcast_to(flag, shape)
        except ValueError:  # a step in a layout of its own (ROI_ALIGN's samples): anywhere in it counts everywhere
            out = out | np.any(flag)
    return out


def _united(methods, overflows, target) -> Values:
    """The union of the alternatives' sets, except where one computes a finite number: there an alternative
    whose earlier steps overflow (LOG_SUM_EXP as the page writes it, at logits past 88) is no way of computing
    the page's result and adds nothing, and another's infinities and NaN add nothing either, while its finite
    values stay (the one-pass variance, which cancellation may leave anywhere near 0 or below it where two
    passes compute a number: its result is then any number, and a NaN from a negative variance is not the
    page's result)."""
    finite = [m.num & ~m.nan & np.isfinite(m.lo) & np.isfinite(m.hi) for m in methods]
    some = np.logical_or.reduce(finite) if len(methods) > 1 else None
    largest = float(np.finfo(target).max)
    result = None
    for method, ok, overflow in zip(methods, finite, overflows):
        if some is not None:
            drop = some & ~ok
            lo = np.where(drop, np.maximum(method.lo, -largest), method.lo)
            hi = np.where(drop, np.minimum(method.hi, largest), method.hi)
            num = method.num & (lo <= hi) & ~(drop & overflow)
            method = Values(np.where(num, lo, np.inf), np.where(num, hi, -np.inf), num, method.nan & ~drop)
        result = method if result is None else result.union(method)
    return result


def _evaluate(steps, ev, env, inputs, params) -> dict:
    value = None
    shapes = tuple(np.shape(v) for v in inputs)
    for step in steps:
        if getattr(step, "shaped", False):  # its reduce reads the inputs' own shapes
            step = replace(step, reduce=partial(step.reduce, shapes=shapes))
        if isinstance(step, Then):
            read = _reads(step.formula)
            steps_only = {name: env[name] for name in read if name in env and name is not None}
            if None not in read and steps_only:  # of reduced values alone: constants take their shape
                steps_only[None] = next(iter(steps_only.values()))
                value = ev.evaluate(step.formula, steps_only)
            else:
                value = ev.evaluate(step.formula, env)
        elif isinstance(step, Dot):
            value = _dot(step, ev, inputs, params)
        else:
            term = ev.evaluate(step.term, env)
            if isinstance(step, Sum):
                value, count = _sum(step, ev, term, params)
                env[step.name + "_n"] = Values.points(count)  # its count of terms, as count_of(name) reads it
            else:
                value = {Product: _product, Extreme: _extreme}[type(step)](step, ev, term, params)
        env[step.name] = value
    env["last"] = value
    return env


def _reads(node) -> set:
    """The inputs and steps a formula reads (None: the first input, X)."""
    if getattr(node, "op", None) == "x":
        return {node.info}
    return set().union(*(_reads(a) for a in getattr(node, "args", ())))


def _sum(step, ev, t: Values, params) -> tuple:
    """(the sums' enclosure, the number of terms of each)."""
    reduce = step.reduce(params)
    fmt = ev.fmt
    u, largest = unit_roundoff(fmt), float(np.finfo(fmt.dtype).max)
    lo_t, hi_t = np.where(t.num, t.lo, 0.0), np.where(t.num, t.hi, 0.0)
    size = np.where(t.num, np.maximum(np.abs(lo_t), np.abs(hi_t)), 0.0)
    finite = np.isfinite(size)
    n = reduce(np.ones(t.lo.shape))
    low, high = reduce(lo_t), reduce(hi_t)
    magnitude = reduce(np.where(finite, size, 0.0))
    radius = ((gamma(n - 1, u) + gamma(n, _F64_U)) * magnitude + 2 * n * _underflow_step(fmt)) * _SLACK
    positive = reduce(np.where(finite, np.maximum(hi_t, 0.0), 0.0)) + radius
    negative = reduce(np.where(finite, np.minimum(lo_t, 0.0), 0.0)) - radius
    up, down = positive > largest, negative < -largest
    undefined = np.isnan(low) | np.isnan(high)  # +inf and -inf terms
    nan = (reduce(t.nan.astype(np.float64)) > 0) | (up & down) | undefined
    num = reduce((~t.num).astype(np.float64)) == 0
    lo = np.where(down | undefined, -np.inf, low - radius)
    hi = np.where(up | undefined, np.inf, high + radius)
    lo, hi = _saturated(fmt, lo, hi, up, down, negative, positive)
    return ev.enclose(lo, hi, num, nan), n


def _saturated(fmt, lo, hi, up, down, negative, positive) -> tuple:
    """A float32 add may truncate a partial sum past the largest finite value to that value (not
    infinity: intervals.py's add allows it), and later terms bring it back: where the positive terms
    may overflow, the result may lie anywhere down to the negative terms' sum, and the reverse."""
    if not fmt.truncation_allowed:
        return lo, hi
    return np.where(up, np.minimum(lo, negative), lo), np.where(down, np.maximum(hi, positive), hi)


def _dot(step, ev, inputs, params) -> Values:
    fmt = ev.fmt
    u, largest = unit_roundoff(fmt), float(np.finfo(fmt.dtype).max)
    exact, magnitude = _terms(step, inputs, params)
    n = np.asarray(step.count(inputs, params), dtype=np.float64) + (step.addend is not None)
    factors = max((float(np.nanmax(np.abs(np.where(np.isfinite(x), x, 0.0)), initial=0.0))
                   for x in map(np.asarray, inputs) if x.dtype.kind == "f"), default=0.0)
    step_abs = _underflow_step(fmt)
    radius = ((gamma(n, u) + gamma(n, _F64_U)) * np.where(np.isfinite(magnitude), magnitude, 0.0)
              + n * step_abs * (2.0 + 2.0 * factors)) * _SLACK
    if step.spread is not None:  # coefficients the device computes: the exact sum's own range
        radius = radius + np.asarray(step.spread(inputs, params), dtype=np.float64)
    finite_exact, finite_magnitude = _finite_products(step, inputs, params, exact, magnitude)
    up = (finite_magnitude + finite_exact) / 2 + radius > largest  # the positive finite products' sum, the negatives'
    down = (finite_magnitude - finite_exact) / 2 + radius > largest
    # an infinite product beside finite ones whose sum of the other sign may overflow: inf - inf, NaN
    nan = np.isnan(exact) | (up & down) | ((exact == np.inf) & down) | ((exact == -np.inf) & up)
    nan = nan | (np.isinf(exact) & _flushed_times_infinite(step, inputs, params, fmt))
    lo = np.where(np.isnan(exact), -np.inf, np.where(down, -np.inf, exact - radius))
    hi = np.where(np.isnan(exact), np.inf, np.where(up, np.inf, exact + radius))
    lo, hi = _saturated(fmt, lo, hi, up & np.isfinite(exact), down & np.isfinite(exact),
                        (finite_exact - finite_magnitude) / 2 - radius, (finite_magnitude + finite_exact) / 2 + radius)
    lo, hi = np.where(np.isinf(exact) & ~nan, exact, lo), np.where(np.isinf(exact) & ~nan, exact, hi)
    num = ~np.isnan(exact)
    if step.reach is not None:
        lo, hi, num, nan = _reached(step, inputs, params, exact, finite_exact, lo, hi, num, nan,
                                    radius + (gamma(n, u) + gamma(n, _F64_U)) * finite_magnitude * _SLACK)
    return ev.enclose(lo, hi, num, nan)


def _reached(step, inputs, params, exact, finite_exact, lo, hi, num, nan, radius) -> tuple:
    """The set widened by what the sum in IEEE arithmetic may be over the coefficients a device may compute
    (Dot.reach): a number where the exact coefficients meet a NaN or infinity (the finite products' sum within
    radius), NaN, +inf, -inf."""
    number, may_nan, up, down = (np.asarray(v, dtype=bool) for v in step.reach(inputs, params))
    around = number & ~np.isfinite(exact)
    lo = np.where(around & (exact != -np.inf), np.minimum(np.where(np.isnan(exact), np.inf, lo), finite_exact - radius),
                  lo)
    hi = np.where(around & (exact != np.inf), np.maximum(np.where(np.isnan(exact), -np.inf, hi), finite_exact + radius),
                  hi)
    return np.where(down, -np.inf, lo), np.where(up, np.inf, hi), num | number | up | down, nan | may_nan


def _terms(step, inputs, params) -> tuple:
    """The Dot's float64 sums and sums of magnitudes, its addend (one more term) included."""
    exact = np.asarray(step.exact(inputs, params), dtype=np.float64)
    magnitude = np.asarray(step.magnitude(inputs, params), dtype=np.float64)
    if step.addend is None:
        return exact, magnitude
    extra = np.asarray(step.addend(inputs, params), dtype=np.float64)
    return exact + extra, magnitude + np.abs(extra)


def _flushed_times_infinite(step, inputs, params, fmt):
    """Where some product is an infinity times a float32 denormal, which a device may flush: 0 * inf, NaN
    (the Dot's first two inputs as its factors, the others absent)."""
    arrays = tuple(map(np.asarray, inputs))
    if not fmt.flushes or len(arrays) < 2 or any(x.dtype.kind != "f" for x in arrays[:2]):
        return False
    tiny = float(np.finfo(np.float32).smallest_normal)
    infinite = [np.isinf(x).astype(np.float64) for x in arrays[:2]]
    denormal = [((x != 0) & (np.abs(x) < tiny)).astype(np.float64) for x in arrays[:2]]
    if not any(i.any() for i in infinite) or not any(d.any() for d in denormal):
        return False
    rest = tuple(np.zeros(x.shape, dtype=x.dtype) for x in arrays[2:])
    meet = (np.asarray(step.exact((infinite[0], denormal[1], *rest), params))
            + np.asarray(step.exact((denormal[0], infinite[1], *rest), params)))
    return meet > 0


def _finite_products(step, inputs, params, exact, magnitude) -> tuple:
    """The Dot's sums over its finite products alone (an infinite or NaN input element taken as 0, which
    drops the products it is a factor of), where an input has such elements."""
    arrays = tuple(map(np.asarray, inputs))
    if all(x.dtype.kind != "f" or np.isfinite(x).all() for x in arrays):
        return np.where(np.isfinite(exact), exact, 0.0), np.where(np.isfinite(magnitude), magnitude, 0.0)
    kept = tuple(np.where(np.isfinite(x), x, 0) if x.dtype.kind == "f" else x for x in arrays)
    return _terms(step, kept, params)


def _product(step, ev, t: Values, params) -> Values:
    reduce = step.reduce(params)
    fmt = ev.fmt
    u, info = unit_roundoff(fmt), np.finfo(fmt.dtype)
    n = reduce(np.ones(t.lo.shape))
    lo_t, hi_t = np.where(t.num, t.lo, 1.0), np.where(t.num, t.hi, 1.0)
    spans_zero = (lo_t <= 0) & (hi_t >= 0)
    small = np.where(spans_zero, 0.0, np.minimum(np.abs(lo_t), np.abs(hi_t)))
    big = np.maximum(np.abs(lo_t), np.abs(hi_t))
    log_small, log_big = np.log2(small), np.log2(big)
    least = np.exp2(reduce(log_small)) * (1 - gamma(n - 1, u))
    most = np.exp2(reduce(log_big)) * (1 + gamma(n - 1, u) + gamma(n, _F64_U)) * _SLACK
    # some order's partial product: the factors below 1 first (underflow), or above 1 first (overflow)
    tiniest = np.exp2(reduce(np.minimum(log_small, 0.0)))
    under = tiniest < float(info.smallest_normal)
    over = np.exp2(reduce(np.maximum(log_big, 0.0))) * (1 + gamma(n - 1, u)) > float(info.max)
    if step.runs is not None:  # an order fixed up to association: the partial products of contiguous runs alone
        least_log, most_log = step.runs(params)(log_small, log_big)
        under = np.exp2(least_log) < float(info.smallest_normal)
        over = np.exp2(most_log) * (1 + gamma(n - 1, u)) > float(info.max)
    most = np.where(under, most + n * float(info.smallest_subnormal) * np.exp2(reduce(np.maximum(log_big, 0.0))),
                    most)
    least = np.where(under, 0.0, least)
    if fmt.truncation_allowed:  # a partial product truncated to the largest value, then the factors below 1
        least = np.where(over, np.minimum(least, float(info.max) * tiniest * (1 - gamma(n - 1, u))), least)
    zero = reduce((lo_t == 0) & (hi_t == 0)) > 0
    negative = reduce((hi_t < 0).astype(np.float64)) % 2 == 1
    signed = reduce((spans_zero & ~((lo_t == 0) & (hi_t == 0))).astype(np.float64)) == 0
    lo = np.where(signed, np.where(negative, -most, least), -most)
    hi = np.where(signed, np.where(negative, -least, most), most)
    lo, hi = np.where(over & (lo < 0), -np.inf, lo), np.where(over & (hi > 0), np.inf, hi)
    infinite = reduce(np.isinf(lo_t) | np.isinf(hi_t)) > 0
    nan = (reduce(t.nan.astype(np.float64)) > 0) | (zero & infinite) | (under & over)
    lo, hi = np.where(zero & ~infinite, 0.0, lo), np.where(zero & ~infinite, 0.0, hi)
    num = (reduce((~t.num).astype(np.float64)) == 0) & ~(zero & infinite)
    return ev.enclose(lo, hi, num, nan)


def _extreme(step, ev, t: Values, params) -> Values:
    """Direct3D's max/min: a NaN operand yields the other; NaN only where every operand is NaN."""
    reduce = step.reduce(params)
    pick = np.fmax if step.largest else np.fmin
    missing = -np.inf if step.largest else np.inf
    lo = reduce(np.where(t.num, t.lo, missing), pick)
    hi = reduce(np.where(t.num, t.hi, missing), pick)
    num = reduce(t.num.astype(np.float64), np.add) > 0
    nan = reduce((~t.num).astype(np.float64), np.add) == reduce(np.ones(t.lo.shape), np.add)
    return Values(np.where(num, lo, 0.0), np.where(num, hi, 0.0), num, nan)




def compare_accumulated(spec, inputs, params: dict, dtype: str, expected, reference, actual,
                        ulp_tolerance: int, output: int = 0) -> Comparison:
    """d3d: each element within its interval (NaN where the set allows it); ulp: within ulp_tolerance
    (WebNN's count for the case) of the exactly rounded value. d3d's `bound_fraction`: the largest
    |actual - exact| over the interval's half-width on that side (1: at the bound)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    wrong = wrong_type_or_shape(expected, actual)
    if wrong is not None:
        return wrong
    allowed = interval(spec, inputs, params, dtype, output)
    shape = expected.shape
    lo, hi, num, nan = (np.broadcast_to(v, shape).reshape(-1) for v in (allowed.lo, allowed.hi, allowed.num,
                                                                       allowed.nan))
    e, a = expected.reshape(-1), actual.reshape(-1).astype(np.float64)
    exact = np.broadcast_to(np.asarray(reference, dtype=np.float64), shape).reshape(-1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a zero-width side (an exact 0) divides by 0
        inside = np.where(np.isnan(a), nan, num & (a >= lo) & (a <= hi))
        nan_mismatch = np.isnan(e) != np.isnan(a)
        distance = np.where(np.isnan(e) | np.isnan(a), 0, ulp_distance(e, actual.reshape(-1)))
        off = ~nan_mismatch & (distance > ulp_tolerance) | nan_mismatch
        side = np.where(a >= exact, hi - exact, exact - lo)
        fraction = np.where(np.isfinite(a) & np.isfinite(exact) & (side > 0), np.abs(a - exact) / side,
                            np.where(inside, 0.0, np.inf))
    result = Comparison(elements=int(e.size), mismatches=int(off.sum()), nan_mismatches=int(nan_mismatch.sum()),
                        max_ulp=int(distance.max()) if distance.size else 0,
                        max_fractional_ulp=None,
                        histogram=ulp_histogram(distance, nan_mismatch, np.zeros_like(nan_mismatch)))
    bad = ~inside
    result.d3d = empty_interval_summary()
    result.d3d.update(checked=int(e.size), failed=int(bad.sum()), outside=int(bad.sum()),
                      bound_fraction=float(fraction[np.isfinite(fraction)].max(initial=0.0)))
    result.d3d["max_ratio"] = ("inf" if not np.isfinite(fraction[bad]).all() else float(fraction[bad].max())) \
        if bad.any() else None
    data = np.asarray(inputs[0]) if inputs else np.zeros(0)
    whole = [jsonable(np.nanmin(data)), jsonable(np.nanmax(data))] if data.size and data.dtype.kind == "f" else []

    def item(p):
        index = [int(i) for i in np.unravel_index(p, shape)]
        return {"index": index, "input": whole, "expected": jsonable(e[p]), "actual": jsonable(actual.reshape(-1)[p]),
                "exact": jsonable(exact[p]), "lo": jsonable(lo[p]), "hi": jsonable(hi[p]), "ulp": int(distance[p]),
                "bound_fraction": jsonable(fraction[p]),
                "bits": {"expected": hex_bits(e[p]), "actual": hex_bits(actual.reshape(-1)[p])}}
    by_distance = np.flatnonzero(off)
    result.worst = [item(p) for p in by_distance[np.argsort(-distance[by_distance], kind="stable")[:WORST_SHOWN]]]
    outside = np.flatnonzero(bad)
    order = outside[np.argsort(-np.where(np.isfinite(fraction[outside]), fraction[outside], np.inf),
                               kind="stable")[:WORST_SHOWN]]
    result.d3d["worst"] = [{**item(p), "ratio": jsonable(fraction[p]), "rule": "outside"} for p in order]
    return result


def _formulas(spec, case=None) -> list:
    """(the field value that chooses it, or "", alternatives) of each formula the spec has; a formula
    chosen by no enum field (pooling's by IncludePadding, P): the worked example case's."""
    if not callable(spec.accumulation):
        return [("", spec.accumulation)]
    defaults = spec.defaults()
    chosen = [(choice, spec.accumulation_for({**defaults, p.name: choice}))
              for p in spec.parameters if p.kind == "enum" for choice in p.choices
              if spec.accumulation_for({**defaults, p.name: choice})]
    from conformance.specs.accumulation import steps_text
    if len({tuple(map(steps_text, every)) for _, every in chosen}) == 1:  # the same whatever the enum fields
        chosen = [("", chosen[0][1])]
    return chosen or [("", spec.accumulation_for(case.params if case is not None else defaults))]


def explain(spec, case=None) -> list:
    """Lines for `conformance specs OP`: the bound in words (the steps of each alternative, the error
    model) and, given a case (its case file's first float one), a worked example of its first elements."""
    from conformance.specs.accumulation import steps_text
    lines = ["  d3d: a sound interval for every order of summation (conformance/judge/accumulated.py):"]
    for chosen, every in _formulas(spec, case):
        for k, steps in enumerate(every):
            lines.append(f"    {chosen + ': ' if chosen and not k else ' ' * (len(chosen) + 2) if chosen else ''}"
                         f"{'or ' if k else ''}{steps_text(steps)}")
    lines += [f"    {what}: {rule}" for what, rule in ERROR_MODEL]
    if case is None:
        return lines
    x = case.make_input()
    inputs = x if isinstance(x, tuple) else (x,)
    import oracle
    reference = oracle.reference(case.op, x, case.dtype, **case.oracle_params())
    reference = reference[0] if isinstance(reference, tuple) else reference
    allowed = interval(spec, inputs, case.params, case.dtype)
    lines.append(f"  worked example: {case.id}")
    flat = [np.broadcast_to(v, np.shape(reference)).reshape(-1) for v in (reference, allowed.lo, allowed.hi)]
    for k in range(min(3, flat[0].size)):
        exact, lo, hi = (float(v[k]) for v in flat)
        lines.append(f"    output[{k}]: exact {exact!r}, accepted [{lo!r}, {hi!r}] "
                     f"(half-width {max(exact - lo, hi - exact):.3g})")
    return lines


def exact_example(spec, case) -> list:
    """A worked example of an operator judged exactly, or within bounds of its own (an integer product, a
    quantized output, HARDMAX's 1 at the first maximum): the first elements of a case and what passes."""
    import oracle
    x = case.make_input()
    inputs = x if isinstance(x, tuple) else (x,)
    expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
    expected = np.asarray(expected[0] if isinstance(expected, tuple) else expected)
    output = spec.outputs_for(case.params)[0]
    lo, hi = output.bounds(inputs, case.oracle_params()) if output.bounds is not None else (None, None)
    lo, hi = (np.broadcast_to(expected if v is None else np.asarray(v), expected.shape).reshape(-1) for v in (lo, hi))
    lines = [f"  worked example: {case.id}"]
    if output.allowed is not None and not output.indicator_axes and (output.allowed_when is None
                                                                    or output.allowed_when(case.params)):
        mask = np.asarray(output.allowed(inputs, case.oracle_params()), dtype=bool)
        mask = mask.reshape(-1, mask.shape[-1])
        for k in range(min(3, expected.size)):
            lines.append(f"    output[{k}]: exact {expected.reshape(-1)[k].item()!r}, accepted any of "
                         f"{np.flatnonzero(mask[k]).tolist()}")
        return lines
    for k in range(min(3, expected.size)):
        e = expected.reshape(-1)[k].item()
        lines.append(f"    output[{k}]: exact {e!r}, accepted " + ("exactly" if lo[k] == hi[k] == e
                                                                    else f"[{lo[k].item()!r}, {hi[k].item()!r}]"))
    return lines
