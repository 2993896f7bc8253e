"""ONNX models for one operator node, with dynamic shapes so one session serves many cases."""
import numpy as np
from onnx import helper, numpy_helper

IR_VERSION = 8  # readable by every ONNX Runtime this harness supports (1.14 on)


def tensor_type(dtype: str) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def single_node_model(node, dtype: str) -> bytes:
    """node: specs.base.OnnxNode. Input 'x' and output 'y' of the case's data type, any shape."""
    initializers = [numpy_helper.from_array(np.asarray(value), f"c{i}")
                    for i, value in enumerate(node.constant_inputs)]
    onnx_node = helper.make_node(node.op_type, ["x"] + [t.name for t in initializers], ["y"],
                                 name=f"{node.op_type}_0", **node.attributes)
    graph = helper.make_graph([onnx_node], "conformance",
                              [helper.make_tensor_value_info("x", tensor_type(dtype), None)],
                              [helper.make_tensor_value_info("y", tensor_type(dtype), None)],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", max(node.opset, 13))],
                              ir_version=IR_VERSION, producer_name="dml-conformance")
    return model.SerializeToString()


__all__ = ["single_node_model", "tensor_type"]
