"""A case -> its DirectML operator description, every field filled as the page names it.

Pure ctypes: the structs are built (and can be inspected byte by byte) on any
64-bit platform; only the runtime hands them to DirectML.dll.
"""
import ctypes as C

import numpy as np

from conformance.dmldirect import abi

FLOAT_FIELDS = {"Alpha", "Gamma", "Min", "Max", "Exponent"}


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


class TensorDesc:
    """A DML_BUFFER_TENSOR_DESC and the DML_TENSOR_DESC that points at it (memory kept alive here)."""

    def __init__(self, dtype: str, shape):
        self.dtype, self.shape = dtype, tuple(int(s) for s in shape)
        self.sizes = (C.c_uint * max(len(self.shape), 1))(*self.shape)
        self.total_bytes = calc_buffer_tensor_size(dtype, self.shape)
        self.buffer = abi.DML_BUFFER_TENSOR_DESC(
            DataType=abi.DATA_TYPES[dtype], Flags=abi.DML_TENSOR_FLAG_NONE, DimensionCount=len(self.shape),
            Sizes=C.cast(self.sizes, C.POINTER(C.c_uint)), Strides=None, TotalTensorSizeInBytes=self.total_bytes,
            GuaranteedBaseOffsetAlignment=0)
        self.desc = abi.DML_TENSOR_DESC(Type=abi.DML_TENSOR_TYPE_BUFFER, Desc=C.addressof(self.buffer))

    @property
    def address(self) -> int:
        return C.addressof(self.desc)


class OperatorDescription:
    """DML_OPERATOR_DESC -> DML_<OP>_OPERATOR_DESC -> tensors (and DML_SCALE_BIAS where the page has it).

    params use the page's field names; ScaleBias is None or {"Scale": s, "Bias": b}.
    """

    def __init__(self, op: str, dtype: str, shape, params: dict):
        if op not in abi.OPERATORS:
            raise KeyError(f"dml-direct has no description for {op!r}")
        self.op, self.dtype, self.shape, self.params = op, dtype, tuple(int(s) for s in shape), dict(params)
        self.operator_type, struct_name, float_names = abi.OPERATORS[op]
        struct = getattr(abi, struct_name)
        self.input = TensorDesc(dtype, self.shape)
        self.output = TensorDesc(dtype, self.shape)
        fields = {"InputTensor": self.input.address, "OutputTensor": self.output.address}
        self.scale_bias = None
        if "ScaleBias" in dict(struct._fields_):
            scale_bias = self.params.get("ScaleBias")
            if scale_bias is not None:
                self.scale_bias = abi.DML_SCALE_BIAS(Scale=float_field(scale_bias.get("Scale", 1.0)),
                                                     Bias=float_field(scale_bias.get("Bias", 0.0)))
                fields["ScaleBias"] = C.addressof(self.scale_bias)
            else:
                fields["ScaleBias"] = None  # _Maybenull_: no scale and bias
        for name in float_names:
            fields[name] = float_field(self.params[name])
        unknown = set(self.params) - set(float_names) - ({"ScaleBias"} if "ScaleBias" in fields else set())
        if unknown:
            raise KeyError(f"{op} has no field(s) {', '.join(sorted(unknown))}")
        self.struct = struct(**fields)
        self.desc = abi.DML_OPERATOR_DESC(Type=self.operator_type, Desc=C.addressof(self.struct))

    @property
    def address(self) -> int:
        return C.addressof(self.desc)

    @property
    def key(self) -> tuple:
        """Identical descriptions compile to the same operator (the cache key)."""
        scale_bias = None if self.scale_bias is None else (self.scale_bias.Scale, self.scale_bias.Bias)
        floats = tuple((n, getattr(self.struct, n)) for n in abi.OPERATORS[self.op][2])
        return (self.op, self.dtype, self.shape, floats, scale_bias)

    def fields(self) -> dict:
        """The description as the device receives it, for records and tests."""
        out = {"Type": self.operator_type, "struct": type(self.struct).__name__,
               "DataType": self.input.buffer.DataType, "DimensionCount": self.input.buffer.DimensionCount,
               "Sizes": list(self.shape), "TotalTensorSizeInBytes": self.input.total_bytes}
        for name in abi.OPERATORS[self.op][2]:
            out[name] = getattr(self.struct, name)
        if self.scale_bias is not None:
            out["ScaleBias"] = {"Scale": self.scale_bias.Scale, "Bias": self.scale_bias.Bias}
        elif hasattr(self.struct, "ScaleBias"):
            out["ScaleBias"] = None
        return out
