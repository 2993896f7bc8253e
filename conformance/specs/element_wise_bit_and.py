"""ELEMENT_WISE_BIT_AND, and what the three bitwise pages of two inputs share (`bitwise`)."""
from conformance.specs.base import (A_B, ONE_TO_EIGHT, NotReachable, OnnxNode, OperatorSpec, SupportTable, page,
                                    wrap)
from conformance.specs.element_wise_bit_not import ALL_TYPES, UNSIGNED_32

TABLES = (SupportTable("4_1", ONE_TO_EIGHT, ALL_TYPES), SupportTable("3_0", ONE_TO_EIGHT, UNSIGNED_32))


def bitwise_onnx(op_type: str):
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        if dtype.startswith("float"):
            raise NotReachable(f"ONNX's {op_type} takes integer tensors only, not {dtype}")
        return OnnxNode(op_type, 18)
    return to_onnx


def bitwise(name: str, symbol: str, onnx_op: str, on_ints) -> OperatorSpec:
    struct = f"DML_{name}_OPERATOR_DESC"
    return OperatorSpec(
        name=name,
        struct=struct,
        formula=f"f(a, b) = a {symbol} b, on each element's native encoding",
        summary=f"Bitwise {onnx_op.removeprefix('Bitwise').upper()} of each pair of corresponding elements.",
        parameters=(),
        inputs=A_B,
        introduced="3_0",
        tables=TABLES,
        in_place=True,
        constraints="ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes.",
        tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},
        onnx_route=f"{onnx_op} (opset 18) for integer types; float types are not reachable",
        to_onnx=bitwise_onnx(onnx_op),
        source=page(struct),
        notes=("The page: the bitwise operation applies to the data in its native encoding; the data type only "
               "gives each element's width (FLOAT32 1.0 AND -2.0 is 0x3F800000 & 0xC0000000 = 2.0).",
               "Float results that are NaN are compared as NaN: their payload bits are not checked.",
               "The float cases forbid flushing: a bitwise operator must not treat a subnormal as zero.",
               "The page: OutputTensor may alias one or more of the inputs in place."),
        integers=lambda params, dtype: lambda a, b: wrap(on_ints(a, b), dtype),
    )


SPEC = bitwise("ELEMENT_WISE_BIT_AND", "&", "BitwiseAnd", lambda a, b: a & b)
