"""Faults of a device's ONE_HOT, NONZERO_COORDINATES and MAX_UNPOOLING (backend
python:faults_one_hot_nonzero:<fault>): each computes the operator as a broken kernel would, every other
operator as the oracle does."""
import numpy as np

import oracle


def one_hot_with_on_and_off_swapped(op, x, dtype, **params):
    """ONE_HOT reading OnValue where the page puts OffValue and the reverse."""
    if op != "ONE_HOT":
        return oracle.evaluate(op, x, dtype, **params)
    indices, values = x
    flat = values.reshape(-1).copy()
    fastest = max(d for d, n in enumerate(values.shape) if n > 1)
    on = int(np.ravel_multi_index(tuple(1 if d == fastest else 0 for d in range(values.ndim)), values.shape))
    flat[0], flat[on] = values.reshape(-1)[on], values.reshape(-1)[0]
    return oracle.evaluate(op, (indices, flat.reshape(values.shape)), dtype, **params)


def nonzero_with_coordinates_transposed(op, x, dtype, **params):
    """NONZERO_COORDINATES writing its coordinates column by column (N rows of M, as ONNX's NonZero lays
    them out) into the M x N tensor."""
    count, coordinates = oracle.evaluate(op, x, dtype, **params)
    rows = coordinates.reshape(coordinates.shape[-2:])
    return count, rows.T.reshape(coordinates.shape).copy()


def nonzero_with_its_count_off_by_one(op, x, dtype, **params):
    """NONZERO_COORDINATES counting one element more than it writes."""
    count, coordinates = oracle.evaluate(op, x, dtype, **params)
    return count + np.uint32(1), coordinates


def unpooling_at_the_inputs_index(op, x, dtype, **params):
    """MAX_UNPOOLING writing each input element at its own place in the input (its flat index), not at the
    output place its index names."""
    if op != "MAX_UNPOOLING":
        return oracle.evaluate(op, x, dtype, **params)
    data, _ = x
    own = np.arange(data.size, dtype=np.uint32).reshape(data.shape) % np.prod(params["OutputSizes"])
    return oracle.evaluate(op, (data, own.astype(x[1].dtype)), dtype, **params)


def rows_past_the_count_filled(op, x, dtype, **params):
    """NONZERO_COORDINATES leaving 0xFFFFFFFF in the rows from the count on, which the page leaves undefined:
    no fault."""
    count, coordinates = oracle.evaluate(op, x, dtype, **params)
    rows = coordinates.reshape(coordinates.shape[-2:]).copy()
    rows[int(count.flat[0]):] = np.iinfo(np.uint32).max
    return count, rows.reshape(coordinates.shape)


def colliding_writes_first_wins(op, x, dtype, **params):
    """MAX_UNPOOLING writing in reverse order, so that of colliding indices the first wins, not the last as
    the oracle's: the page says neither, so this is no fault."""
    data, indices = x
    return oracle.evaluate(op, (data.reshape(-1)[::-1].reshape(data.shape),
                                indices.reshape(-1)[::-1].reshape(indices.shape)), dtype, **params)
