"""Index outputs (ARGMIN, ARGMAX; later TOP_K's and MAX_POOLING2's indices): what each output element
may be, as the SET of indices the page allows, not one value. Exact where the page decides (ties by
AxisDirection); wider where it is silent (NaN), each reading it leaves open accepted.

An index output's Output.allowed(inputs, params) gives a boolean array of the output's shape + (n,),
True where index value j may be written; conformance/judge/indices.py judges a device's output by it."""
import numpy as np

from oracle.arg_extreme import DECREASING, INCREASING

AXIS_DIRECTIONS = {INCREASING: 0, DECREASING: 1}  # DirectML.h, DML_AXIS_DIRECTION


def _slices(x: np.ndarray, axes) -> np.ndarray:
    """x with the axes moved last, in order, and flattened: (*the other sizes, slice size)."""
    moved = np.moveaxis(x, list(axes), list(range(x.ndim - len(axes), x.ndim)))
    return moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))


def _chosen(y: np.ndarray, extreme, direction: str, nan_is_extreme: bool) -> np.ndarray:
    """One reading: where each slice of y (last axis) may point. The extreme of its non-NaN values,
    the first (INCREASING) or last (DECREASING) of equal ones (-0 equals +0); a slice of NaN alone
    points anywhere. nan_is_extreme: a slice holding NaN points at any of its NaNs instead."""
    floats = y.dtype.kind == "f"
    nan = np.isnan(y) if floats else np.zeros(y.shape, dtype=bool)
    valued = ~nan
    if floats:  # NaN left out: it never is the extreme of the numbers
        best = extreme(np.where(valued, y, np.inf if extreme is np.min else -np.inf), axis=-1, keepdims=True)
    else:
        best = extreme(y, axis=-1, keepdims=True)
    ties = (y == best) & valued
    count = y.shape[-1]
    if direction is None:  # the page is silent on ties: any of them
        return np.where(~valued.any(axis=-1, keepdims=True), True,
                        np.where(nan.any(axis=-1, keepdims=True), nan, ties) if nan_is_extreme else ties)
    first = np.argmax(ties, axis=-1) if direction == INCREASING else count - 1 - np.argmax(ties[..., ::-1], axis=-1)
    allowed = np.zeros(y.shape, dtype=bool)
    np.put_along_axis(allowed, first[..., None], True, axis=-1)
    none_valued = ~valued.any(axis=-1, keepdims=True)
    allowed = np.where(none_valued, True, allowed)
    if nan_is_extreme:
        allowed = np.where(nan.any(axis=-1, keepdims=True), nan, allowed)
    return allowed


def reduction_allowed(inputs, params: dict, extreme, any_tie: bool = False) -> np.ndarray:
    """ARGMIN (extreme np.min) and ARGMAX (np.max) over params["Axes"]. Where the page is silent, every
    reading is accepted: an index counted over the axes in ascending order or in Axes' own order (they
    differ when Axes is not ascending), and a slice holding NaN pointing at the extreme of its other
    values (Direct3D's min and max return the non-NaN operand) or at any of its NaNs (NaN the extreme).
    any_tie: the page leaves ties open (REDUCE's ARGMAX): any index of an equal extreme."""
    x = np.asarray(inputs[0])
    axes = tuple(int(a) for a in params["Axes"])
    direction = None if any_tie else params.get("AxisDirection") or INCREASING
    output_shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    allowed = None
    for order in dict.fromkeys((tuple(sorted(axes)), axes)):  # each reading of the index's axis order
        y = _slices(x, order)  # index value v names position v of the slice flattened in this order
        reading = _chosen(y, extreme, direction, False) | _chosen(y, extreme, direction, True)
        allowed = reading if allowed is None else allowed | reading
    return allowed.reshape(output_shape + (allowed.shape[-1],))


def positions_allowed(inputs, axes, extreme, direction: str | None = INCREASING) -> np.ndarray:
    """Where a one-hot output (HARDMAX) may put its 1: as reduction_allowed, but each reading of the
    tie order mapped back to positions, counted row-major over the axes in ascending order, and a last
    column, n: no 1 at all, allowed where the slice has no maximum (NaN alone). The shape: the input's,
    each axis in axes of size 1, + (n + 1,). direction None: any tie."""
    x = np.asarray(inputs[0])
    axes = tuple(int(a) % x.ndim for a in axes)
    ascending = tuple(sorted(axes))
    kept = [i for i in range(x.ndim) if i not in axes]
    allowed = None
    for order in dict.fromkeys((ascending, axes)):
        y = _slices(x, order)
        reading = _chosen(y, extreme, direction, False) | _chosen(y, extreme, direction, True)
        sizes = reading.shape[:-1] + tuple(x.shape[a] for a in order)
        back = np.moveaxis(reading.reshape(sizes), [len(kept) + order.index(a) for a in ascending],
                           list(range(len(kept), x.ndim)))
        back = back.reshape(reading.shape)
        allowed = back if allowed is None else allowed | back
    numbers = ~np.isnan(_slices(x, ascending)) if x.dtype.kind == "f" else np.ones(allowed.shape, dtype=bool)
    allowed = np.concatenate([allowed, ~numbers.any(axis=-1, keepdims=True)], axis=-1)
    output_shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    return allowed.reshape(output_shape + (allowed.shape[-1],))
