"""What the pooling pages share (MAX_POOLING, MAX_POOLING1, MAX_POOLING2; AVERAGE_POOLING and LP_POOLING
next): their window fields, the output sizes and the check of a window against its input
(oracle/windows.py), and the ONNX route. Each spec module names its own fields and tables."""
import numpy as np

from conformance.specs.base import ABSENT, NotReachable, OnnxNode, Output, Parameter, optional_tensor
from oracle import windows


def window_fields(dilations: bool = False) -> tuple:
    """The fields after the tensors, in the struct's order, their count DimensionCount (2 or 3)."""
    fields = (
        Parameter("Strides", "uint_array", None, "The window's step in each spatial dimension ({H, W} or "
                  "{D, H, W}).", count="DimensionCount"),
        Parameter("WindowSize", "uint_array", None, "The window's size in each spatial dimension.",
                  count="DimensionCount"),
        Parameter("StartPadding", "uint_array", None, "Padding elements before each spatial dimension (read "
                  "as no element).", count="DimensionCount"),
        Parameter("EndPadding", "uint_array", None, "Padding elements after each spatial dimension.",
                  count="DimensionCount"))
    if dilations:
        fields += (Parameter("Dilations", "uint_array", None, "The distance between a window's positions in "
                             "each spatial dimension (1: adjacent).", count="DimensionCount"),)
    return fields


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor's sizes; OutputIndicesTensor's, the same, where a case binds it."""
    shape = windows.output_sizes(input_shapes[0], params)
    return (shape,) if params.get(INDICES, ABSENT) == ABSENT else (shape, shape)


def shape_check(input_shapes, params) -> str | None:
    return windows.problem(input_shapes[0], params)


def max_source_index(output_index, inputs, params) -> tuple:
    """The input element each output copies: the first window position holding the maximum."""
    from oracle.max_pooling import maximum
    x = np.asarray(inputs[0])
    x = x.astype(np.float64) if x.dtype.kind == "f" else x
    flat = windows.max_pool(x, params, maximum(x, params.get("nan_rule", "d3d")))[1]
    return np.zeros(np.shape(output_index[0]), dtype=np.intp), np.unravel_index(flat[output_index], x.shape)


def allowed_indices(inputs, params) -> np.ndarray:
    """The indices (into InputTensor as one contiguous 1-D array) the pages allow at each output: the
    first element of the window equal to its maximum ("the later equal values are ignored"), and the
    one whose value the maximum is where +0 and -0 tie (the values output must be +0 there)."""
    from oracle.max_pooling import maximum
    x = np.asarray(inputs[0])
    x = x.astype(np.float64) if x.dtype.kind == "f" else x
    best, kept = windows.max_pool(x, params, maximum(x, params.get("nan_rule", "d3d")))
    index, valid = windows.taps(x.shape, params)
    flat = np.ravel_multi_index(index, x.shape)
    equal = valid & (x[index] == best[..., None])
    first = np.where(equal.any(axis=-1), np.take_along_axis(flat, np.argmax(equal, axis=-1)[..., None], -1)[..., 0],
                     kept)
    mask = np.zeros(best.shape + (x.size,), dtype=bool)
    for chosen in (first, kept):
        np.put_along_axis(mask, chosen[..., None], True, axis=-1)
    return mask


INDICES = "OutputIndicesTensor"
INDICES_OUTPUT = Output(INDICES, dtype=lambda dtype: "uint32", allowed=allowed_indices, optional=True)
INDICES_FIELDS = (
    optional_tensor(INDICES, "_Maybenull_ OutputIndicesTensor: each maximum's index into InputTensor as one "
                    "contiguous 1-D array (the first of equal values); absent, the operator is MAX_POOLING."),
    Parameter("IndicesType", "tensor_type", None, "Not a field: OutputIndicesTensor's data type, UINT32 or (from "
              "5_0) UINT64.", choices=("uint32", "uint64"), unset=lambda dtype: "uint32", tensors=(INDICES,)))


def indices_level(params) -> str | None:
    return "5_0" if params.get("IndicesType") == "uint64" and params.get(INDICES) != ABSENT else None


def max_pool_onnx(dtype: str, params: dict) -> OnnxNode:
    """MaxPool (opset 12: int8 and uint8 too; its int64 Indices output is DirectML's, row-major over
    the unpadded input), padding ignored as the page's; alone (a (1,) placeholder is no 4-D input)."""
    if dtype not in ("float32", "float16", "int8", "uint8"):
        raise NotReachable(f"ONNX MaxPool takes no {dtype}")
    attributes = {"kernel_shape": list(params["WindowSize"]), "strides": list(params["Strides"]),
                  "pads": list(params["StartPadding"]) + list(params["EndPadding"])}
    if params.get("Dilations"):
        attributes["dilations"] = list(params["Dilations"])
    if params.get(INDICES, ABSENT) == ABSENT:
        return OnnxNode("MaxPool", 12, attributes=attributes, alone=True)
    return OnnxNode("MaxPool", 12, attributes=attributes, alone=True, outputs=2,
                    directml_types=(None, params.get("IndicesType") or "uint32"))


FLOATS_UP_TO_5_0 = ("float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
NAN_NOTE = ("The page does not say how a NaN in a window compares: the cases judge Direct3D's max (a NaN "
            "operand yields the other), nan_rule propagate gives NaN.")
