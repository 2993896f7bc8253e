"""ELEMENT_WISE_LOGICAL_EQUALS, and what the six comparison pages share (`comparison`)."""
import numpy as np

from conformance.specs.base import (A_B, FLOATS, ONE_TO_EIGHT, OperatorSpec, SupportTable, around, neighbours,
                                    one_node, page)
from conformance.specs.primitives import A, B, eq, select

INTEGERS_8_TO_32 = ("int32", "int16", "int8", "uint32", "uint16", "uint8")
EVERY_TYPE = FLOATS + ("int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
# The pages' tables as the harness exercises them: OutputTensor UINT8 (ONNX Runtime's bool on DirectML).
# The 1_0 table (4-D FLOAT32/16 into UINT32 only) has no UINT8 output, so 4-D floats need 2_0 here.
TABLES_FROM_1_0 = (SupportTable("4_1", ONE_TO_EIGHT, EVERY_TYPE),
                   SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_8_TO_32),
                   SupportTable("2_1", (4,), FLOATS + INTEGERS_8_TO_32),
                   SupportTable("2_0", (4,), FLOATS))
TABLES_FROM_3_0 = (SupportTable("4_1", ONE_TO_EIGHT, EVERY_TYPE),
                   SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_8_TO_32))
CONSTRAINTS = ("ATensor, BTensor, and OutputTensor must have the same DimensionCount and Sizes. "
               "ATensor and BTensor must have the same DataType. OutputTensor is UINT32 or UINT8.")


def uint8(dtype: str) -> str:
    """The output type the harness asks for: UINT8 (the page allows UINT32 or UINT8)."""
    return "uint8"


def comparison_specials(dtype: str, params: dict) -> list:
    """Values one ULP apart (a comparison must be exact), and for 32- and 64-bit integers the
    neighbours of 2^24 and 2^53, which a comparison through float32 or float64 would confuse."""
    if np.dtype(dtype).kind == "f":
        return neighbours([1.0, -1.0], dtype)
    bits = np.iinfo(dtype).bits
    edges = [1 << 24] + ([1 << 53] if bits == 64 else []) if bits >= 32 else []
    return [v for edge in edges for v in around(edge, dtype)] + [v for edge in edges for v in around(-edge, dtype)]


def comparison(name: str, symbol: str, cond, onnx_op: str, opset: int, introduced: str, tables: tuple,
               extra_notes: tuple = ()) -> OperatorSpec:
    struct = f"DML_{name}_OPERATOR_DESC"
    return OperatorSpec(
        name=name,
        struct=struct,
        formula=f"f(a, b) = (a {symbol} b): 1 for true, 0 for false",
        summary=f"Compares each pair of corresponding elements of ATensor and BTensor (a {symbol} b), "
                "writing 1 for true and 0 for false into OutputTensor.",
        parameters=(),
        inputs=A_B,
        introduced=introduced,
        tables=tables,
        in_place=False,
        constraints=CONSTRAINTS,
        tolerance_ulp={"float32": 0, "float16": 0},
        onnx_route=f"{onnx_op} (opset {opset}: every type of the page); its bool output is DirectML's UINT8 tensor",
        to_onnx=one_node(onnx_op, opset, output_type="bool"),
        d3d=lambda p: select(cond(A, B), 1.0, 0.0),
        special_values=comparison_specials,
        output_dtype=uint8,
        source=page(struct),
        notes=("OutputTensor may be UINT32 or UINT8; the harness asks for UINT8 (ONNX Runtime's bool on "
               "DirectML), so the 1_0 table, whose output is UINT32 only, is exercised from 2_0.",
               "The page does not allow in-place execution (nor could FLOAT inputs alias a UINT8 output).",
               "The page is silent on NaN and signed zeros; the harness holds IEEE 754 (and Direct3D's) "
               "ordered comparisons: any comparison with NaN is false, -0 == +0, -inf < every finite value "
               "< +inf. Float32 subnormal inputs may be flushed to zero (Direct3D), so 1e-45 > 0 may be false.",
               "Integer comparisons are exact, signed or unsigned by the type: INT64 2^53 + 1 > 2^53, "
               "UINT32 4294967295 > 1.") + extra_notes,
        integers=lambda params, dtype: lambda a, b: int(cond_on_ints(symbol, a, b)),
    )


def cond_on_ints(symbol: str, a: int, b: int) -> bool:
    return {"==": a == b, ">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[symbol]


SPEC = comparison("ELEMENT_WISE_LOGICAL_EQUALS", "==", eq, "Equal", 13, "1_0", TABLES_FROM_1_0)
