"""The judge of index outputs (ARGMIN, ARGMAX; TOP_K's and MAX_POOLING2's indices): each output element
must be one of the indices the page allows there (Output.allowed: exact where the page decides ties,
wider where it is silent), not within an interval. A device allowed to flush float32 subnormal inputs
may also write what the page allows on the inputs with them flushed.

A wrong element is named by its output index, the slice of the input its index counts over (the input
axes the output does not keep: of size 1 there, or of another size than the input's; the most
significant first), the index expected and the index that came, and the input values at both."""
import numpy as np

from conformance.judge.compare import (WORST_SHOWN, Comparison, empty_interval_summary, jsonable, ulp_histogram,
                                       wrong_type_or_shape)

ALLOWED_SHOWN = 8  # allowed indices listed per worst element


def counted_axes(input_shape, output_shape) -> tuple:
    """The input axes an index counts over, most significant first."""
    return tuple(i for i, (n, m) in enumerate(zip(input_shape, output_shape)) if m == 1 or m != n)


def position(output_index, value: int, input_shape, axes) -> tuple:
    """The input index that index value `value` names for the output element at output_index."""
    where = list(output_index)
    for axis, k in zip(axes, np.unravel_index(value, [input_shape[a] for a in axes])):
        where[axis] = int(k)
    return tuple(where)


def slice_text(output_index, input_shape, axes, name: str = "Input") -> str:
    """Input[1, 0:4, 2]: the counted axes as ranges, the others at the output element's coordinate."""
    parts = [f"0:{input_shape[i]}" if i in axes else str(k) for i, k in enumerate(output_index)]
    return f"{name}[{', '.join(parts)}]"


def within(indices, allowed) -> np.ndarray:
    """Whether each index is one its element allows (allowed: bool, the indices' shape + (n,)); an
    index beyond the slice (or a negative one) never is."""
    indices, allowed = np.asarray(indices), np.asarray(allowed, dtype=bool)
    n = allowed.shape[-1]
    flat = indices.reshape(-1)
    in_range = (flat >= 0) & (flat < n) if flat.dtype.kind == "i" else flat < n
    safe = np.where(in_range, flat, 0).astype(np.int64)
    return (in_range & allowed.reshape(-1, n)[np.arange(flat.size), safe]).reshape(indices.shape)


def indicator_indices(values, axes) -> np.ndarray:
    """A one-hot output (Output.indicator_axes) read as indices: each slice over axes (row-major in ascending
    order; the shape: values', each axis of size 1) the position of its one 1; n, one past the slice
    (Output.allowed's last column: no 1), where it is 0 everywhere; -1 (never allowed) otherwise."""
    values = np.asarray(values)
    axes = tuple(sorted(int(a) % values.ndim for a in axes))
    kept = [i for i in range(values.ndim) if i not in axes]
    slices = np.transpose(values, kept + list(axes)).reshape([values.shape[i] for i in kept] + [-1])
    ones, zeros = slices == 1, slices == 0
    single = (ones.sum(axis=-1) == 1) & (ones | zeros).all(axis=-1)
    none = zeros.all(axis=-1)
    index = np.where(single, np.argmax(ones, axis=-1), np.where(none, slices.shape[-1], -1)).astype(np.int64)
    return index.reshape(tuple(1 if i in axes else n for i, n in enumerate(values.shape)))


def allowed_for(allowed, inputs, params: dict, flush_allowed: bool = False) -> np.ndarray:
    """Output.allowed on the inputs; where a device may flush float32 subnormals, also on the first
    input with them flushed to sign-preserved zero."""
    mask = np.asarray(allowed(inputs, params), dtype=bool)
    data = np.asarray(inputs[0])
    if flush_allowed and data.dtype == np.float32:
        flushed = np.where(np.abs(data) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), data), data)
        if not np.array_equal(flushed, data, equal_nan=True):
            mask = mask | np.asarray(allowed((flushed, *inputs[1:]), params), dtype=bool)
    return mask


def compare_indices(expected, actual, allowed, data=None, input_name: str = "Input") -> Comparison:
    """expected: the oracle's indices; actual: the device's; allowed: bool, the output's shape + (n,)
    (allowed_for); data: the input indexed, to name the values at a wrong element's indices (None:
    the indices alone)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    wrong = wrong_type_or_shape(expected, actual)
    if wrong is not None:
        return wrong
    mask = np.asarray(allowed, dtype=bool)
    n = mask.shape[-1]
    flat_mask = mask.reshape(-1, n)
    flat_e, flat_a = expected.reshape(-1), actual.reshape(-1)
    bad = ~within(flat_a, flat_mask)
    # |actual - expected| of a wrong element (Python ints: a uint64 index far off does not wrap)
    distance = np.zeros(flat_a.size, dtype=np.uint64)
    for k in np.flatnonzero(bad):
        distance[k] = abs(int(flat_a[k]) - int(flat_e[k]))
    result = Comparison(elements=int(expected.size), mismatches=int(bad.sum()),
                        max_ulp=int(distance.max()) if distance.size else 0,
                        histogram=ulp_histogram(np.minimum(distance, np.iinfo(np.int64).max).astype(np.int64),
                                                np.zeros_like(bad), np.zeros_like(bad)))
    result.d3d = empty_interval_summary()
    if not result.mismatches:
        return result
    positions = np.flatnonzero(bad)
    order = positions[np.argsort(-distance[positions].astype(np.float64), kind="stable")[:WORST_SHOWN]]
    result.worst = [_named(tuple(int(k) for k in np.unravel_index(flat, expected.shape)), int(flat_e[flat]),
                           int(flat_a[flat]), int(distance[flat]), np.flatnonzero(flat_mask[flat]), data, expected.shape,
                           input_name, n) for flat in order]
    result.d3d.update(checked=result.mismatches, failed=result.mismatches, outside=result.mismatches,
                      max_ratio="inf", worst=[{**item, "ratio": "inf", "rule": "outside"} for item in result.worst])
    return result


def _named(index, e, a, distance, choices, data, output_shape, input_name, n) -> dict:
    item = {"index": list(index), "allowed": [int(v) for v in choices[:ALLOWED_SHOWN]]
            + (["..."] if choices.size > ALLOWED_SHOWN else []),
            "expected": e, "actual": a, "lo": e, "hi": e, "ulp": distance, "bits": {}}
    if data is not None:
        data = np.asarray(data)
        axes = counted_axes(data.shape, output_shape)
        if int(np.prod([data.shape[i] for i in axes])) != n and data.size == n:
            axes = tuple(range(data.ndim))  # an index into the whole input as one 1-D array (MAX_POOLING1's)
        item["slice"] = slice_text(index, data.shape, axes, input_name)
        item["input"] = {"expected": jsonable(data[position(index, e, data.shape, axes)]),
                         "actual": jsonable(data[position(index, a, data.shape, axes)])
                         if 0 <= a < int(np.prod([data.shape[i] for i in axes])) else None}
    return item

