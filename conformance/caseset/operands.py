"""A case's input as the comparison sees it: one array, or for an operator of several inputs a tuple
of arrays in the page's order (A, B; Condition, A, B), each broadcast to the output's shape."""
import numpy as np


def several(x) -> bool:
    return isinstance(x, tuple)


def flat(x, shape=None):
    """x flattened; several inputs broadcast to shape (the output's) first, as the operator reads them."""
    if several(x):
        return tuple(np.broadcast_to(np.asarray(v), shape if shape is not None else np.broadcast_shapes(
            *(np.shape(w) for w in x))).reshape(-1) for v in x)
    return np.asarray(x).reshape(-1)


def take(x, index):
    """The elements at index of flat x."""
    return tuple(v[index] for v in x) if several(x) else x[index]


def join(parts):
    """Flat inputs (each one array, or each a tuple of several) end to end, in order."""
    if parts and several(parts[0]):
        return tuple(np.concatenate(arrays) for arrays in zip(*parts))
    return np.concatenate(parts)


_UNSIGNED = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def is_subnormal(values) -> np.ndarray:
    """Where float values are subnormal (nonzero and below the smallest normal): on the bits (the
    magnitude's, less one, below the smallest normal's: one integer pass, where float16 arithmetic
    in numpy is an element at a time)."""
    values = np.asarray(values)
    if values.dtype.kind != "f" or values.dtype.itemsize not in _UNSIGNED:
        tiny = np.finfo(values.dtype).smallest_normal
        return (values != 0) & (np.abs(values) < tiny)
    unsigned = _UNSIGNED[values.dtype.itemsize]
    finfo = np.finfo(values.dtype)
    magnitude = values.view(unsigned) & unsigned((1 << (8 * values.dtype.itemsize - 1)) - 1)
    return magnitude - unsigned(1) < unsigned((1 << finfo.nmant) - 1)


def subnormal(x) -> np.ndarray:
    """Elements of flat x where an input (any of several) is a float subnormal a device may flush."""
    arrays = x if several(x) else (x,)
    masks = [is_subnormal(v) for v in arrays if v.dtype.kind == "f"]
    if not masks:
        return np.zeros(len(arrays[0]), dtype=bool)
    return np.logical_or.reduce(masks)


def flushed(x, which) -> tuple:
    """Several flat inputs with the subnormals of the inputs numbered in `which` made sign-preserved zeros
    (Direct3D's flush), the others kept."""
    return tuple(np.where(is_subnormal(v), np.copysign(np.zeros_like(v), v), v) if k in which and v.dtype.kind == "f"
                 else v for k, v in enumerate(x))


def element(x, position, jsonable):
    """The input of one element for a report: its value, or the list of every input's value."""
    if several(x):
        return [jsonable(v[position]) for v in x]
    return jsonable(x[position])





def size(x) -> int:
    """Elements of the output x makes (several inputs: of their broadcast shape; inputs of their own
    shapes that do not broadcast, GATHER's data and indices: the largest's, 0 where one is empty)."""
    if several(x):
        shapes = [np.shape(v) for v in x]
        try:
            return int(np.prod(np.broadcast_shapes(*shapes), dtype=np.int64))
        except ValueError:
            sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
            return 0 if 0 in sizes else max(sizes)
    return int(np.asarray(x).size)
__all__ = ["several", "flat", "take", "join", "is_subnormal", "subnormal", "flushed", "element", "size"]
