from conformance.specs.base import OperatorSpec, float_tables, one_node, page
from oracle import element_wise_is_nan

STRUCT = "DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC"

SPEC = OperatorSpec(
    name="ELEMENT_WISE_IS_NAN",
    struct=STRUCT,
    formula="f(x) = 1 if x is NaN (IEEE 754) else 0",
    summary="For each element, 1 if it is NaN and 0 otherwise, into an integer output tensor.",
    parameters=(),
    introduced="2_0",
    tables=float_tables("2_0"),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DimensionCount and Sizes. "
                "InputTensor is FLOAT32 or FLOAT16; OutputTensor is UINT32 or UINT8.",
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="IsNaN (opset 13); its bool output is DirectML's UINT8 tensor",
    to_onnx=one_node("IsNaN", 13, output_type="bool"),
    source=page(STRUCT),
    notes=("The output may be UINT32 or UINT8; the harness asks for UINT8, the type ONNX Runtime's "
           "bool tensors have on DirectML, so UINT32 outputs are not exercised.",
           "The page does not allow in-place execution (the output's type differs from the input's).",
           "Every NaN encoding counts: quiet and signalling, either sign, any payload (the exhaustive "
           "float16 case and sweeps/float32_bit_patterns walk them)."),
    output_dtype=element_wise_is_nan.output_dtype,
)
