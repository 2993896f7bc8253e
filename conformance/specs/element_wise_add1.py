from oracle.rounding import float_param

from conformance.specs import fused
from conformance.specs.base import (A_B, FLOATS, ONE_TO_EIGHT, SAME_TYPES_A_B, OnnxNode, OperatorSpec, Parameter,
                                    SupportTable, arithmetic_specials, page)
from conformance.specs.primitives import A, B, stored, substitute


def d3d(p):
    """ADD's sum, then the activation's own formula with the sum as its input: the sum as the unfused
    ADD's output tensor holds it (float16: rounded) or as the fused shader keeps it (float)."""
    value = p["FusedActivation"]
    if value is None:
        return A + B
    _, fields = fused.split(value)
    return substitute(fused.formula(value, {k: float_param(v) for k, v in fields.items()}), stored(A + B))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """Add, then the activation's own node (its spec's to_onnx; NotReachable where it has none). The
    Add takes the activation node's opset (7 at least, Add's first broadcasting version) so that one
    opset import serves both (Dropout-7 and the experimental ScaledTanh need old ones)."""
    value = params.get("FusedActivation")
    if value is None:
        return OnnxNode("Add", 14)
    spec, fields = fused.split(value)
    then = spec.to_onnx(dtype, fields)
    return OnnxNode("Add", 14 if then.domain else max(7, then.opset), then=(then,))


def special_values(dtype: str, params: dict) -> list:
    """ADD's (cancellation, overflow) and the fused activation's own edges (a sum with B = 0 lands there)."""
    value = params.get("FusedActivation")
    own = []
    if value is not None:
        spec, fields = fused.split(value)
        own = list(spec.special_values(dtype, fields)) if spec.special_values else []
    return arithmetic_specials(dtype, params) + own


def output_range(params: dict, dtype: str):
    """The fused activation's range where its spec states one (HARD_SIGMOID: [0, 1])."""
    value = params.get("FusedActivation")
    if value is None:
        return None
    spec, fields = fused.split(value)
    return spec.output_range(fields, dtype) if spec.output_range else None


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ADD1",
    struct="DML_ELEMENT_WISE_ADD1_OPERATOR_DESC",
    formula="f(a, b) = FusedActivation(a + b)",
    summary="Adds every element in ATensor to its corresponding element in BTensor, with the option for "
            "fused activation.",
    parameters=(Parameter("FusedActivation", "fused_activation", None,
                          "_Maybenull_ const DML_OPERATOR_DESC*: an optional activation applied after the "
                          "addition; one of the fusable activations, its tensors NULL.", choices=fused.FUSABLE),),
    inputs=A_B,
    introduced="2_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS), SupportTable("2_0", (4, 5), FLOATS)),
    in_place=True,
    constraints=SAME_TYPES_A_B + " Fused activation may be used only when the output datatype is FLOAT16 or "
                                 "FLOAT32.",
    tolerance_ulp={"float32": 0, "float16": 0},  # ADD's (WebNN add); an activation is judged by its d3d formula
    onnx_route="Add (opset 14; with an activation: the activation node's opset, 7 at least) followed by the "
               "activation's own node (its spec's ONNX route). ONNX Runtime's DirectML EP fuses Add + activation "
               "into ELEMENT_WISE_ADD1 with FusedActivation; the CPU provider runs the two nodes. An activation "
               "without an ONNX form (LINEAR, SOFTPLUS with Steepness != 1, float16 CELU) is not reachable",
    to_onnx=to_onnx,
    d3d=d3d,
    special_values=special_values,
    output_range=output_range,
    source=page("DML_ELEMENT_WISE_ADD1_OPERATOR_DESC"),
    notes=("The oracle is ELEMENT_WISE_ADD's sum rounded to the tensor type, then the activation's own "
           "oracle on that tensor, rounded again: the unfused ADD then activation layer, which the fused-"
           f"activation page ({fused.SOURCE}) says fused activations reproduce. The d3d formula is ADD's "
           "sum fed to the activation's own formula, so a device that keeps the sum in float32 (or "
           "computes in half) is judged by Direct3D's rules for the whole computation.",
           "The fused activation's description has InputTensor and OutputTensor NULL (the fused-activation "
           "page); its fields are its own page's, at that page's typical defaults unless the case gives them.",
           "The tables are the current page's (FLOAT32, FLOAT16 only). An earlier revision of the page listed "
           "INT32/UINT32 at 2_1 and 8/16/32-bit integers at 3_0; the current page does not, so no integer "
           "case is required here.",
           "The page: OutputTensor may alias one or more of the inputs in place."),
)
