"""Exact rational arithmetic for the accumulation judge's independent checks (issue 26): IEEE rounding
of a Fraction to float32 or float16 (nearest even or toward zero, subnormals flushed or kept), and every
(or a sample of the) orders in which a device may combine a row's terms, each operation rounded once."""
import math
from fractions import Fraction

FORMATS = {"float32": (24, -126, 127), "float16": (11, -14, 15)}  # significand bits, least normal, greatest exponent


def round_fraction(q, precision: str, rounding: str, flush: bool = False):
    """q (a Fraction) rounded exactly to the format (nearest even or toward zero; subnormals kept
    unless flush), by integer arithmetic on its numerator and denominator; an infinity stays a float."""
    bits, least, top = FORMATS[precision]
    if not isinstance(q, Fraction) or q == 0:
        return q
    num, den = abs(q.numerator), q.denominator
    e = num.bit_length() - den.bit_length()  # 2^e <= |q| < 2^(e + 1) after the correction
    if (num << max(0, -e)) < (den << max(0, e)):
        e -= 1
    k = max(e, least) - bits + 1  # the quantum 2^k
    whole, rest = divmod(num << max(0, -k), den << max(0, k))
    if rounding == "nearest" and (2 * rest > (den << max(0, k)) or (2 * rest == (den << max(0, k)) and whole & 1)):
        whole += 1
    r = Fraction(whole << max(0, k), 1 << max(0, -k))
    if r > (2 - Fraction(1, 1 << (bits - 1))) * (1 << top):
        r = Fraction(((1 << bits) - 1) << (top - bits + 1)) if rounding == "zero" else math.inf
    if flush and r < Fraction(1, 1 << -least):
        r = Fraction(0)
    return r if q > 0 else -r


def every_order(values, combine) -> set:
    """Every result of every binary tree over the values (each leaf once): over subsets, exhaustively."""
    n = len(values)
    results = {1 << i: {v} for i, v in enumerate(values)}
    for mask in range(1, 1 << n):
        if mask in results:
            continue
        out, sub = set(), (mask - 1) & mask
        while sub:
            rest = mask ^ sub
            if sub < rest:  # each split once: the operations commute
                out |= {combine(a, b) for a in results[sub] for b in results[rest]}
            sub = (sub - 1) & mask
        results[mask] = out
    return results[(1 << n) - 1]


def sampled_orders(values, combine, rng, count) -> set:
    """count random binary trees: two partial results chosen at random, combined, until one is left."""
    out = set()
    for _ in range(count):
        work = list(values)
        while len(work) > 1:
            i, j = sorted(rng.sample(range(len(work)), 2))
            b, a = work.pop(j), work.pop(i)
            work.append(combine(a, b))
        out.add(work[0])
    return out


def every_sequence(leaves, combine) -> set:
    """Every sequential order (each permutation), sharing the partial results of common prefixes."""
    out = set()

    def extend(acc, rest):
        if not rest:
            out.add(acc)
        for i, v in enumerate(rest):
            extend(combine(acc, v), rest[:i] + rest[i + 1:])
    for i, v in enumerate(leaves):
        extend(v, leaves[:i] + leaves[i + 1:])
    return out


def every_dot(a, b, precision: str, rounding: str, flush: bool = False, start=None, rng=None, count: int = 60) -> set:
    """Every result a device may give for the sum of the products a_i b_i (Fractions), each operation rounded
    once: each product rounded before the adds, or the products exact and each add rounding once (a mad; two
    products may meet in one rounding, as a dot2 instruction does); start: a term the accumulator may begin with
    (a bias, Beta * C), one more leaf. With flush, float32 operands below the least normal are zeros first. Every
    binary tree for at most 5 leaves, else count random ones (rng: random.Random)."""
    least = Fraction(1, 1 << -FORMATS[precision][1])
    operand = (lambda v: Fraction(0) if flush and isinstance(v, Fraction) and abs(v) < least else v)  # noqa: E731
    products = [operand(x) * operand(y) for x, y in zip(a, b)]
    combine = lambda x, y: round_fraction(x + y, precision, rounding, flush)  # noqa: E731
    results = set()
    for leaves in (products, [round_fraction(p, precision, rounding, flush) for p in products]):
        leaves = leaves + ([start] if start is not None else [])
        if len(leaves) == 1:
            results.add(round_fraction(leaves[0], precision, rounding, flush))
        elif len(leaves) <= 5:
            results |= every_order(leaves, combine)
        else:
            results |= sampled_orders(leaves, combine, rng, count)
    return results


def assert_within(values, lo, hi, where: str) -> int:
    """Every value (Fractions, or an infinity) within [lo, hi], else fail naming where and the first three
    outside; -> how many were checked."""
    bad = sorted(float(v) for v in values if not lo <= v <= hi)
    assert not bad, f"{where}: gave {bad[:3]}, expected within [{lo!r}, {hi!r}]"
    return len(values)
