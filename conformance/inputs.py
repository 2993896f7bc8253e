"""Input generators: seeded uniform ranges, special values, sweeps, exhaustive float16.

Each generator is a dict from a case file ({"kind": ..., ...}). values_for()
returns the generator's own list of values (None for generators that fill any
shape), and fill() makes the tensor for a case.
"""
import numpy as np

from oracle.rounding import round_to

KINDS = ("uniform", "specials", "integer_extremes", "exhaustive_float16", "values", "sweep")
DEFAULT_COUNT = 1024  # elements of an "auto" shape for generators with no natural length


def float_specials(dtype: str) -> list:
    f = np.finfo(dtype)
    tiny, normal, biggest = float(f.smallest_subnormal), float(f.smallest_normal), float(f.max)
    largest_subnormal = normal - tiny
    positive = [tiny, largest_subnormal, normal, biggest, np.inf, 1.0, 0.5, 2.0, 3.0, 1e-3, 10.0]
    return [0.0, -0.0, np.nan] + positive + [-v for v in positive]


def integer_extremes(dtype: str) -> list:
    info = np.iinfo(dtype)
    values = [info.min, info.min + 1, 0, 1, info.max - 1, info.max]
    if info.min < 0:
        values += [-1]
    return values


def values_for(generator: dict, dtype: str, spec, params: dict):
    """The generator's own values in the tensor type, or None if it fills any shape."""
    kind = generator["kind"]
    if kind == "specials":
        values = float_specials(dtype) if np.dtype(dtype).kind == "f" else integer_extremes(dtype)
        if spec.special_values is not None:
            values += list(spec.special_values(dtype, {**spec.defaults(), **params}))
        return _to_type(values, dtype)
    if kind == "integer_extremes":
        values = integer_extremes(dtype)
        if spec.special_values is not None:
            values += list(spec.special_values(dtype, {**spec.defaults(), **params}))
        return _to_type(values, dtype)
    if kind == "exhaustive_float16":
        return np.arange(65536, dtype=np.uint16).view(np.float16)
    if kind == "values":
        return _to_type(generator["values"], dtype)
    if kind == "sweep":
        return _to_type(np.linspace(generator["low"], generator["high"], int(generator["count"])), dtype)
    return None


def fill(generator: dict, dtype: str, shape: tuple, seed: int, own_values) -> np.ndarray:
    count = int(np.prod(shape, dtype=np.int64))
    if own_values is not None:
        return np.resize(own_values, count).reshape(shape) if count else np.zeros(shape, dtype)
    rng = np.random.default_rng(seed)
    low, high = generator.get("low", -10.0), generator.get("high", 10.0)
    target = np.dtype(dtype)
    if target.kind == "f":
        return rng.uniform(low, high, size=shape).astype(target)
    info = np.iinfo(target)
    low, high = max(int(np.ceil(low)), info.min), min(int(np.floor(high)), info.max)
    return rng.integers(low, high, size=shape, dtype=target, endpoint=True)


def _to_type(values, dtype: str) -> np.ndarray:
    target = np.dtype(dtype)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return np.array([float(v) for v in values], dtype=np.float64).astype(target)
    info = np.iinfo(target)
    kept = [int(v) for v in values if np.isfinite(float(v)) and info.min <= int(v) <= info.max]
    return np.array(kept, dtype=target)


def label(generator: dict) -> str:
    if "label" in generator:
        return str(generator["label"])
    kind = generator["kind"]
    if kind == "uniform":
        return f"uniform[{_num(generator.get('low', -10.0))},{_num(generator.get('high', 10.0))}]"
    if kind == "sweep":
        return f"sweep[{_num(generator['low'])},{_num(generator['high'])},{generator['count']}]"
    return kind


def _num(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["KINDS", "values_for", "fill", "label", "round_to"]
