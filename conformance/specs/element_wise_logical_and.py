"""ELEMENT_WISE_LOGICAL_AND, and what the three logical pages share (`logical`)."""
from conformance.specs.base import (A_B, ONE_TO_EIGHT, NotReachable, OnnxNode, OperatorSpec, SupportTable,
                                    page)

TABLES = (SupportTable("3_0", ONE_TO_EIGHT, ("uint32", "uint8")),
          SupportTable("2_0", (4,), ("uint32", "uint8")),
          SupportTable("1_0", (4,), ("uint32",)))


def logical_onnx(op_type: str):
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        if dtype != "uint8":
            raise NotReachable(f"ONNX {op_type} takes bool, which ONNX Runtime's DirectML EP holds as UINT8: "
                               f"a {dtype} tensor is not reachable")
        return OnnxNode(op_type, 7, output_type="bool", input_types=("bool", "bool"))
    return to_onnx


def logical(name: str, formula: str, onnx_op: str, truth) -> OperatorSpec:
    struct = f"DML_{name}_OPERATOR_DESC"
    return OperatorSpec(
        name=name,
        struct=struct,
        formula=f"f(a, b) = {formula}: 1 for true, 0 for false, any non-zero value being true",
        summary=f"Logical {onnx_op.upper()} of each pair of corresponding elements of ATensor and BTensor.",
        parameters=(),
        inputs=A_B,
        introduced="1_0",
        tables=TABLES,
        in_place=True,
        constraints="ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes.",
        tolerance_ulp={},
        onnx_route=f"{onnx_op} (opset 7) on bool for UINT8 (the harness feeds a != 0 as bool: ONNX Runtime's "
                   "DirectML EP gives DirectML 0 and 1 only); UINT32 is not reachable",
        to_onnx=logical_onnx(onnx_op),
        source=page(struct),
        notes=("The output has the inputs' data type (UINT32 or UINT8), as the page's tensor constraints say.",
               "Any non-zero value is true (C's truth, the page's formula): 2 AND 255 is 1, so the cases feed "
               "every integer, not only 0 and 1; the result is always 0 or 1.",
               "The page: OutputTensor may alias one of the inputs in place.",
               "Through ONNX Runtime only 0 and 1 reach DirectML (bool); the values other than 0 and 1 are "
               "exercised by dml-direct."),
        integers=lambda params, dtype: lambda a, b: int(truth(a != 0, b != 0)),
    )


SPEC = logical("ELEMENT_WISE_LOGICAL_AND", "a && b", "And", lambda a, b: a and b)
