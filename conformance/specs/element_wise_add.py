from conformance.specs.base import (A_B, ADD_HISTORY, SAME_TYPES_A_B, OperatorSpec, arithmetic_specials, one_node,
                                    page, wrap)
from conformance.specs.primitives import A, B

SPEC = OperatorSpec(
    name="ELEMENT_WISE_ADD",
    struct="DML_ELEMENT_WISE_ADD_OPERATOR_DESC",
    formula="f(a, b) = a + b",
    summary="Adds every element in ATensor to its corresponding element in BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="1_0",
    tables=ADD_HISTORY,
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 0, "float16": 0},  # WebNN: add 0 / 0
    onnx_route="Add (opset 14: every type of the page); the DirectML EP maps it to ELEMENT_WISE_ADD1 "
               "(no fused activation) and lets ONNX broadcasting become zero strides",
    to_onnx=one_node("Add", 14),
    d3d=lambda p: A + B,
    special_values=arithmetic_specials,
    source=page("DML_ELEMENT_WISE_ADD_OPERATOR_DESC"),
    notes=("Integer overflow (the page is silent): two's complement wrap, what GPUs' integer add does.",
           "The page: OutputTensor may alias one or more of the inputs in place.",
           "A newer version, ELEMENT_WISE_ADD1 (FusedActivation), came at 2_0."),
    integers=lambda params, dtype: lambda a, b: wrap(a + b, dtype),
)
