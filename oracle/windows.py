"""The sliding windows of DirectML's pooling operators (MAX_POOLING*, and AVERAGE_POOLING*, LP_POOLING*
next): which input element each window position of each output element reads.

A window over the spatial dimensions (those after BatchCount and ChannelCount) starts, for output
position o in dimension i, at o * Strides[i] - StartPadding[i] and takes WindowSize[i] positions
Dilations[i] apart; a position in the padding reads no element."""
import itertools

import numpy as np


def dilated(window: int, dilation: int) -> int:
    """The extent of a window of `window` positions `dilation` apart."""
    return (window - 1) * dilation + 1


def output_sizes(input_shape, params) -> tuple:
    """OutputTensor.Sizes: BatchCount and ChannelCount kept; each spatial dimension
    (PaddedSize - the window's extent) / Strides[i] + 1 (the extent WindowSize[i] where Dilations is 1)."""
    spatial = []
    for i, size in enumerate(input_shape[2:]):
        padded = size + params["StartPadding"][i] + params["EndPadding"][i]
        spatial.append((padded - dilated(params["WindowSize"][i], _dilations(params)[i])) // params["Strides"][i] + 1)
    return (*input_shape[:2], *spatial)


def problem(input_shape, params, empty_windows: bool = False) -> str | None:
    """Why a window of these fields cannot slide over an input of this shape (one line), or None.
    empty_windows: whether a window wholly in the padding is allowed (UNFOLD writes its zeros; a
    pooling window must read an element)."""
    rank = len(input_shape)
    arrays = [name for name in ("Strides", "WindowSize", "StartPadding", "EndPadding", "Dilations") if name in params]
    for name in arrays:
        if params[name] is None or len(params[name]) != rank - 2:
            return f"{name} must give one value per spatial dimension: DimensionCount {rank - 2} for a {rank}-D input"
    for name in ("Strides", "WindowSize", "Dilations"):
        if name in params and any(v < 1 for v in params[name]):
            return f"{name} {list(params[name])}: values must be at least 1"
    for i, size in enumerate(input_shape[2:]):
        padded = size + params["StartPadding"][i] + params["EndPadding"][i]
        extent = dilated(params["WindowSize"][i], _dilations(params)[i])
        if padded < extent:
            return (f"spatial dimension {i}: the window's extent {extent} is larger than the padded input "
                    f"{size} + {params['StartPadding'][i]} + {params['EndPadding'][i]}")
    if not empty_windows:
        valid = taps(input_shape, params)[1]
        if valid.size and not valid.any(axis=-1).all():
            return "a window lies wholly in the padding: it reads no input element"
    return None


def taps(input_shape, params) -> tuple:
    """(index, valid): index, one array per input dimension of shape output sizes + (window positions,),
    the input element each window position of each output element reads (clipped into the input
    where the position is padding); valid, of the same shape, False where it is padding. Window
    positions run in row-major order over the window (the order "the first value encountered" counts)."""
    out = output_sizes(input_shape, params)
    spatial = len(input_shape) - 2
    offsets = list(itertools.product(*(range(w) for w in params["WindowSize"])))
    grid = np.indices(out, sparse=True)
    index = [np.broadcast_to(grid[0][..., None], (*out, len(offsets))),
             np.broadcast_to(grid[1][..., None], (*out, len(offsets)))]
    valid = np.ones((*out, len(offsets)), dtype=bool)
    for i in range(spatial):
        step = np.array([o[i] for o in offsets]) * _dilations(params)[i]
        position = grid[2 + i][..., None] * params["Strides"][i] - params["StartPadding"][i] + step
        inside = (position >= 0) & (position < input_shape[2 + i])
        valid = valid & inside
        index.append(np.broadcast_to(np.clip(position, 0, input_shape[2 + i] - 1), valid.shape))
    return tuple(np.broadcast_to(a, valid.shape) for a in index), valid


def max_pool(x: np.ndarray, params: dict, maximum) -> tuple:
    """(values, flat indices): each window's maximum by `maximum` (a, b) -> max, folded over the window
    positions in order; the index, into x as one contiguous 1-D array, of the first position holding
    the value the fold kept ("the later equal values are ignored")."""
    index, valid = taps(x.shape, params)
    read = x[index]
    flat = np.ravel_multi_index(index, x.shape)
    best, where = read[..., 0].copy(), flat[..., 0].copy()
    seen = valid[..., 0].copy()
    for k in range(1, read.shape[-1]):
        value = read[..., k]
        folded = np.where(seen, maximum(best, value), value)
        changed = valid[..., k] & (~seen | _differs(folded, best))
        best = np.where(changed, folded, best)
        where = np.where(changed, flat[..., k], where)
        seen = seen | valid[..., k]
    return best, where


def _differs(a, b):
    if a.dtype.kind != "f":
        return a != b
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return (a.view(bits) != b.view(bits)) & ~(np.isnan(a) & np.isnan(b))


def _dilations(params) -> list:
    return params.get("Dilations") or [1] * len(params["WindowSize"])


def window_sums(params) -> callable:
    """array (of the input's shape) -> each output element's sum over its window's positions inside
    the input (padding adds nothing; AVERAGE_POOLING, LP_POOLING); the taps kept per input shape."""
    known = {}

    def summed(array):
        array = np.asarray(array)
        if array.shape not in known:
            known[array.shape] = taps(array.shape, params)
        index, valid = known[array.shape]
        return np.where(valid, array[index], 0).sum(axis=-1)
    return summed
