from conformance.specs.base import A_B, SAME_TYPES_A_B, OperatorSpec, one_node, page
from conformance.specs.element_wise_min import MIN_MAX_NOTES, MIN_MAX_TABLES, min_max_specials
from conformance.specs.primitives import A, B, maximum

SPEC = OperatorSpec(
    name="ELEMENT_WISE_MAX",
    struct="DML_ELEMENT_WISE_MAX_OPERATOR_DESC",
    formula="f(a, b) = max(a, b)",
    summary="Takes the greater of each pair of corresponding elements of ATensor and BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="1_0",
    tables=MIN_MAX_TABLES,
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 0, "float16": 0},  # WebNN: max 0 / 0
    onnx_route="Max (opset 13: every type of the page; ONNX Runtime's CPU provider lacks the 8/16-bit integers)",
    to_onnx=one_node("Max", 13),
    d3d=lambda p: maximum(A, B),
    special_values=min_max_specials,
    source=page("DML_ELEMENT_WISE_MAX_OPERATOR_DESC"),
    notes=MIN_MAX_NOTES,
    integers=lambda params, dtype: max,
)
