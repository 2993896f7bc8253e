from conformance.specs.base import A_B, SAME_TYPES_A_B, OperatorSpec, page
from conformance.specs.element_wise_modulus_truncate import MODULUS_TABLES, modulus_specials, onnx_mod
from conformance.specs.primitives import A, B, floor


def floored(a: int, b: int) -> int:
    """Python's a % b: the sign of the divisor; b = 0 is not defined by the page (0 here, no case asks)."""
    return 0 if b == 0 else a % b


SPEC = OperatorSpec(
    name="ELEMENT_WISE_MODULUS_FLOOR",
    struct="DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC",
    formula="f(a, b) = a - (b * floor(a / b)) (Python's modulus: the result has the divisor's sign)",
    summary="Computes the Python modulus of each pair of corresponding elements of ATensor and BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="2_1",
    tables=MODULUS_TABLES,
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 0, "float16": 0},  # Python's float % is fmod plus one exact-or-rounded addition
    onnx_route="Mod (opset 13) with fmod=0 (Python's modulus), integers only: ONNX forbids fmod=0 on floats, "
               "so float MODULUS_FLOOR is not reachable",
    to_onnx=onnx_mod(0, floats=False),
    d3d=lambda p: A - B * floor(A / B),
    special_values=modulus_specials,
    source=page("DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC"),
    notes=("Floats: Python's % (numpy.mod), the divisor's sign: fmod(a, b), plus b where the signs differ, "
           "rounded once; b = +-0 and a = +-inf give NaN; a finite and b = +-inf give a, or b where the "
           "signs differ (Python); the formula's lowering gives NaN there, accepted and counted under d3d.",
           "Integers: Python's %, the divisor's sign; b = 0 is not defined by the page (no case asks).",
           "The page: OutputTensor may alias one of the inputs in place."),
    integers=lambda params, dtype: floored,
)
