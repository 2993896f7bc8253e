from conformance.specs.base import (INTEGERS_32, ONE_TO_EIGHT, Input, NotReachable, OnnxNode, OperatorSpec,
                                    Parameter, SupportTable, one_element_per_tensor, page)
from conformance.specs.primitives import X, input_
from oracle.element_wise_dequantize_linear import output_dtype

STRUCT = "DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """DequantizeLinear (opset 21) with a scale and zero point of the input's rank: blocked
    quantization of block size 1 along axis 0, which is element-wise. ONNX's x has no UINT32."""
    if dtype == "uint32":
        raise NotReachable("DequantizeLinear has no tensor(uint32) input (ONNX)")
    return OnnxNode("DequantizeLinear", 21, attributes={"axis": 0, "block_size": 1}, alone=True,
                    output_type=output_dtype(dtype, params.get("OutputType")))


def integers(params: dict, dtype: str):
    """None: integer inputs, a FLOAT32 result (the oracle's exact difference times the scale)."""
    return None


SPEC = OperatorSpec(
    name="ELEMENT_WISE_DEQUANTIZE_LINEAR",
    struct=STRUCT,
    formula="f(input, scale, zero_point) = (input - zero_point) * scale",
    summary="Dequantizes each element of InputTensor with its elements of ScaleTensor and ZeroPointTensor.",
    parameters=(Parameter("OutputType", "tensor_type", None,
                          "Not a field: the data type of ScaleTensor and OutputTensor, FLOAT32 or (from 6_0) FLOAT16.",
                          choices=("float32", "float16"), unset=output_dtype,
                          tensors=("ScaleTensor", "OutputTensor")),),
    parameter_level=lambda p: "6_0" if p.get("OutputType") == "float16" else None,
    inputs=(Input("InputTensor"),
            Input("ScaleTensor", role="scale", aliases_output=False, dtype=output_dtype),
            Input("ZeroPointTensor", role="zero_point", aliases_output=False)),
    output_dtype=output_dtype,
    onnx_broadcasts=False,
    onnx_for_shape=one_element_per_tensor,
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, INTEGERS_32),
            SupportTable("2_1", (4,), INTEGERS_32),
            SupportTable("1_0", (4,), ("uint8",))),
    in_place=False,
    constraints="InputTensor and ZeroPointTensor must have the same DataType; OutputTensor and ScaleTensor too "
                "(FLOAT32 here). InputTensor, OutputTensor, ScaleTensor, and ZeroPointTensor must have the same "
                "DimensionCount and Sizes.",
    tolerance_ulp={"float32": 0},
    onnx_route="DequantizeLinear (opset 21), the scale and zero point blocked with block size 1 (element-wise; per "
               "tensor for a rank-1 case of one element, which ONNX Runtime takes as per tensor); "
               "a broadcast scale or zero point is not one of ONNX's shapes (scalar, per axis, blocked)",
    to_onnx=to_onnx,
    d3d=lambda p: (X - input_("ZeroPoint")) * input_("Scale"),
    integers=integers,
    source=page(STRUCT),
    notes=("The case's data type is InputTensor's (and ZeroPointTensor's); ScaleTensor and OutputTensor are "
           "FLOAT32, or FLOAT16 (the 6_0 table on) where the case's OutputType says (case ids: OutputType=float16).",
           "Oracle: input - zero_point exact, times the scale in float64, rounded once to the output type. The d3d "
           "model, in the output's type: the difference rounded, then the product rounded (FLOAT16: computed "
           "in float16 or in float32 and stored toward zero or to nearest).",
           "The page says a scale of 0 is undefined behaviour: no case has one. The 6_2 table makes the "
           "zero point optional: every case gives one. The page says nothing of in-place execution."),
)
