"""The index of a slice's extreme, as the ARGMIN and ARGMAX pages say: each output element reduces the
input elements of its slice (the axes in Axes; the output keeps every axis, of size 1 where reduced)
to the index of its minimum (ARGMIN) or maximum (ARGMAX), counted over the reduced axes together
("with respect to the provided input axes": Axes {0, 1} of a 3x3 input counts 0..8, row-major, in the
tensor's own axis order). Equal values: DML_AXIS_DIRECTION_INCREASING the first index,
DECREASING the last (-0 equals +0). NaN, where the pages are silent: nan_rule "d3d" leaves it out
(Direct3D's min and max return the non-NaN operand; a slice of NaN alone is one tie), "propagate"
makes it the extreme (numpy's reading), the first or last NaN as the direction says."""
import numpy as np

INCREASING, DECREASING = "DML_AXIS_DIRECTION_INCREASING", "DML_AXIS_DIRECTION_DECREASING"  # DML_AXIS_DIRECTION
# OutputTensor's type where a case leaves OutputType unset (the pages give no default): INT64, the
# type ONNX's ArgMax and ArgMin write
UNSET_OUTPUT_TYPE = "int64"


def output_dtype(dtype: str, OutputType=None) -> str:
    return OutputType or UNSET_OUTPUT_TYPE


def arg_extreme(x: np.ndarray, axes, direction: str, nan_rule: str, minimum: bool) -> np.ndarray:
    axes = sorted(int(a) for a in axes)
    kept = [a for a in range(x.ndim) if a not in axes]
    slices = np.transpose(x, kept + axes).reshape([x.shape[a] for a in kept] + [-1])
    nan = np.isnan(slices) if slices.dtype.kind == "f" else np.zeros(slices.shape, dtype=bool)
    if nan_rule == "propagate" and nan.any():
        extreme_here = np.where(nan.any(axis=-1, keepdims=True), nan, _extreme_mask(slices, nan, minimum))
    else:
        extreme_here = _extreme_mask(slices, nan, minimum)
    count = slices.shape[-1]
    if direction == INCREASING:
        index = np.argmax(extreme_here, axis=-1)
    else:
        index = count - 1 - np.argmax(extreme_here[..., ::-1], axis=-1)
    output_shape = [1 if a in axes else n for a, n in enumerate(x.shape)]
    return index.astype(np.int64).reshape(output_shape)


def _extreme_mask(slices: np.ndarray, nan: np.ndarray, minimum: bool) -> np.ndarray:
    """Where each slice holds its extreme among its non-NaN values (every element of a slice of NaN alone)."""
    if slices.dtype.kind == "f":
        fill = np.inf if minimum else -np.inf
        best = (np.min if minimum else np.max)(np.where(nan, fill, slices), axis=-1, keepdims=True)
        return np.where(nan.all(axis=-1, keepdims=True), True, (slices == best) & ~nan)
    best = (np.min if minimum else np.max)(slices, axis=-1, keepdims=True)
    return slices == best
