"""An input read through strides of its own (a case file's `input_strides`: a transpose or a broadcast
written as DML_BUFFER_TENSOR_DESC strides, as DirectML users do). The input's storage is a packed run
of elements; the tensor the operator reads is its strided view, which the oracle gets as an array and
dml-direct binds as the storage with those strides."""
import numpy as np


def storage_size(shape, strides) -> int:
    """Elements the storage needs: one past the last element the strides reach (0 for an empty tensor)."""
    if any(int(n) == 0 for n in shape):
        return 0
    return 1 + sum((int(n) - 1) * int(s) for n, s in zip(shape, strides))


def view(storage: np.ndarray, shape, strides) -> np.ndarray:
    """The tensor the strides read from the storage, as an array of its own."""
    if storage_size(shape, strides) == 0:
        return np.zeros(shape, dtype=storage.dtype)
    item = storage.dtype.itemsize
    return np.lib.stride_tricks.as_strided(storage, tuple(shape), tuple(int(s) * item for s in strides)).copy()


def storage(x: np.ndarray, strides) -> np.ndarray:
    """The storage that view() reads as x: x's elements put where the strides place them (x holds one
    value wherever two of its elements share a place, as a view made by view() does)."""
    x = np.asarray(x)
    packed = np.zeros(storage_size(x.shape, strides), dtype=x.dtype)
    if packed.size:
        places = sum(np.arange(n).reshape([-1 if d == k else 1 for d in range(x.ndim)]) * int(s)
                     for k, (n, s) in enumerate(zip(x.shape, strides)))
        packed[np.broadcast_to(places, x.shape).reshape(-1)] = x.reshape(-1)
    return packed


def problem(strides, shape) -> str | None:
    """Why an input cannot be read with these strides (None: it can)."""
    if len(strides) != len(shape):
        return f"{len(strides)} input strides for the {len(shape)} dimensions of {list(shape)}"
    if any(int(s) < 0 for s in strides):
        return f"input strides {list(strides)}: DML_BUFFER_TENSOR_DESC's strides are unsigned"
    return None
