"""Faults of a device's gathers (backend python:faults_gather:<fault>): each computes a gather as a
broken kernel would, for GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 cases."""
import numpy as np

import oracle
from conformance import specs


def _bounds(op, x, params):
    return np.broadcast_to(specs.get(op).index_bounds([np.shape(v) for v in x], params), np.shape(x[1]))


def gather_with_indices_transposed(op, x, dtype, **params):
    """The indices read in transposed order: the last two dimensions of GATHER's and GATHER_ELEMENTS'
    indices, of the ND gathers' index tuples (their positions, each tuple kept whole)."""
    data, indices = x
    tuples = op.startswith("GATHER_ND")
    positions = indices.shape[:-1] if tuples else indices.shape
    if len(positions) >= 2:
        moved = np.swapaxes(indices, len(positions) - 2, len(positions) - 1)
        indices = np.ascontiguousarray(moved).reshape(indices.shape)
    if op == "GATHER_ELEMENTS":  # each index addresses the Axis dimension at its own place: keep it in range
        indices = np.minimum(indices, _bounds(op, x, params) - 1).astype(indices.dtype)
    return oracle.evaluate(op, (data, indices), dtype, **params)


def negative_indices_as_positive(op, x, dtype, **params):
    """A negative index taken as its magnitude (-1 as 1), clamped within its dimension as the page's
    reads are."""
    data, indices = x
    if indices.dtype.kind == "i":
        indices = np.minimum(np.abs(indices), _bounds(op, x, params) - 1).astype(indices.dtype)
    return oracle.evaluate(op, (data, indices), dtype, **params)


def gather_on_the_wrong_axis(op, x, dtype, **params):
    """GATHER and GATHER_ELEMENTS along the next axis (Axis + 1, wrapping), indices clamped within it;
    the ND gathers, which have no Axis, as they should be."""
    data, indices = x
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
