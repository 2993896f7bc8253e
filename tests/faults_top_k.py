"""TOP_K and TOP_K1 devices that are wrong on purpose, with oracle.evaluate's signature
(python:faults_top_k:NAME); each computes the selection itself, with numpy, and gets one thing wrong."""
import numpy as np

import oracle


def _select(x, Axis, K, largest, last_of_equals=False):
    """(values, indices) of the K largest (or smallest) along Axis; of equal values the first, or the last."""
    moved = np.moveaxis(np.asarray(x), Axis, -1)
    if last_of_equals:  # a stable sort of the reversed sequence: equal values by descending index
        moved = moved[..., ::-1]
    keys = moved.astype(np.float64) if moved.dtype.kind == "f" else moved
    order = np.argsort(keys, axis=-1, kind="stable")
    if largest:  # the largest first, equal values keeping their order: a stable sort of the negated ranks
        ranks = np.unique(moved, return_inverse=True)[1].reshape(moved.shape)
        order = np.argsort(-ranks, axis=-1, kind="stable")
    order = order[..., :K]
    values = np.take_along_axis(moved, order, axis=-1)
    if last_of_equals:
        order = moved.shape[-1] - 1 - order
    return np.moveaxis(values, -1, Axis), np.moveaxis(order, -1, Axis)


def _types(op, dtype, params):
    return oracle.output_dtype(op, dtype, **params)


def _largest(params):
    return params.get("AxisDirection", "DML_AXIS_DIRECTION_DECREASING") == "DML_AXIS_DIRECTION_DECREASING"


def top_k_outputs_swapped(op, x, dtype, Axis=None, K=None, **params):
    """Each output written into the other's tensor: the indices (in the values' type) in OutputValueTensor,
    the values (cast to the index type) in OutputIndexTensor."""
    values, indices = _select(x, Axis, K, _largest(params))
    value_type, index_type = _types(op, dtype, params)
    with np.errstate(all="ignore"):
        return indices.astype(value_type), np.nan_to_num(values.astype(np.float64)).astype(np.int64).astype(index_type)


def top_k_ties_broken_the_wrong_way(op, x, dtype, Axis=None, K=None, **params):
    """Of equal values, the one of HIGHER index first (the pages: the lower index first)."""
    values, indices = _select(x, Axis, K, _largest(params), last_of_equals=True)
    value_type, index_type = _types(op, dtype, params)
    return values.astype(value_type), indices.astype(index_type)


def top_k_smallest_where_largest_asked(op, x, dtype, Axis=None, K=None, **params):
    """The K smallest, smallest first, whatever AxisDirection says (TOP_K asks for the largest)."""
    values, indices = _select(x, Axis, K, largest=False)
    value_type, index_type = _types(op, dtype, params)
    return values.astype(value_type), indices.astype(index_type)
