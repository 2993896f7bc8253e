"""What the pooling pages share (MAX_POOLING, MAX_POOLING1, MAX_POOLING2; AVERAGE_POOLING and LP_POOLING
next): their window fields, the output sizes and the check of a window against its input
(oracle/windows.py), and the ONNX route. Each spec module names its own fields and tables."""
import numpy as np

from conformance.specs.base import NotReachable, OnnxNode, Parameter
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
    return (windows.output_sizes(input_shapes[0], params),)


def shape_check(input_shapes, params) -> str | None:
    return windows.problem(input_shapes[0], params)


def max_source_index(output_index, inputs, params) -> tuple:
    """The input element each output copies: the first window position holding the maximum."""
    from oracle.max_pooling import maximum
    x = np.asarray(inputs[0])
    x = x.astype(np.float64) if x.dtype.kind == "f" else x
    flat = windows.max_pool(x, params, maximum(x, params.get("nan_rule", "d3d")))[1]
    return np.zeros(np.shape(output_index[0]), dtype=np.intp), np.unravel_index(flat[output_index], x.shape)


def max_pool_onnx(dtype: str, params: dict) -> OnnxNode:
    """MaxPool (opset 12: int8 and uint8 too), padding ignored as the page's; alone (a (1,) placeholder
    is no 4-D input)."""
    if dtype not in ("float32", "float16", "int8", "uint8"):
        raise NotReachable(f"ONNX MaxPool takes no {dtype}")
    attributes = {"kernel_shape": list(params["WindowSize"]), "strides": list(params["Strides"]),
                  "pads": list(params["StartPadding"]) + list(params["EndPadding"])}
    if params.get("Dilations"):
        attributes["dilations"] = list(params["Dilations"])
    return OnnxNode("MaxPool", 12, attributes=attributes, alone=True)


FLOATS_UP_TO_5_0 = ("float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
NAN_NOTE = ("The page does not say how a NaN in a window compares: the cases judge Direct3D's max (a NaN "
            "operand yields the other), nan_rule propagate gives NaN.")
