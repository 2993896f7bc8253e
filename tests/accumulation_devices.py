"""Simulated devices that accumulate rows of terms the ways a GPU (or a vendor's metacommand) may
legally do it, vectorised over the rows, for the soundness and sharpness tests of the accumulation
judge (conformance/judge/accumulated.py) and for other families' tests (a dot product is sum_rows of
a pair of factor arrays).

Every operation is rounded exactly once, from its exact result, to the accumulating precision:
- "nearest": IEEE round to nearest even; "zero": toward zero (Direct3D lets float32 add and mul
  truncate: a result past the largest finite value then gives that value, not infinity);
- the exact result of an add is a float64 pair (s, e) with s + e exact (TwoSum); it is rounded to odd
  in float64 first, then to the precision (round-to-odd makes the second rounding exact for any
  precision of at most 51 bits, nearest or toward zero);
- products of float32 (or float16) factors are exact in float64; "fused" (mad) adds the exact product
  to the partial sum with one rounding, unfused rounds the product first;
- flush: a float32 operand or result below the smallest normal becomes a zero of its sign (Direct3D
  allows it on the input and output of arithmetic).

Orders (ORDERS): sequential, reverse (sequential from the last term), pairwise (a tree of adjacent
pairs), blocked32/64/256 (each block sequential, then the blocks' partial sums sequential), strided32
(32 lanes each summing every 32nd term, then a butterfly over the lanes: lane i += lane i + 16, 8, ...).

The element-wise primitives between the sums (exp, log, rcp, rsqrt, sqrt, exp2, log2: `primitive`) take any
value Direct3D allows them (PICKS): the exact value rounded once to nearest or toward zero, or the low or high
end of the d3d model's interval (conformance/judge/intervals.py), or either end element by element.
"""
import numpy as np

PICKS = ("nearest", "zero", "low", "high", "mixed")
ORDERS = ("sequential", "reverse", "pairwise", "blocked32", "blocked64", "blocked256", "strided32")
ROUNDINGS = ("nearest", "zero")
PRODUCT_ORDERS = ("sequential", "reverse", "pairwise")


def _two_sum(a, b):
    """s + e == a + b exactly (float64), e = 0 where s is not finite."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        bb = s - a
        e = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s) & np.isfinite(e), e, 0.0)


def round_exact(s, e, precision, rounding="nearest", flush=False):
    """The exact value s + e (float64 arrays, |e| at most half an ULP of s) rounded once to precision
    ("float32" or "float16") to nearest even or toward zero; returned as float64."""
    dtype = np.dtype(precision)
    s, e = np.asarray(s, np.float64), np.asarray(e, np.float64)
    bits = s.view(np.uint64)
    even = (bits & np.uint64(1)) == 0
    with np.errstate(invalid="ignore", over="ignore"):
        odd = np.where((e != 0) & even & np.isfinite(s), np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
        f = odd.astype(dtype)
        if rounding == "zero":
            past = np.abs(f.astype(np.float64)) > np.abs(odd)
            f = np.where(past, np.nextafter(f, dtype.type(0)), f)
        elif rounding != "nearest":
            raise ValueError(f"rounding {rounding!r}: expected one of {ROUNDINGS}")
        if flush:
            tiny = np.finfo(dtype).smallest_normal
            f = np.where(np.abs(f) < tiny, np.copysign(dtype.type(0), f), f)
    return f.astype(np.float64)


def rounded(values, precision, rounding="nearest", flush=False):
    """float64 values (exact) rounded once to precision."""
    values = np.asarray(values, np.float64)
    return round_exact(values, np.zeros_like(values), precision, rounding, flush)


def store(values, dtype, rounding="nearest"):
    """A result computed in a wider precision, converted to the tensor's type (Direct3D's conversion
    rounds toward zero; nearest even is accepted too)."""
    return rounded(values, dtype, rounding).astype(dtype)


def _flushed(values, precision, flush):
    """flush: the operands' denormals too, as a zero of their sign."""
    if not flush:
        return values
    tiny = float(np.finfo(np.dtype(precision)).smallest_normal)
    return np.where(np.abs(values) < tiny, np.copysign(0.0, values), values)


def _add(a, b, precision, rounding, flush):
    """a (a value of precision) + b (exact float64) rounded once."""
    return round_exact(*_two_sum(a, b), precision, rounding, flush)


def _sequential(leaves, precision, rounding, flush, exact=False):
    """leaves (rows, n) summed left to right: the first rounded, each next one added by one rounding.
    exact: the leaves are products not yet rounded (a mad adds each)."""
    if rounding == "nearest" and not flush and not exact:  # IEEE adds of the precision, in order
        with np.errstate(over="ignore", invalid="ignore"):
            return np.add.accumulate(leaves.astype(precision), axis=1)[:, -1].astype(np.float64)
    columns = np.ascontiguousarray(leaves.T)
    acc = rounded(columns[0], precision, rounding, flush)
    for k in range(1, columns.shape[0]):
        acc = _add(acc, columns[k], precision, rounding, flush)
    return acc


def _pairwise(leaves, precision, rounding, flush, first):
    """A tree of adjacent pairs; first: the leaves are exact (products): the first level adds the left
    one exactly to the right one rounded (a mad), an odd one out is rounded on its own."""
    level = leaves
    while level.shape[1] > 1:
        pairs = level.shape[1] // 2
        right = level[:, 1:2 * pairs:2]
        if first:
            right = rounded(right, precision, rounding, flush)
        summed = _add(right, level[:, 0:2 * pairs:2], precision, rounding, flush)
        if level.shape[1] % 2:
            tail = level[:, -1:]
            summed = np.concatenate([summed, rounded(tail, precision, rounding, flush) if first else tail], axis=1)
        level, first = summed, False
    return level[:, 0] if not first else rounded(level[:, 0], precision, rounding, flush)


def _blocked(leaves, block, precision, rounding, flush, exact):
    rows, n = leaves.shape
    whole = n // block * block  # the full blocks summed side by side (as rows), then the last one
    partial = [_sequential(leaves[:, :whole].reshape(-1, block), precision, rounding, flush, exact).reshape(rows, -1)] \
        if whole else []
    if whole < n:
        partial.append(_sequential(leaves[:, whole:], precision, rounding, flush, exact)[:, None])
    return _sequential(np.concatenate(partial, axis=1), precision, rounding, flush)


def _strided(leaves, lanes, precision, rounding, flush, exact):
    rows, n = leaves.shape
    width = min(lanes, n)
    rounds, extra = divmod(n, lanes)
    if rounds:  # the lanes side by side (as rows), then the lanes that hold one term more add it
        body = leaves[:, :rounds * lanes].reshape(rows, rounds, lanes).transpose(0, 2, 1).reshape(-1, rounds)
        partial = _sequential(body, precision, rounding, flush, exact).reshape(rows, lanes)
        if extra:
            tail = _add(partial[:, :extra], leaves[:, rounds * lanes:], precision, rounding, flush)
            partial = np.concatenate([tail, partial[:, extra:]], axis=1)
    else:
        partial = rounded(leaves, precision, rounding, flush)
    size = 1 << (width - 1).bit_length()  # the butterfly's lanes; missing lanes hold 0
    partial = np.concatenate([partial, np.zeros((rows, size - width))], axis=1)
    while partial.shape[1] > 1:
        half = partial.shape[1] // 2
        partial = _add(partial[:, :half], partial[:, half:], precision, rounding, flush)
    return partial[:, 0]


def sum_rows(terms, order="sequential", precision="float32", rounding="nearest", fused=False, flush=False):
    """Each row's sum as the simulated device computes it (float64 array of values of precision).

    terms: (rows, n) values of precision (float64 or any float type), or a pair (a, b) of such arrays
    whose products are the terms (a dot product): each product rounded before its add (fused=False) or
    added exactly by a fused mad (fused=True). Infinities and NaN follow IEEE."""
    if isinstance(terms, tuple):
        a, b = (_flushed(np.asarray(t, np.float64), precision, flush) for t in terms)
        with np.errstate(invalid="ignore", over="ignore"):
            leaves = a * b  # exact: 24-bit significands, float64's range
        if not fused:
            leaves = rounded(leaves, precision, rounding, flush)
    else:
        leaves, fused = _flushed(np.asarray(terms, np.float64), precision, flush), False
    leaves = np.atleast_2d(leaves)
    if order == "sequential":
        return _sequential(leaves, precision, rounding, flush, fused)
    if order == "reverse":
        return _sequential(leaves[:, ::-1], precision, rounding, flush, fused)
    if order == "pairwise":
        return _pairwise(leaves, precision, rounding, flush, fused)
    if order.startswith("blocked"):
        return _blocked(leaves, int(order.removeprefix("blocked")), precision, rounding, flush, fused)
    if order.startswith("strided"):
        return _strided(leaves, int(order.removeprefix("strided")), precision, rounding, flush, fused)
    raise ValueError(f"order {order!r}: expected one of {ORDERS}")


def multiply_rows(factors, order="sequential", precision="float32", rounding="nearest", flush=False):
    """Each row's product, every multiply rounded once (float32 and float16 products are exact in
    float64 before it); orders: PRODUCT_ORDERS."""
    level = _flushed(np.atleast_2d(np.asarray(factors, np.float64)), precision, flush)
    if order == "reverse":
        level = level[:, ::-1]
    with np.errstate(invalid="ignore", over="ignore"):
        if order in ("sequential", "reverse"):
            acc = level[:, 0]
            for k in range(1, level.shape[1]):
                acc = rounded(acc * level[:, k], precision, rounding, flush)
            return acc
        if order != "pairwise":
            raise ValueError(f"order {order!r}: expected one of {PRODUCT_ORDERS}")
        while level.shape[1] > 1:
            pairs = level.shape[1] // 2
            product = rounded(level[:, 0:2 * pairs:2] * level[:, 1:2 * pairs:2], precision, rounding, flush)
            level = np.concatenate([product, level[:, 2 * pairs:]], axis=1)
    return level[:, 0]


def devices(precision="float32", fused_too=False, flush_too=True):
    """Every (order, rounding, fused, flush) a device computing in precision may use: float32 rounds
    either way and may flush; float16 rounds to nearest and keeps denormals."""
    roundings = ROUNDINGS if precision == "float32" else ("nearest",)
    out = [(order, rounding, fused, False) for order in ORDERS for rounding in roundings
           for fused in ((False, True) if fused_too else (False,))]
    if precision == "float32" and flush_too:
        out += [("sequential", "zero", False, True), ("pairwise", "nearest", False, True)]
    return out


_EXACT = {"exp": np.exp, "log": np.log, "rcp": np.reciprocal, "rsqrt": lambda v: 1.0 / np.sqrt(v), "sqrt": np.sqrt,
          "exp2": np.exp2, "log2": np.log2}


def primitive(name, values, pick, precision="float32", rounding="nearest", flush=False):
    """The element-wise primitive name (a key of _EXACT) at each value (float64) as a device may compute it in
    precision: pick "nearest" or "zero", the float64 value rounded once that way (rounding: the device's, where
    the result is not finite); "low", "high", "mixed" (either, element by element), the ends of its d3d interval.
    Non-finite arguments and results: the float64 value."""
    from conformance.judge.intervals import FLOAT16, FLOAT32, Evaluator, Values
    from conformance.specs import primitives
    values = np.asarray(values, np.float64)
    with np.errstate(all="ignore"):
        exact = _EXACT[name](values)
    if pick in ROUNDINGS:
        return rounded(exact, precision, pick, flush)
    formula = {"exp": primitives.exp, "log": primitives.log}.get(name, getattr(primitives, name))(primitives.X)
    fmt = {"float32": FLOAT32, "float16": FLOAT16}[np.dtype(precision).name]
    with np.errstate(all="ignore"):
        ends = Evaluator(fmt).evaluate(formula, Values.points(np.where(np.isfinite(values), values, 1.0)))
    if pick == "mixed":
        chosen = np.where(np.random.default_rng(values.size).integers(0, 2, values.shape) == 1, ends.hi, ends.lo)
    elif pick in ("low", "high"):
        chosen = ends.lo if pick == "low" else ends.hi
    else:
        raise ValueError(f"pick {pick!r}: expected one of {PICKS}")
    ok = np.isfinite(values) & np.isfinite(exact) & np.isfinite(chosen)
    return np.where(ok, chosen, rounded(exact, precision, rounding, flush))


def add(a, b, precision="float32", rounding="nearest", flush=False):
    """a + b (values of precision, broadcast together) rounded once: an element-wise add as a device does it."""
    a, b = np.broadcast_arrays(*(_flushed(np.asarray(v, np.float64), precision, flush) for v in (a, b)))
    return _add(a, b, precision, rounding, flush)
