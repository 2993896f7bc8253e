from conformance.specs.base import (A_B, FLOATS, ONE_TO_EIGHT, SAME_TYPES_A_B, OperatorSpec, SupportTable,
                                    arithmetic_specials, no_onnx, page, wrap)
from conformance.specs.primitives import A, B

SPEC = OperatorSpec(
    name="ELEMENT_WISE_DIFFERENCE_SQUARE",
    struct="DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC",
    formula="f(a, b) = (a - b) * (a - b)",
    summary="Subtracts each element of BTensor from ATensor and squares the difference.",
    parameters=(),
    inputs=A_B,
    introduced="3_1",
    tables=(SupportTable("3_1", ONE_TO_EIGHT, FLOATS + ("int32", "uint32")),),
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 2, "float16": 2},  # a sub then a mul, each rounded
    onnx_route="not reachable: ONNX has no squared-difference operator and ONNX Runtime's DirectML provider "
               "fuses none into DIFFERENCE_SQUARE",
    to_onnx=no_onnx("ONNX has no operator that ONNX Runtime maps to ELEMENT_WISE_DIFFERENCE_SQUARE"),
    d3d=lambda p: (A - B) * (A - B),
    special_values=arithmetic_specials,
    source=page("DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC"),
    notes=("Floats: the exact square of the exact difference, rounded once; the device rounds twice "
           "(the d3d formula), which the interval allows.",
           "Integers (the page is silent on overflow): two's complement wrap of the product.",
           "The page: OutputTensor may alias ATensor or BTensor in place."),
    integers=lambda params, dtype: lambda a, b: wrap((a - b) * (a - b), dtype),
)
