"""A few hand-encoded ONNX models, for checks where the onnx package is absent (Windows Python).

Just enough protobuf to write a ModelProto: varints and length-delimited fields.
The harness itself builds its models with onnx.helper; tests check that ONNX
Runtime reads these the same way.
"""
import numpy as np

FLOAT, FLOAT16 = 1, 10
_ELEM = {"float32": FLOAT, "float16": FLOAT16}


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, value) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    if isinstance(value, str):
        value = value.encode("utf-8")
    return _varint(number << 3 | 2) + _varint(len(value)) + bytes(value)


def _tensor(name: str, array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array)
    return (b"".join(_field(1, int(d)) for d in array.shape) + _field(2, _ELEM[array.dtype.name])
            + _field(8, name) + _field(9, array.tobytes()))


def _value_info(name: str, dtype: str) -> bytes:
    tensor_type = _field(1, _ELEM[dtype])  # no shape: any rank, any size
    return _field(1, name) + _field(2, _field(1, tensor_type))


def model(nodes, inputs, outputs, initializers=(), opset=15, ir_version=8) -> bytes:
    """nodes: (op_type, [input names], [output names], name); inputs/outputs: (name, dtype);
    initializers: (name, numpy array)."""
    graph = b"".join(_field(1, b"".join([_field(1, i) for i in ins] + [_field(2, o) for o in outs]
                                        + [_field(3, name), _field(4, op)]))
                     for op, ins, outs, name in nodes)
    graph += _field(2, "selfcheck")
    graph += b"".join(_field(5, _tensor(name, array)) for name, array in initializers)
    graph += b"".join(_field(11, _value_info(name, dtype)) for name, dtype in inputs)
    graph += b"".join(_field(12, _value_info(name, dtype)) for name, dtype in outputs)
    opset_id = _field(1, "") + _field(2, opset)
    return _field(1, ir_version) + _field(2, "dml-conformance") + _field(7, graph) + _field(8, opset_id)


def selfcheck_model() -> bytes:
    """Two nodes: Clip(x0, -1, 1) in float32 and Pow(x1, 2) with a float16 base."""
    return model(
        nodes=[("Clip", ["x0", "lo", "hi"], ["y0"], "Clip_0"), ("Pow", ["x1", "e"], ["y1"], "Pow_1")],
        inputs=[("x0", "float32"), ("x1", "float16")],
        outputs=[("y0", "float32"), ("y1", "float16")],
        initializers=[("lo", np.array(-1.0, np.float32)), ("hi", np.array(1.0, np.float32)),
                      ("e", np.array(2.0, np.float32))])


SELFCHECK_FEEDS = {"x0": np.array([-3.0, -0.5, 0.25, 2.5, 7.0], np.float32),
                   "x1": np.array([1.5, -3.0, 0.5, 2.0, 0.0], np.float16)}
SELFCHECK_EXPECTED = {"y0": np.array([-1.0, -0.5, 0.25, 1.0, 1.0], np.float32),
                      "y1": np.array([2.25, 9.0, 0.25, 4.0, 0.0], np.float16)}

__all__ = ["model", "selfcheck_model", "SELFCHECK_FEEDS", "SELFCHECK_EXPECTED"]
