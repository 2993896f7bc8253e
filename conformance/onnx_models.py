"""ONNX models for one operator node, with dynamic shapes so one session serves many cases."""
import numpy as np
from onnx import defs, helper, numpy_helper

IR_VERSION = 8  # readable by every ONNX Runtime this harness supports (1.14 on)
MIN_OPSET = 13


def tensor_type(dtype: str) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def onnx_node(node, inputs: list, outputs: list, name: str):
    """node: specs.base.OnnxNode -> its NodeProto, in its own domain."""
    return helper.make_node(node.op_type, inputs, outputs, name=name, domain=node.domain, **node.attributes)


def opset_imports(nodes) -> list:
    """ONNX itself at opset 13 or the nodes' newer one; an experimental operator that ONNX later
    removed (ScaledTanh, ParametricSoftplus, ...) keeps the opset it lived in, and each other
    domain (ONNX Runtime's contrib operators) is imported at its node's version."""
    plain = [n for n in nodes if not n.domain]
    removed = any(not defs.has(n.op_type) for n in plain)
    opset = max((n.opset for n in plain), default=MIN_OPSET)
    imports = {"": opset if removed else max(opset, MIN_OPSET)}
    for node in nodes:
        if node.domain:
            imports[node.domain] = max(imports.get(node.domain, 1), node.opset)
    return [helper.make_opsetid(domain, version) for domain, version in imports.items()]


def single_node_model(node, dtype: str) -> bytes:
    """node: specs.base.OnnxNode. Input 'x' and output 'y' of the case's data type, any shape."""
    initializers = [numpy_helper.from_array(np.asarray(value), f"c{i}")
                    for i, value in enumerate(node.constant_inputs)]
    graph = helper.make_graph([onnx_node(node, ["x"] + [t.name for t in initializers], ["y"], f"{node.op_type}_0")],
                              "conformance",
                              [helper.make_tensor_value_info("x", tensor_type(dtype), None)],
                              [helper.make_tensor_value_info("y", tensor_type(dtype), None)],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=opset_imports([node]),
                              ir_version=IR_VERSION, producer_name="dml-conformance")
    return model.SerializeToString()


__all__ = ["single_node_model", "tensor_type", "onnx_node", "opset_imports"]
