from conformance.specs.base import (A_B, ADD_HISTORY, SAME_TYPES_A_B, OperatorSpec, arithmetic_specials, one_node,
                                    page, wrap)
from conformance.specs.primitives import A, B

SPEC = OperatorSpec(
    name="ELEMENT_WISE_MULTIPLY",
    struct="DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC",
    formula="f(a, b) = a * b",
    summary="Computes the product of each pair of corresponding elements of ATensor and BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="1_0",
    tables=ADD_HISTORY,
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 0, "float16": 0},  # WebNN: mul 0 / 0
    onnx_route="Mul (opset 14: every type of the page)",
    to_onnx=one_node("Mul", 14),
    d3d=lambda p: A * B,
    special_values=arithmetic_specials,
    source=page("DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC"),
    notes=("Integer overflow (the page is silent): two's complement wrap (the product's low bits).",
           "Tables: 5_1 all ten types, 4_1 FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32 (1 to 8 "
           "dimensions); the older rows as ELEMENT_WISE_ADD's page.",
           "The page: OutputTensor may alias one of the inputs in place."),
    integers=lambda params, dtype: lambda a, b: wrap(a * b, dtype),
)
