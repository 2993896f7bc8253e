"""Independent references in Python's decimal (70 digits), rounded to the nearest float.

Nothing here goes through numpy's or libm's transcendental functions: decimal's exp and ln,
and erf by its Taylor series, are exact to far more digits than float32 needs.
"""
from decimal import Decimal, localcontext

import numpy as np

DIGITS = 70
PI = Decimal("3.141592653589793238462643383279502884197169399375105820974944592307816406286")


def nearest(value: Decimal, dtype) -> float:
    """Round a Decimal to the nearest float of dtype (ties to even), independently of numpy casts."""
    dtype = np.dtype(dtype)
    guess = np.array(float(value), dtype=np.float64).astype(dtype)
    candidates = [np.nextafter(guess, dtype.type(-np.inf)), guess, np.nextafter(guess, dtype.type(np.inf))]
    distances = [abs(Decimal(float(c)) - value) for c in candidates]
    best = min(distances)
    ties = [c for c, d in zip(candidates, distances) if d == best]
    if len(ties) > 1:
        bits = np.uint32 if dtype == np.float32 else np.uint16
        ties = [c for c in ties if int(np.array(c).view(bits)) % 2 == 0]
    return float(ties[0])


def erf(z: Decimal) -> Decimal:
    """2 / sqrt(pi) * sum (-1)^n z^(2n+1) / (n! (2n+1)), summed with 40 guard digits (|z| <= 8)."""
    with localcontext() as context:
        context.prec = DIGITS + 40
        z = Decimal(z)
        term, total, n = z, z, 0
        while abs(term) > Decimal(10) ** -(DIGITS + 30):
            n += 1
            term = -term * z * z / n
            total += term / (2 * n + 1)
        return +(2 * total / PI.sqrt())
