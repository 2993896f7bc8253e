from conformance.specs.base import (A_B, ADD_HISTORY, SAME_TYPES_A_B, OperatorSpec, arithmetic_specials, one_node,
                                    page, wrap)
from conformance.specs.primitives import A, B

SPEC = OperatorSpec(
    name="ELEMENT_WISE_SUBTRACT",
    struct="DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC",
    formula="f(a, b) = a - b",
    summary="Subtracts every element in BTensor from its corresponding element in ATensor.",
    parameters=(),
    inputs=A_B,
    introduced="1_0",
    tables=ADD_HISTORY,
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 0, "float16": 0},  # WebNN: sub 0 / 0
    onnx_route="Sub (opset 14: every type of the page)",
    to_onnx=one_node("Sub", 14),
    d3d=lambda p: A - B,
    special_values=arithmetic_specials,
    source=page("DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC"),
    notes=("Integer overflow (the page is silent): two's complement wrap.",
           "Tables: 5_1 all ten types, 4_1 adds INT64/UINT64 to 3_0's FLOAT32, FLOAT16, INT32, UINT32 "
           "(1 to 8 dimensions); 2_1 and 1_0 as ELEMENT_WISE_ADD's page (4 to 5 dimensions).",
           "The page: OutputTensor may alias one of the inputs in place."),
    integers=lambda params, dtype: lambda a, b: wrap(a - b, dtype),
)
