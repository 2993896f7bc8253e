"""ONNX models for one operator node, with dynamic shapes so one session serves many cases."""
import numpy as np
from onnx import defs, helper, numpy_helper

IR_VERSION = 8  # readable by every ONNX Runtime this harness supports (1.14 on)
MIN_OPSET = 13


def tensor_type(dtype: str) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def chain(node) -> tuple:
    """node and the nodes it feeds in turn (OnnxNode.then)."""
    return (node,) + tuple(node.then)


def onnx_node(node, inputs: list, outputs: list, name: str) -> list:
    """node: specs.base.OnnxNode -> its NodeProtos, each in its own domain: node (named name) reads
    inputs; each node of node.then reads the previous one's output; the last writes outputs."""
    steps, protos, reads = chain(node), [], [inputs[k] for k in node.input_order] if node.input_order else inputs
    for k, step in enumerate(steps):
        writes = outputs if k == len(steps) - 1 else [f"{name}_{k}"]
        protos.append(helper.make_node(step.op_type, reads, writes, name=name if k == 0 else f"{name}_{step.op_type}",
                                       domain=step.domain, **step.attributes))
        reads = writes
    return protos


def opset_imports(nodes) -> list:
    """ONNX itself at the newest opset, 13 or later where possible, at which each node's operator
    version is still current (Dropout-7 needs an opset below 10); an experimental operator that
    ONNX later removed (ScaledTanh, ParametricSoftplus, ...) keeps the opset it lived in, and each
    other domain (ONNX Runtime's contrib operators) is imported at its node's version. Nodes of
    several operators (a chain: Add, then an activation) share the oldest opset at which each is
    still current (the activation's spec chose the Add's opset for that: ELEMENT_WISE_ADD1)."""
    nodes = [step for node in nodes for step in chain(node)]
    imports = {"": min((_current_at(n) for n in nodes if not n.domain), default=MIN_OPSET)}
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
    return tensor_type(chain(node)[-1].output_type or dtype)


def output_names(node, prefix: str = "y") -> list:
    """The graph outputs of a node: prefix, then prefix_1, ... for its further outputs (TopK's Indices)."""
    return [prefix] + [f"{prefix}_{i}" for i in range(1, node.outputs)]


def output_infos(node, dtype: str, prefix: str = "y") -> list:
    """Each graph output's type: the first as output_type says; further ones of any type (TopK's int64)."""
    first, *others = output_names(node, prefix)
    return [helper.make_tensor_value_info(first, output_type(node, dtype), None)] + \
        [helper.make_empty_tensor_value_info(name) for name in others]


def outputs_as_directml(node, values):
    """A run's values of a node's outputs as DirectML's tensors hold them: one array, or a tuple for
    several, each read in its DirectML type where ONNX's differs (OnnxNode.directml_types)."""
    values = [as_directml(v) for v in values]
    if node.outputs == 1 and not node.tuple_outputs:
        return values[0]
    types = node.directml_types or (None,) * len(values)
    return tuple(v if t is None else _read_as(v, t) for v, t in zip(values, types))


def _read_as(value: np.ndarray, dtype: str) -> np.ndarray:
    """value in DirectML's type, where every element is that type's (an index of -1 or beyond UINT32 stays
    as ONNX gave it, and the judge says its type is wrong rather than see it wrapped)."""
    converted = value.astype(dtype)
    return converted if np.array_equal(converted.astype(value.dtype), value) else value


def as_directml(output):
    """A device output as DirectML's tensor holds it: ONNX's bool is DirectML's UINT8 tensor, so its
    bytes are read as uint8 (a device that writes 255 for true shows as 255, not as True)."""
    return output.view(np.uint8) if isinstance(output, np.ndarray) and output.dtype == np.bool_ else output


def node_for(spec, case):
    """The ONNX node of a case: spec.to_onnx for its data type and fields, adapted to its shape where
    the spec says (onnx_for_shape), and for several inputs with the graph input types of the spec's
    inputs as the case types them, unless to_onnx chose them (a bool input where DirectML's tensor is
    UINT8: And, Where's condition). Raises specs.base.NotReachable."""
    node = spec.to_onnx(case.dtype, case.params)
    if spec.onnx_for_shape is not None:
        node = spec.onnx_for_shape(node, tuple(case.shape))
    from dataclasses import replace
    if case.no_input:  # the graph has no input: the node reads its initializers alone (ConstantOfShape)
        return replace(node, reads_no_input=True)
    if not spec.several_inputs or node.input_types:
        return node
    return replace(node, input_types=tuple(spec.tensor_type(i.name, case.dtype, case.params)
                                           for i in spec.input_tensors(case.params)))


def input_names(node, prefix: str = "x") -> list:
    """The graph inputs of a node: prefix, then prefix_1, prefix_2, ... for its further inputs; none where
    it reads no input (an operator of no input tensor)."""
    if node.reads_no_input:
        return []
    return [prefix] + [f"{prefix}_{i}" for i in range(1, len(node.input_types))]


def input_infos(node, dtype: str, prefix: str = "x") -> list:
    types = node.input_types or (dtype,)
    return [helper.make_tensor_value_info(name, tensor_type(t), None)
            for name, t in zip(input_names(node, prefix), types)]


def feeds(node, x, prefix: str = "x") -> dict:
    """The feeds of a node's inputs: x, or a tuple of several inputs (ONNX broadcasts them). An input
    the graph takes as bool gets x != 0: ONNX's truth of a DirectML UINT8 tensor; one the graph takes
    in another integer type gets its values in that type (ReverseSequence's INT64 lengths of a UINT32
    DirectML tensor)."""
    arrays = x if isinstance(x, tuple) else (x,)
    types = node.input_types or (None,) * len(arrays)
    return {name: np.asarray(v) != 0 if t == "bool" else _in_type(v, t)
            for name, v, t in zip(input_names(node, prefix), arrays, types)}


def _in_type(value, dtype):
    value = np.asarray(value)
    if dtype is None or value.dtype == np.dtype(dtype) or value.dtype.kind not in "iu":
        return value
    return value.astype(dtype)


def single_node_model(node, dtype: str) -> bytes:
    """node: specs.base.OnnxNode. Input 'x' of the case's data type (several inputs: x, x_1, ...) and
    output 'y' of node's output type, any shape."""
    initializers = [numpy_helper.from_array(np.asarray(value), f"c{i}")
                    for i, value in enumerate(node.constant_inputs)]
    graph = helper.make_graph(onnx_node(node, input_names(node) + [t.name for t in initializers],
                                        output_names(node), f"{node.op_type}_0"),
                              "conformance",
                              input_infos(node, dtype),
                              output_infos(node, dtype),
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=opset_imports([node]),
                              ir_version=IR_VERSION, producer_name="dml-conformance")
    return model.SerializeToString()


__all__ = ["single_node_model", "node_for", "input_names", "input_infos", "feeds", "tensor_type", "output_type",
           "output_names", "output_infos", "outputs_as_directml", "as_directml", "onnx_node", "opset_imports", "chain"]


def onnx_operands(case, x):
    """x as the case's ONNX node takes it: each input reshaped where its spec's onnx_shapes says
    (DirectML's leading ones dropped: Gather's indices); x itself otherwise."""
    from conformance import specs
    spec = specs.get(case.op)
    if spec.onnx_shapes is None:
        return x
    single = isinstance(x, np.ndarray)  # one input: its array, not a tuple of one
    shaped = tuple(np.reshape(v, s) for v, s in zip((x,) if single else x,
                                                    spec.onnx_shapes(case.input_shapes, case.params)))
    return shaped[0] if single else shaped


def directml_outcome(case, outcome):
    """An outcome of such a node (onnx_shapes) with its output in the case's output shape: the same
    elements in the same order, DirectML's dimensions right-aligned; or, where the spec's from_onnx
    says, its outputs as DirectML lays them out."""
    from conformance import specs
    spec, output = specs.get(case.op), outcome.output
    # laid out otherwise than DirectML's (NonZero); once: a tuple is DirectML's outputs already
    if spec.from_onnx is not None and isinstance(output, np.ndarray):
        outcome.output = spec.from_onnx(output, case.input_shapes, case.params)
    elif isinstance(output, tuple) and len(output) == len(case.outputs):
        # ONNX's scalars (DynamicQuantizeLinear's y_scale) in DirectML's sizes of ones: the same elements
        outcome.output = tuple(o.reshape(s) if isinstance(o, np.ndarray) and o.shape != tuple(s) and
                               o.size == int(np.prod(s, dtype=np.int64)) else o for o, s in zip(output, case.outputs))
    elif spec.onnx_shapes is not None and isinstance(output, np.ndarray) and \
            output.size == int(np.prod(case.outputs[0], dtype=np.int64)):
        outcome.output = output.reshape(case.outputs[0])
    return outcome


__all__ += ["onnx_operands", "directml_outcome"]
