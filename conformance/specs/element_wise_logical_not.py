from conformance.specs.base import (ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, OperatorSpec, SupportTable, no_onnx,
                                    page)

STRUCT = "DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC"


def integers(params: dict, dtype: str):
    """1 where x is 0, else 0."""
    return lambda x: int(x == 0)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_LOGICAL_NOT",
    struct=STRUCT,
    formula="f(x) = !x: 1 where x == 0, 0 elsewhere",
    summary="Logical NOT of every element, in the input's own integer type.",
    parameters=(),
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, ("uint32", "uint8")),
            SupportTable("2_0", (4,), ("uint32", "uint8")),
            SupportTable("1_0", (4,), ("uint32",))),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={},
    onnx_route="not reachable: ONNX Not takes and gives bool only",
    to_onnx=no_onnx("ONNX Not is defined on bool tensors only: a UINT8 or UINT32 tensor holding values "
                    "other than 0 and 1 has no ONNX equivalent"),
    source=page(STRUCT),
    notes=("The output has the input's data type (UINT32 or UINT8), as the page's tensor constraints say.",
           "Any non-zero value is true: !2 and !255 are 0, so the cases feed every integer, not only 0 and 1.",
           "ONNX Runtime's DirectML EP uses this operator for Not on bool (as UINT8), with inputs 0 and 1 only."),
    integers=integers,
)
