"""ELEMENT_WISE_BIT_SHIFT_LEFT, and what the two shift pages share (`shift`)."""
import numpy as np

from conformance.specs.base import A_B, ONE_TO_EIGHT, OnnxNode, OperatorSpec, SupportTable, page

UNSIGNED_32 = ("uint32", "uint16", "uint8")
TABLES = (SupportTable("4_1", ONE_TO_EIGHT, ("uint64",) + UNSIGNED_32),
          SupportTable("3_0", ONE_TO_EIGHT, UNSIGNED_32),
          SupportTable("2_1", (4,), UNSIGNED_32))


def shifted(a: int, b: int, dtype: str, left: bool) -> int:
    """A logical shift in the type's width; by the width or more no bit is left (the harness's choice)."""
    bits = np.iinfo(dtype).bits
    if b >= bits:
        return 0
    return ((a << b) & ((1 << bits) - 1)) if left else a >> b


def shift(name: str, symbol: str, direction: str) -> OperatorSpec:
    struct = f"DML_{name}_OPERATOR_DESC"
    left = direction == "LEFT"
    return OperatorSpec(
        name=name,
        struct=struct,
        formula=f"f(a, b) = a {symbol} b, a logical shift in the element's width",
        summary=f"Logical {direction.lower()} shift of each element of ATensor by the number of bits in the "
                "corresponding element of BTensor.",
        parameters=(),
        inputs=A_B,
        introduced="2_1",
        tables=TABLES,
        in_place=True,
        constraints="ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes.",
        tolerance_ulp={},
        onnx_route=f"BitShift (opset 11, direction {direction}): every type of the page",
        to_onnx=lambda dtype, params: OnnxNode("BitShift", 11, attributes={"direction": direction}),
        source=page(struct),
        notes=("The page has unsigned types only, so no shift amount is negative and no shift is arithmetic.",
               "Shift amounts of the element's width or more: the page is silent. The harness holds the "
               "logical shift's meaning, no bit left (0), which ONNX Runtime's CPU BitShift also gives; HLSL's "
               "<< and >> use the amount's low 5 bits (a UINT32 shifted by 32 would stay itself). Those cases are in their own groups (label beyond-width) so that a "
               "device's choice shows apart from its correctness within the width.",
               "The page: OutputTensor may alias one of the inputs in place."),
        integers=lambda params, dtype: lambda a, b: shifted(a, b, dtype, left),
    )


SPEC = shift("ELEMENT_WISE_BIT_SHIFT_LEFT", "<<", "LEFT")
