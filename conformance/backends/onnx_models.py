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
    """ONNX itself at the newest opset, 13 or later where possible, at which each node's operator
    version is still current (Dropout-7 needs an opset below 10); an experimental operator that
    ONNX later removed (ScaledTanh, ParametricSoftplus, ...) keeps the opset it lived in, and each
    other domain (ONNX Runtime's contrib operators) is imported at its node's version."""
    imports = {"": max((_current_at(n) for n in nodes if not n.domain), default=MIN_OPSET)}
    for node in nodes:
        if node.domain:
            imports[node.domain] = max(imports.get(node.domain, 1), node.opset)
    return [helper.make_opsetid(domain, version) for domain, version in imports.items()]


def _current_at(node) -> int:
    if not defs.has(node.op_type):
        return node.opset
    version = defs.get_schema(node.op_type, node.opset).since_version
    opset = max(node.opset, MIN_OPSET)
    while defs.get_schema(node.op_type, opset).since_version != version:
        opset -= 1
    return opset


def output_type(node, dtype: str) -> int:
    """The ONNX type of node's output for an input of dtype."""
    return tensor_type(node.output_type or dtype)


def as_directml(output):
    """A device output as DirectML's tensor holds it: ONNX's bool is DirectML's UINT8 tensor, so its
    bytes are read as uint8 (a device that writes 255 for true shows as 255, not as True)."""
    return output.view(np.uint8) if isinstance(output, np.ndarray) and output.dtype == np.bool_ else output


def with_inputs(node, spec, dtype: str):
    """node with the graph input types of spec's inputs for a case of dtype (several inputs), unless
    to_onnx chose them (a bool input where DirectML's tensor is UINT8: And, Where's condition)."""
    if not spec.several_inputs or node.input_types:
        return node
    from dataclasses import replace
    return replace(node, input_types=tuple(i.data_type(dtype) for i in spec.inputs))


def input_names(node, prefix: str = "x") -> list:
    """The graph inputs of a node: prefix, then prefix_1, prefix_2, ... for its further inputs."""
    return [prefix] + [f"{prefix}_{i}" for i in range(1, len(node.input_types))]


def input_infos(node, dtype: str, prefix: str = "x") -> list:
    types = node.input_types or (dtype,)
    return [helper.make_tensor_value_info(name, tensor_type(t), None)
            for name, t in zip(input_names(node, prefix), types)]


def feeds(node, x, prefix: str = "x") -> dict:
    """The feeds of a node's inputs: x, or a tuple of several inputs (ONNX broadcasts them). An input
    the graph takes as bool gets x != 0: ONNX's truth of a DirectML UINT8 tensor."""
    arrays = x if isinstance(x, tuple) else (x,)
    types = node.input_types or (None,) * len(arrays)
    return {name: np.asarray(v) != 0 if t == "bool" else v
            for name, v, t in zip(input_names(node, prefix), arrays, types)}


def single_node_model(node, dtype: str) -> bytes:
    """node: specs.base.OnnxNode. Input 'x' of the case's data type (several inputs: x, x_1, ...) and
    output 'y' of node's output type, any shape."""
    initializers = [numpy_helper.from_array(np.asarray(value), f"c{i}")
                    for i, value in enumerate(node.constant_inputs)]
    graph = helper.make_graph([onnx_node(node, input_names(node) + [t.name for t in initializers], ["y"],
                                         f"{node.op_type}_0")],
                              "conformance",
                              input_infos(node, dtype),
                              [helper.make_tensor_value_info("y", output_type(node, dtype), None)],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=opset_imports([node]),
                              ir_version=IR_VERSION, producer_name="dml-conformance")
    return model.SerializeToString()


__all__ = ["single_node_model", "with_inputs", "input_names", "input_infos", "feeds", "tensor_type", "output_type", "as_directml", "onnx_node", "opset_imports"]
