"""ONNX models for one operator node, with dynamic shapes so one session serves many cases."""
import numpy as np
from onnx import helper, numpy_helper

IR_VERSION = 8  # readable by every ONNX Runtime this harness supports (1.14 on)


def tensor_type(dtype: str) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def output_type(node, dtype: str) -> int:
    """The ONNX type of node's output for an input of dtype."""
    return tensor_type(node.output_type or dtype)


def as_directml(output):
    """A device output as DirectML's tensor holds it: ONNX's bool is DirectML's UINT8 tensor, so its
    bytes are read as uint8 (a device that writes 255 for true shows as 255, not as True)."""
    return output.view(np.uint8) if isinstance(output, np.ndarray) and output.dtype == np.bool_ else output


def single_node_model(node, dtype: str) -> bytes:
    """node: specs.base.OnnxNode. Input 'x' of the case's data type and output 'y' of node's output
    type, any shape."""
    initializers = [numpy_helper.from_array(np.asarray(value), f"c{i}")
                    for i, value in enumerate(node.constant_inputs)]
    onnx_node = helper.make_node(node.op_type, ["x"] + [t.name for t in initializers], ["y"],
                                 name=f"{node.op_type}_0", **node.attributes)
    graph = helper.make_graph([onnx_node], "conformance",
                              [helper.make_tensor_value_info("x", tensor_type(dtype), None)],
                              [helper.make_tensor_value_info("y", output_type(node, dtype), None)],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", max(node.opset, 13))],
                              ir_version=IR_VERSION, producer_name="dml-conformance")
    return model.SerializeToString()


__all__ = ["single_node_model", "tensor_type", "output_type", "as_directml"]
