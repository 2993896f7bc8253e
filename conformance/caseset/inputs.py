"""Input generators: seeded uniform ranges, special values, sweeps, exhaustive float16 and float32,
and every pair of float16 values.

Each generator is a dict from a case file ({"kind": ..., ...}). values_for()
returns the generator's own list of values (None for generators that fill any
shape), and fill() makes the tensor for a case.

exhaustive_float32 walks float32 bit patterns start, start + step, ... below
stop (default: all 2**32). exhaustive_float16_pairs walks the pair index p over
the same range for an operator of two float16 inputs: A has the bit pattern
p >> 16, B the bit pattern p & 0xFFFF (A slowest), so all 2**32 indices give every
(A, B) pair once. Both are *streamed*: the runner asks chunks() for them a few
million elements at a time and never holds the whole tensor.
"""
import math
import zlib

import numpy as np


PAIRS = "exhaustive_float16_pairs"
INDICES = "indices"  # an index tensor's values, within the spec's index_bounds
KINDS = ("uniform", "specials", "integer_extremes", "exhaustive_float16", "values", "sweep",
         "exhaustive_float32", PAIRS, INDICES)
DATA_TYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
              "uint8")  # the tensor data types a case may name
STREAMED = ("exhaustive_float32", PAIRS)  # generators whose tensor is made (and run) chunk by chunk
DEFAULT_COUNT = 1024  # elements of an "auto" shape for generators with no natural length
MATERIALISE_LIMIT = 1 << 26  # a streamed generator's tensor is made whole only up to this size
UNIFORM_RANGE = (-10.0, 10.0)  # uniform's low and high where a case file gives none


def streamed(generator: dict) -> bool:
    return generator.get("kind") in STREAMED


def bit_range(generator: dict) -> range:
    """A streamed generator's bit patterns (exhaustive_float32) or pair indices (exhaustive_float16_pairs)."""
    return range(int(generator.get("start", 0)), int(generator.get("stop", 1 << 32)),
                  int(generator.get("step", 1)))


def natural_count(generator: dict, own_values) -> int:
    """Elements of an "auto" shape."""
    if own_values is not None:
        return len(own_values)
    if streamed(generator):
        return len(bit_range(generator))
    return int(generator.get("count", DEFAULT_COUNT))


def chunks(generator: dict, dtype: str, shape: tuple, chunk: int, start: int = 0, stop: int | None = None):
    """Yield (offset, tensor) pieces of a case's input (elements start..stop, default all), in order,
    chunk elements at a time (offset: the first element's flat position; exhaustive_float16_pairs: a
    tuple (A, B)). Each piece has the case's rank, its leading dimensions 1: a streamed case must be
    element-wise."""
    if not streamed(generator):
        raise ValueError(f"{generator['kind']} is not a streamed generator")
    patterns = bit_range(generator)
    total = int(np.prod(shape, dtype=np.int64))
    total = total if stop is None else min(total, stop)
    lead = (1,) * (len(shape) - 1)
    for offset in range(start, total, chunk):
        piece = patterns[offset:min(offset + chunk, total)]
        made = tuple(streamed_input(generator["kind"], piece.start, piece.step, len(piece), k).reshape(
            lead + (len(piece),)) for k in range(streamed_inputs(generator)))
        yield offset, made if generator["kind"] == PAIRS else made[0]


def streamed_inputs(generator: dict) -> int:
    """How many input tensors a streamed generator makes."""
    return 2 if generator["kind"] == PAIRS else 1


def chunk_patterns(generator: dict, offset: int, count: int) -> range:
    """The bit patterns (pair indices) of chunks()'s piece at offset of count elements."""
    return bit_range(generator)[offset:offset + count]


def streamed_input(kind: str, first: int, step: int, count: int, position: int = 0, out=None) -> np.ndarray:
    """Input `position` of a streamed chunk whose bit patterns (pair indices) are first, first + step,
    ... (count of them): made here for the harness and, from the same numbers, in a worker
    (conformance.dmldirect). exhaustive_float32: the float32 of each pattern; exhaustive_float16_pairs:
    the float16 of its high half (A, position 0) or low half (B, position 1). out: count 32-bit
    elements of memory to make it in (the float32 input itself; for pairs, scratch), so that a caller
    making chunk after chunk touches no new memory."""
    if kind != "exhaustive_float32" and (kind != PAIRS or position not in (0, 1)):
        raise ValueError(f"{kind} has no streamed input {position}")
    bits = bit_patterns(first, step, count, out).view(np.uint32)
    if kind == "exhaustive_float32":
        return bits.view(np.float32)
    half = np.right_shift(bits, np.uint32(16), out=bits) if position == 0 else \
        np.bitwise_and(bits, np.uint32(0xFFFF), out=bits)
    return half.astype(np.uint16).view(np.float16)


def bit_patterns(first: int, step: int, count: int, out=None) -> np.ndarray:
    """float32 of the bit patterns first, first + step, ... (count of them), into out (count 32-bit
    elements) if given: one pass over a cached 0, step, 2 * step, ... (a sweep's chunks share it)."""
    # first + i * step stays below 2**32, so uint32 arithmetic is exact
    bits = np.add(_offsets(step, count), np.uint32(first), out=None if out is None else out.view(np.uint32))
    return bits.view(np.float32)


_OFFSETS = {}


def _offsets(step: int, count: int) -> np.ndarray:
    key = (step, count)
    offsets = _OFFSETS.get(key)
    if offsets is None:
        offsets = np.arange(count, dtype=np.uint32)
        if step != 1:
            offsets *= np.uint32(step)
        if len(_OFFSETS) >= 4:
            _OFFSETS.clear()
        _OFFSETS[key] = offsets
    return offsets


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
    count = math.prod(shape)
    if streamed(generator):
        if count > MATERIALISE_LIMIT:
            raise ValueError(f"{label(generator)} has {count} elements: too many to make at once; "
                             "it is streamed (inputs.chunks)")
        return next(chunks(generator, dtype, shape, count))[1]  # a streamed range is never empty
    if own_values is not None:
        return np.resize(own_values, count).reshape(shape) if count else np.zeros(shape, dtype)
    rng = np.random.default_rng(seed)
    low, high = uniform_range(generator)
    target = np.dtype(dtype)
    if target.kind == "f":
        return rng.uniform(low, high, size=shape).astype(target)
    info = np.iinfo(target)
    low, high = max(int(np.ceil(low)), info.min), min(int(np.floor(high)), info.max)
    return rng.integers(low, high, size=shape, dtype=target, endpoint=True)


# -- several inputs ---------------------------------------------------------------------------------
# A case of an operator with several inputs has one generator for all its inputs (each input with
# its own seed), one per input ({"each": {"A": generator, "B": generator}}), or one whose values
# are crossed ({"kind": "specials", "cross": true}: every pair of values).
MAX_CROSSED = 1 << 22  # elements of a crossing; more (float16 x float16 = 2^32) only as a streamed sweep
CROSSED_TOO_LARGE = (f"an exhaustive crossing is allowed only as a streamed sweep: for every pair of float16 "
                     f"values use {{kind: {PAIRS}}} (optional start/stop), in a file of its own under sweeps/")


def input_seed(case_seed: int, name: str) -> int:
    """Each input's own seed, derived from the case's (the same id and global seed, the same inputs)."""
    return zlib.crc32(f"{case_seed}:{name}".encode())


def crossed(values: np.ndarray, count: int, position: int) -> np.ndarray:
    """Input `position` of `count` inputs whose values run over every combination of values (the
    first input slowest): with values v and two inputs, A = v0 v0 .. v1 v1 .., B = v0 v1 .. v0 v1 .."""
    n = len(values)
    return np.tile(np.repeat(values, n ** (count - 1 - position)), n ** position)


def distinct(values: np.ndarray) -> np.ndarray:
    """values without repeats (by bit pattern, so -0.0 and +0.0 stay two), in their first order."""
    _, first = np.unique(np.ascontiguousarray(values).view(f"V{values.dtype.itemsize}"), return_index=True)
    return values[np.sort(first)]


def crossing_size(own_count: int, inputs: int) -> int:
    return own_count ** inputs


def several_label(generators: dict) -> str:
    return ",".join(f"{name}={label(generator)}" for name, generator in generators.items())


def fill_input(generator: dict, dtype: str, shape: tuple, seed: int, own_values) -> np.ndarray:
    """One input of several: fill() without the streamed kinds (several inputs are never streamed)."""
    if streamed(generator):
        raise ValueError(f"{label(generator)} streams one input; an operator of several inputs cannot")
    return fill(generator, dtype, shape, seed, own_values)


def fill_indices(generator: dict, dtype: str, shape: tuple, seed: int, bounds, axis=None) -> np.ndarray:
    """Index values in range: each element below the size of the dimension it addresses (bounds,
    broadcast to shape), from 0, or with negative: true from minus that size (counting from the end).
    distinct: true: no two alike along axis, or (axis None) no two index tuples along the last dimension."""
    rng = np.random.default_rng(seed)
    sizes = np.broadcast_to(np.asarray(bounds, dtype=np.int64), shape)
    if generator.get("distinct"):
        drawn = distinct_tuples(rng, sizes) if axis is None else distinct_along(rng, sizes, axis)
        if generator.get("negative"):  # the same places, some counted from the end
            drawn = np.where(rng.random(shape) < 0.5, drawn - sizes, drawn)
        return drawn.astype(dtype)
    low = -sizes if generator.get("negative") else np.zeros_like(sizes)
    drawn = low + np.floor(rng.random(shape) * (sizes - low)).astype(np.int64)
    return drawn.astype(dtype)


def distinct_along(rng, sizes, axis: int) -> np.ndarray:
    """Indices no two alike along axis: each line a draw without replacement below its size."""
    moved = np.moveaxis(sizes, axis, -1)
    lines = moved.reshape(-1, moved.shape[-1])
    drawn = np.stack([rng.permutation(int(line[0]))[:len(line)] if len(line) else line for line in lines]) \
        if len(lines) else lines
    return np.moveaxis(drawn.reshape(moved.shape), -1, axis)


def distinct_tuples(rng, sizes) -> np.ndarray:
    """Index tuples along the last dimension (each coordinate below its size there), no two alike:
    drawn without replacement from every place the tuples can address."""
    places = sizes.reshape(-1, sizes.shape[-1])[0] if sizes.size else np.zeros(0, dtype=np.int64)
    count = int(np.prod(sizes.shape[:-1], dtype=np.int64))
    chosen = rng.choice(int(np.prod(places, dtype=np.int64)), size=count, replace=False)
    return np.stack(np.unravel_index(chosen, tuple(places)), axis=-1).reshape(sizes.shape)


def _to_type(values, dtype: str) -> np.ndarray:
    target = np.dtype(dtype)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return np.array([float(v) for v in values], dtype=np.float64).astype(target)
    info = np.iinfo(target)
    low, high = int(info.min), int(info.max)  # (iinfo's properties cost more than the loop's own work)
    kept = [int(v) for v in values if math.isfinite(float(v)) and low <= int(v) <= high]
    return np.array(kept, dtype=target)


def uniform_range(generator: dict) -> tuple:
    return generator.get("low", UNIFORM_RANGE[0]), generator.get("high", UNIFORM_RANGE[1])


def label(generator: dict) -> str:
    if "label" in generator:
        return str(generator["label"])
    kind = generator["kind"]
    if generator.get("cross"):
        return f"crossed[{label({k: v for k, v in generator.items() if k != 'cross'})}]"
    if kind == "uniform":
        low, high = uniform_range(generator)
        return f"uniform[{_num(low)},{_num(high)}]"
    if kind == INDICES:
        flags = [flag for flag in ("distinct", "negative") if generator.get(flag)]
        return f"indices[{','.join(flags)}]" if flags else "indices"
    if kind == "sweep":
        return f"sweep[{_num(generator['low'])},{_num(generator['high'])},{generator['count']}]"
    if kind in STREAMED and any(key in generator for key in ("start", "stop", "step")):
        patterns = bit_range(generator)
        return f"{kind}[0x{patterns.start:08x},0x{patterns.stop:08x}" + (
            f",step={patterns.step}]" if patterns.step != 1 else "]")
    return kind


def _num(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["KINDS", "STREAMED", "UNIFORM_RANGE", "values_for", "fill", "label", "streamed", "chunks",
           "bit_range", "natural_count", "uniform_range", "input_seed", "crossed", "fill_input", "several_label",
           "MAX_CROSSED", "CROSSED_TOO_LARGE", "PAIRS", "INDICES", "fill_indices", "streamed_input", "streamed_inputs"]
