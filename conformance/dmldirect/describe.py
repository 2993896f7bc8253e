"""A case -> its DirectML operator description, every field filled as the page names it.

Pure ctypes: the structs are built (and can be inspected byte by byte) on any
64-bit platform; only the runtime hands them to DirectML.dll. The worker knows no
operator: each case brings its description's layout (conformance/dmldirect/layout.py
derives it from the operator's spec on the harness's side).
"""
import ctypes as C
import re

import numpy as np

from conformance.dmldirect import abi

SENTINEL = 0xFF  # the byte output regions start as (NaN, -1, the maximum): "nothing written" shows

def float_field(value) -> float:
    """A FLOAT field holds a float32: round the value the way the oracle does (numpy, half to even)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def calc_buffer_tensor_size(dtype: str, sizes, strides=None) -> int:
    """DMLCalcBufferTensorSize (DirectML's documented helper): bytes up to the last element, rounded to 4."""
    itemsize = np.dtype(dtype).itemsize
    if any(int(s) == 0 for s in sizes):
        return 0
    if strides is None:
        last = int(np.prod([int(s) for s in sizes], dtype=np.int64)) - 1
    else:
        last = sum((int(s) - 1) * int(st) for s, st in zip(sizes, strides))
    return ((last + 1) * itemsize + 3) & ~3


def broadcast_strides(own_shape, broadcast) -> list:
    """The strides (in elements) of a tensor stored packed in own_shape and read as the output's sizes:
    zero in each broadcast dimension (DirectML has no implicit broadcasting), packed elsewhere."""
    strides, step = [0] * len(own_shape), 1
    for d in reversed(range(len(own_shape))):
        strides[d] = 0 if d in broadcast else step
        step *= int(own_shape[d])
    return strides


class TensorDesc:
    """A DML_BUFFER_TENSOR_DESC and the DML_TENSOR_DESC that points at it (memory kept alive here).
    strides: None for a packed tensor, else each dimension's stride in elements (zero: broadcast)."""

    def __init__(self, dtype: str, shape, strides=None):
        self.dtype, self.shape = dtype, tuple(int(s) for s in shape)
        self.sizes = (C.c_uint * max(len(self.shape), 1))(*self.shape)
        self.strides = None if strides is None else (C.c_uint * max(len(self.shape), 1))(*map(int, strides))
        self.total_bytes = calc_buffer_tensor_size(dtype, self.shape, strides)
        self.buffer = abi.DML_BUFFER_TENSOR_DESC(
            DataType=abi.DATA_TYPES[dtype], Flags=abi.DML_TENSOR_FLAG_NONE, DimensionCount=len(self.shape),
            Sizes=C.cast(self.sizes, C.POINTER(C.c_uint)),
            Strides=None if self.strides is None else C.cast(self.strides, C.POINTER(C.c_uint)),
            TotalTensorSizeInBytes=self.total_bytes, GuaranteedBaseOffsetAlignment=0)
        self.desc = abi.DML_TENSOR_DESC(Type=abi.DML_TENSOR_TYPE_BUFFER, Desc=C.addressof(self.buffer))

    @property
    def address(self) -> int:
        return C.addressof(self.desc)


def scalar_bytes(value, dtype: str) -> bytes:
    """A DML_SCALAR_UNION holding value as its data type's member (little-endian, as x64 stores
    it; FLOAT16, which has no member of its own, in the first two of Bytes): a float rounded half
    to even, an integer exactly."""
    target = np.dtype(dtype)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            raw = np.array(value, dtype=np.float64).astype(target).tobytes()
    else:
        info = np.iinfo(target)
        whole = isinstance(value, int) or float(value).is_integer()
        if not whole or not info.min <= int(value) <= info.max:
            raise ValueError(f"scalar {value!r} is not a {dtype} value")
        raw = np.array(int(value), dtype=target).tobytes()
    return raw.ljust(8, b"\0")



def _slots(names, kinds, count) -> list:
    """Each binding slot of these tensor fields, in order: True for a bound tensor (a tensor array's
    tensors, the count left by the plain ones), False for one left NULL."""
    spare = count - sum(kinds[n] == "tensor" for n in names)
    slots = []
    for name in names:
        slots += [True] * spare if kinds[name] == "tensor_array" else [kinds[name] == "tensor"]
    return slots

class OperatorDescription:
    """DML_OPERATOR_DESC -> DML_<OP>_OPERATOR_DESC -> tensors (and DML_SCALE_BIAS where the page has it).

    desc: {"type": "DML_OPERATOR_<OP>", "struct": "DML_<OP>_OPERATOR_DESC", "fields": [[name, kind],
    ...]}: every field in the header's order, each of a kind of abi.DESC_FIELD_KINDS: the input tensors
    (InputTensor; ATensor, BTensor; ...) and OutputTensor of kind "tensor", wherever the struct puts
    them, and the operator's own fields. inputs: per input tensor {"dtype", "shape" (its own),
    "broadcast" (dimensions read with stride 0)}; None: each of the case's type and shape. params holds
    every field that is no tensor as the harness sends it (conformance/dmldirect/layout.py): "float" a
    number, "scale_bias" None or {"Scale", "Bias"}, "uint"/"int"/"enum"/"count" an integer, "data_type"
    a data type name, "scalar" {"type", "value"}, an array kind a list (a pointer to its elements;
    NULL where it is empty). output_shape: the output's sizes where they are not shape's. outputs: an
    operator of several outputs (TOP_K: OutputValueTensor, OutputIndexTensor), each {"name", "dtype",
    "shape"} in the page's order; None: one, the tensor field named Output... (OutputTensor;
    SLICE_GRAD's OutputGradientTensor: DirectML names every output tensor so, and no input).
    """

    def __init__(self, desc: dict, dtype: str, shape, params: dict, output_dtype: str | None = None, inputs=None,
                 output_strides=None, output_shape=None, outputs=None, input_strides=None):
        fields = [(str(name), str(kind)) for name, kind in desc["fields"]]
        kinds = dict(fields)
        tensors = [name for name, kind in fields if kind in ("tensor", "tensor_array")]
        declared = desc.get("outputs")  # the output tensors' names; absent: the fields named Output...
        is_output = (lambda name: name in declared) if declared else (lambda name: name.startswith("Output"))
        output_names = [o["name"] for o in outputs] if outputs else [
            next((name for name in tensors if is_output(name)), "OutputTensor")]
        # A tensor array's k-th tensor (OutputTensors[1]) is its field's (OutputTensors)
        output_fields = list(dict.fromkeys(re.sub(r"\[\d+\]$", "", name) for name in output_names))
        input_fields = [name for name in tensors if name not in output_fields]
        if not set(output_fields) <= set(tensors):  # no input field: an operator of no input (FILL_VALUE_*)
            raise ValueError(f"{desc['struct']}: the fields must name the input tensors and "
                             f"{', '.join(output_names)}: {fields}")
        self.operator_type = abi.ENUMS[desc["type"]]
        self.dtype, self.output_dtype = dtype, output_dtype or dtype
        self.shape, self.params = tuple(int(s) for s in shape), dict(params)
        self.fields_declared = fields
        self.own_fields = [(name, kind) for name, kind in fields if kind not in ("tensor", "tensor_array", "absent_tensor")]
        names = {name for name, _ in self.own_fields}
        unknown, missing = set(self.params) - names, names - set(self.params)
        if unknown or missing:
            raise KeyError(f"{desc['struct']}: " + "; ".join(
                text for text in (unknown and f"no field(s) {', '.join(sorted(unknown))}",
                                  missing and f"no value for {', '.join(sorted(missing))}") if text))
        struct = abi.description_struct(desc["struct"], fields)
        given = inputs or [{"dtype": dtype, "shape": self.shape, "broadcast": []}] * len(input_fields)
        plain = sum(kinds[name] == "tensor" for name in input_fields)
        if len(given) != len(input_fields) if plain == len(input_fields) else len(given) <= plain:
            raise ValueError(f"{desc['struct']}: {len(input_fields)} input tensor fields, {len(given)} described")
        # Each input its own sizes (GATHER's indices); a broadcast one the case's (or those the case names for it:
        # GEMM's C), with zero strides
        self.inputs = [TensorDesc(i["dtype"], i.get("sizes") or self.shape,
                                  broadcast_strides(i["shape"], set(i["broadcast"])))
                       if i["broadcast"] else TensorDesc(i["dtype"], i["shape"]) for i in given]
        # The shape of each input array that travels
        self.input_shapes = [tuple(int(n) for n in i["shape"]) for i in given]
        if input_strides:  # one input read through strides of its own: its packed storage travels
            self.inputs[0] = TensorDesc(given[0]["dtype"], given[0]["shape"], input_strides)
            sizes = [int(n) for n in given[0]["shape"]]
            self.input_shapes[0] = (0 if 0 in sizes else 1 + sum((n - 1) * int(s) for n, s in zip(sizes, input_strides)),)
        self.input = self.inputs[0] if self.inputs else None
        self.output = TensorDesc(self.output_dtype, self.shape if output_shape is None else output_shape,
                                 output_strides or None)
        # Each output its own type and sizes (the first as output_dtype and output_shape say)
        self.outputs = [self.output] + [TensorDesc(o["dtype"], o["shape"]) for o in (outputs or [])[1:]]
        self.tensor_arrays = {}  # tensor array fields: name -> the DML_TENSOR_DESCs its pointer points at
        values = {**self._point(input_fields, kinds, self.inputs), **self._point(output_fields, kinds, self.outputs)}
        # Every tensor slot in the struct's order, False where a case leaves an optional one NULL: DirectML
        # takes a binding per slot, DML_BINDING_TYPE_NONE for a NULL one (an output's name starts with Output)
        slots = [name for name, kind in fields if kind in ("tensor", "tensor_array", "absent_tensor")]
        outputs_all = [n for n in slots if n in output_fields or kinds[n] == "absent_tensor" and is_output(n)]
        self.input_slots = _slots([n for n in slots if n not in outputs_all], kinds, len(self.inputs))
        self.output_slots = _slots(outputs_all, kinds, len(self.outputs))
        self.scale_bias = None
        self.scalars = {}  # scalar fields: name -> (data type, union)
        self.arrays = {}  # array fields: name -> the ctypes array its pointer points at
        self.fused = None  # a fused activation: (its type name, its struct, its DML_OPERATOR_DESC)
        values.update(self._values(self.own_fields, self.params))
        self.struct = struct(**values)
        self.desc = abi.DML_OPERATOR_DESC(Type=self.operator_type, Desc=C.addressof(self.struct))

    def _point(self, names, kinds, tensors) -> dict:
        """Each tensor field's pointer, in order: a "tensor" its own DML_TENSOR_DESC; a "tensor_array"
        (JOIN's InputTensors) the first of the DML_TENSOR_DESCs of the tensors the others leave, one
        after another (DirectML binds each of them as one input or output, in this order)."""
        spare = len(tensors) - sum(kinds[name] == "tensor" for name in names)
        values, k = {}, 0
        for name in names:
            if kinds[name] == "tensor":
                values[name], k = tensors[k].address, k + 1
                continue
            run, k = tensors[k:k + spare], k + spare
            self.tensor_arrays[name] = (abi.DML_TENSOR_DESC * len(run))(*(t.desc for t in run))
            values[name] = C.addressof(self.tensor_arrays[name]) if run else None
        return values

    def _values(self, fields, params) -> dict:
        """The struct values of the fields after the tensors (the memory they point at kept here)."""
        values = {}
        for name, kind in fields:
            value = params[name]
            if kind == "scale_bias":
                if value is not None:  # _Maybenull_: None is no scale and bias
                    self.scale_bias = abi.DML_SCALE_BIAS(Scale=float_field(value.get("Scale", 1.0)),
                                                         Bias=float_field(value.get("Bias", 0.0)))
                values[name] = None if value is None else C.addressof(self.scale_bias)
            elif kind == "fused_activation":  # _Maybenull_: None is no activation
                values[name] = None if value is None else self._fused(value)
            elif kind == "float":
                values[name] = float_field(value)
            elif kind == "data_type":
                values[name] = abi.DATA_TYPES[value]
            elif kind == "size_2d":  # a DML_SIZE_2D by value, [Width, Height]
                values[name] = abi.DML_SIZE_2D(*(int(v) for v in value))
            elif kind in abi.ARRAY_ELEMENTS:  # _Field_size_(count): the elements, NULL where there are none
                self.arrays[name] = (getattr(C, abi.ARRAY_ELEMENTS[kind]) * len(value))(*value)
                values[name] = C.addressof(self.arrays[name]) if value else None
            elif kind == "scalar":
                union = abi.DML_SCALAR_UNION()
                union.Bytes[:] = scalar_bytes(value["value"], value["type"])
                self.scalars[name] = (value["type"], union)
                values[name] = union
            else:  # uint, int, enum, count: the integer itself
                values[name] = int(value)
        return values

    def _fused(self, wire) -> int:
        """A fused activation's DML_OPERATOR_DESC (wire: {"desc", "params"} as layout.py sends it); its
        InputTensor and OutputTensor stay NULL, as DirectML's fused-activation rules require."""
        desc = wire["desc"]
        fields = [(str(name), str(kind)) for name, kind in desc["fields"]]
        own = [(name, kind) for name, kind in fields if kind != "tensor"]
        struct = abi.description_struct(desc["struct"], fields)(**self._values(own, wire["params"]))
        self.fused = (desc["type"], struct, abi.DML_OPERATOR_DESC(Type=abi.ENUMS[desc["type"]],
                                                                  Desc=C.addressof(struct)))
        return C.addressof(self.fused[2])

    @property
    def address(self) -> int:
        return C.addressof(self.desc)

    def _value(self, name, kind):
        """A field's value as the device receives it (scalars as their typed member's value)."""
        if kind == "scale_bias":
            return None if self.scale_bias is None else {"Scale": self.scale_bias.Scale,
                                                         "Bias": self.scale_bias.Bias}
        if kind in abi.ARRAY_ELEMENTS:
            return list(self.arrays[name])
        if kind == "size_2d":
            member = getattr(self.struct, name)
            return [member.Width, member.Height]
        if kind == "scalar":
            dtype, union = self.scalars[name]
            return np.frombuffer(bytes(union.Bytes), dtype=dtype, count=1)[0].item()
        if kind == "fused_activation":
            if self.fused is None:
                return None
            type_name, struct, _ = self.fused  # the tensors read None: NULL pointers
            return {"Type": type_name, **{field: getattr(struct, field) for field, _ in struct._fields_}}
        return getattr(self.struct, name)

    @property
    def key(self) -> tuple:
        """Identical descriptions compile to the same operator (the cache key)."""
        values = tuple((name, repr(self._value(name, kind))) for name, kind in self.own_fields)
        strides = tuple(None if t.strides is None else tuple(t.strides) for t in self.inputs + [self.output])
        tensors = tuple((t.dtype, t.shape) for t in self.inputs + self.outputs)  # each of its own type and sizes
        # which optional tensors are NULL: ScaleTensor bound and BiasTensor NULL is another operator than the reverse
        slots = (tuple(self.input_slots), tuple(self.output_slots))
        return (self.operator_type, self.dtype, self.output_dtype, self.shape, self.output.shape, strides, values,
                tensors, slots)

    def fields(self) -> dict:
        """The description as the device receives it, for records and tests."""
        first = self.input or self.output  # no input (FILL_VALUE_*): the output's
        out = {"Type": self.operator_type, "struct": type(self.struct).__name__,
               "DataType": first.buffer.DataType, "OutputDataType": self.output.buffer.DataType,
               "DimensionCount": first.buffer.DimensionCount, "Sizes": list(self.shape),
               "TotalTensorSizeInBytes": first.total_bytes}
        if self.output.strides is not None:
            out["OutputStrides"] = list(self.output.strides)
            out["OutputTotalTensorSizeInBytes"] = self.output.total_bytes
        if len(self.outputs) > 1:
            out["Outputs"] = [{"DataType": t.buffer.DataType, "Sizes": list(t.shape),
                               "TotalTensorSizeInBytes": t.total_bytes} for t in self.outputs]
        if len(self.inputs) > 1:
            out["Inputs"] = [{"DataType": t.buffer.DataType, "Strides": None if t.strides is None else list(t.strides),
                              "TotalTensorSizeInBytes": t.total_bytes} for t in self.inputs]
        for name, kind in self.own_fields:
            out[name] = self._value(name, kind)
        return out

    @classmethod
    def from_case(cls, case: dict) -> "OperatorDescription":
        """A case as the worker receives it: desc, dtype, output_dtype, shape, params."""
        return cls(case["desc"], case["dtype"], case["shape"], case["params"], case.get("output_dtype"),
                   case.get("inputs") or None, case.get("output_strides"), case.get("output_shape"),
                   case.get("outputs"), case.get("input_strides"))


def read_output(raw: bytes, dtype: str, shape, strides=None) -> tuple:
    """The output tensor from its buffer region as the device left it -> (the array, the byte offsets
    in the region written that no element owns). Packed (strides None): the elements in order. With
    strides, each element is read where its strides put it, and every other byte of the region (the
    gaps the strides leave, the tail up to TotalTensorSizeInBytes) must still hold SENTINEL."""
    shape = tuple(int(n) for n in shape)
    itemsize, count = np.dtype(dtype).itemsize, int(np.prod(shape, dtype=np.int64))
    if strides is None:
        return np.frombuffer(raw, dtype=dtype, count=count).reshape(shape), np.zeros(0, dtype=np.int64)
    offsets = np.zeros(shape, dtype=np.int64)
    for d, (size, stride) in enumerate(zip(shape, strides)):
        offsets += np.arange(size, dtype=np.int64).reshape([-1 if k == d else 1 for k in range(len(shape))]) * stride
    data = np.frombuffer(raw, dtype=np.uint8)
    owned = np.zeros(data.size, dtype=bool)
    element_bytes = (offsets.reshape(-1, 1) * itemsize + np.arange(itemsize)).reshape(-1)
    owned[element_bytes] = True
    y = data[element_bytes].view(dtype).reshape(shape) if count else np.zeros(shape, dtype=dtype)
    return y, np.flatnonzero(~owned & (data != SENTINEL))
