"""What the softmax pages share (ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX and their "1" versions):
each output element from the elements of its slice along the reduced axes (the original operators:
the last axis, their effective rank being at most 2; the "1" versions: Axes), in float64.

Softmax exp(x - m) / sum(exp(x - m)) and log-softmax x - m - log(sum(exp(x - m))), m the slice's
maximum (Direct3D's max: NaN left out): the pages' exp(x) / sum(exp(x)) without the overflow, as
every implementation computes it. Hardmax: 1 at the first maximum (the pages' ties: the first
occurrence, DML_AXIS_DIRECTION_INCREASING over the reduced axes counted row-major), 0 elsewhere."""
import numpy as np

from oracle.arg_extreme import INCREASING, arg_extreme

LAST_AXIS = (-1,)  # the original operators reduce the last (Width) axis


def axes_of(x: np.ndarray, axes) -> tuple:
    return tuple(sorted(int(a) % x.ndim for a in axes))


def _shifted(x: np.ndarray, axes: tuple) -> np.ndarray:
    top = np.fmax.reduce(x, axis=axes, keepdims=True)
    return x - top


def softmax(x: np.ndarray, axes) -> np.ndarray:
    axes = axes_of(x, axes)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(_shifted(x, axes))
        return e / np.sum(e, axis=axes, keepdims=True)


def log_softmax(x: np.ndarray, axes) -> np.ndarray:
    axes = axes_of(x, axes)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = _shifted(x, axes)
        return d - np.log(np.sum(np.exp(d), axis=axes, keepdims=True))


def hardmax(x: np.ndarray, axes, nan_rule: str) -> np.ndarray:
    axes = axes_of(x, axes)
    index = arg_extreme(x, axes, INCREASING, nan_rule, minimum=False)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(np.zeros(x.shape), kept + list(axes))
    flat = moved.reshape([x.shape[a] for a in kept] + [-1])
    np.put_along_axis(flat, index.reshape([x.shape[a] for a in kept] + [1]), 1.0, axis=-1)
    return np.transpose(flat.reshape(moved.shape), np.argsort(kept + list(axes)))
