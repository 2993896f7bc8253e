"""Faults of a device's gathers and scatters (backend python:faults_gather:<fault>): each computes
GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 or SCATTER_ND as a broken (or, where the page leaves
the choice open, a differently choosing) kernel would."""
import numpy as np

import oracle
from conformance import specs


def _bounds(op, x, params):
    return np.broadcast_to(specs.get(op).index_bounds([np.shape(v) for v in x], params), np.shape(x[1]))


def gather_with_indices_transposed(op, x, dtype, **params):
    """The indices read in transposed order: the last two dimensions of GATHER's and GATHER_ELEMENTS'
    indices, of the ND gathers' index tuples (their positions, each tuple kept whole)."""
    data, indices, *updates = x
    tuples = op.endswith(("_ND", "_ND1"))
    positions = indices.shape[:-1] if tuples else indices.shape
    if len(positions) >= 2:
        moved = np.swapaxes(indices, len(positions) - 2, len(positions) - 1)
        indices = np.ascontiguousarray(moved).reshape(indices.shape)
    if op == "GATHER_ELEMENTS":  # each index addresses the Axis dimension at its own place: keep it in range
        indices = np.minimum(indices, _bounds(op, x, params) - 1).astype(indices.dtype)
    return oracle.evaluate(op, (data, indices, *updates), dtype, **params)


def negative_indices_as_positive(op, x, dtype, **params):
    """A negative index taken as its magnitude (-1 as 1), clamped within its dimension as the page's
    reads are."""
    data, indices, *updates = x
    if indices.dtype.kind == "i":
        indices = np.minimum(np.abs(indices), _bounds(op, x, params) - 1).astype(indices.dtype)
    return oracle.evaluate(op, (data, indices, *updates), dtype, **params)


def gather_on_the_wrong_axis(op, x, dtype, **params):
    """GATHER and GATHER_ELEMENTS along the next axis (Axis + 1, wrapping), indices clamped within it;
    the ND gathers, which have no Axis, as they should be."""
    data, indices = x[:2]
    if op not in ("GATHER", "GATHER_ELEMENTS") or data.ndim == 1:
        return oracle.evaluate(op, x, dtype, **params)
    axis = (params["Axis"] + 1) % data.ndim
    wrapped = indices.astype(np.int64)
    wrapped = np.clip(np.where(wrapped < 0, wrapped + data.shape[params["Axis"]], wrapped), 0, data.shape[axis] - 1)
    if op == "GATHER":
        count = params["IndexDimensions"]
        gathered = np.take(data, wrapped.reshape(indices.shape[indices.ndim - count:]), axis=axis)
        expected = oracle.evaluate(op, x, dtype, **params)
        return gathered.reshape(expected.shape) if gathered.size == expected.size else gathered
    place = list(np.indices(indices.shape, sparse=True))
    place = [np.minimum(p, n - 1) for p, n in zip(place, data.shape)]
    place[axis] = wrapped
    return data[tuple(place)]


def _scatter_places(data, indices, params):
    """SCATTER: the output place of each index element, in order (flat)."""
    place = list(np.indices(indices.shape, sparse=False))
    index = indices.astype(np.int64)
    place[params["Axis"]] = np.where(index < 0, index + data.shape[params["Axis"]], index)
    return tuple(p.reshape(-1) for p in place)


def colliding_writes_first_wins(op, x, dtype, **params):
    """SCATTER and SCATTER_ND writing in reverse order, so that of colliding indices the first wins,
    not the last as the oracle's: the pages guarantee neither, so this is no fault."""
    data, indices, updates = x
    if op == "SCATTER":
        output = data.copy()
        flat = np.ravel_multi_index(_scatter_places(data, indices, params), data.shape)
        _, first = np.unique(flat, return_index=True)
        output.reshape(-1)[flat[first]] = updates.reshape(-1)[first]
        return output
    count = params["IndicesDimensionCount"]
    tuples = indices.reshape(indices.shape[indices.ndim - count:])
    flat_tuples = tuples.reshape(-1, tuples.shape[-1])
    flat_blocks = updates.reshape(len(flat_tuples), -1)
    reversed_x = (data, flat_tuples[::-1].reshape(indices.shape), flat_blocks[::-1].reshape(updates.shape))
    return oracle.evaluate(op, reversed_x, dtype, **params)


def scatter_dropping_the_last_update(op, x, dtype, **params):
    """SCATTER or SCATTER_ND whose last index (tuple) is never written: that place keeps the input's values."""
    data, indices, _ = x
    output = oracle.evaluate(op, x, dtype, **params)
    if op == "SCATTER":
        last = tuple(p[-1] for p in _scatter_places(data, indices, params))
        output[last] = data[last]
        return output
    meaningful = output.reshape(data.shape[data.ndim - params["InputDimensionCount"]:])
    last = indices.reshape(-1, indices.shape[-1])[-1].astype(np.int64)
    place = tuple(int(c) + (meaningful.shape[j] if c < 0 else 0) for j, c in enumerate(last))
    meaningful[place] = data.reshape(meaningful.shape)[place]
    return output
