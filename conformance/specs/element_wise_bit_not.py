from conformance.specs.base import (INTEGERS_64, ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, NotReachable, OnnxNode,
                                    OperatorSpec, SupportTable, page, wrap)

STRUCT = "DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC"
UNSIGNED_32 = ("uint32", "uint16", "uint8")
ALL_TYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint64") + UNSIGNED_32


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if dtype.startswith("float"):
        raise NotReachable(f"ONNX's BitwiseNot takes integer tensors only, not {dtype}")
    return OnnxNode("BitwiseNot", 18)


def integers(params: dict, dtype: str):
    """~x in the type's width."""
    return lambda x: wrap(~x, dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_BIT_NOT",
    struct=STRUCT,
    formula="f(x) = ~x, every bit of the element's native encoding inverted",
    summary="Bitwise NOT of every element.",
    parameters=(),
    introduced="3_0",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ALL_TYPES),
            SupportTable("3_0", ONE_TO_EIGHT, UNSIGNED_32)),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},
    onnx_route="BitwiseNot (opset 18) for integer types; float types are not reachable",
    to_onnx=to_onnx,
    source=page(STRUCT),
    notes=("The page: the bitwise operation applies to the data in its native encoding; the data type only "
           "gives each element's width. NOT of FLOAT32 1.0 (0x3F800000) is 0xC07FFFFF (-3.9999998).",
           "Float results that are NaN are compared as NaN: their payload bits are not checked.",
           "The float cases forbid flushing: a bitwise operator must not treat a subnormal as zero.",
           f"64-bit types ({', '.join(INTEGERS_64)}, float64) need feature level 4_1."),
    integers=integers,
)
