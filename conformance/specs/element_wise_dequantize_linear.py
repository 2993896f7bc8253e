from conformance.specs.base import (INTEGERS_32, ONE_TO_EIGHT, Input, NotReachable, OnnxNode, OperatorSpec,
                                    SupportTable, page)
from conformance.specs.primitives import X, input_
from oracle.element_wise_dequantize_linear import output_dtype

STRUCT = "DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """DequantizeLinear (opset 21) with a scale and zero point of the input's rank: blocked
    quantization of block size 1 along axis 0, which is element-wise. ONNX's x has no UINT32."""
    if dtype == "uint32":
        raise NotReachable("DequantizeLinear has no tensor(uint32) input (ONNX)")
    return OnnxNode("DequantizeLinear", 21, attributes={"axis": 0, "block_size": 1}, output_type="float32")


def integers(params: dict, dtype: str):
    """None: integer inputs, a FLOAT32 result (the oracle's exact difference times the scale)."""
    return None


SPEC = OperatorSpec(
    name="ELEMENT_WISE_DEQUANTIZE_LINEAR",
    struct=STRUCT,
    formula="f(input, scale, zero_point) = (input - zero_point) * scale",
    summary="Dequantizes each element of InputTensor with its elements of ScaleTensor and ZeroPointTensor.",
    parameters=(),
    inputs=(Input("InputTensor"),
            Input("ScaleTensor", role="scale", aliases_output=False, dtype=output_dtype),
            Input("ZeroPointTensor", role="zero_point", aliases_output=False)),
    output_dtype=output_dtype,
    onnx_broadcasts=False,
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, INTEGERS_32),
            SupportTable("2_1", (4,), INTEGERS_32),
            SupportTable("1_0", (4,), ("uint8",))),
    in_place=False,
    constraints="InputTensor and ZeroPointTensor must have the same DataType; OutputTensor and ScaleTensor too "
                "(FLOAT32 here). InputTensor, OutputTensor, ScaleTensor, and ZeroPointTensor must have the same "
                "DimensionCount and Sizes.",
    tolerance_ulp={"float32": 0},
    onnx_route="DequantizeLinear (opset 21), the scale and zero point blocked with block size 1 (element-wise); "
               "a broadcast scale or zero point is not one of ONNX's shapes (scalar, per axis, blocked)",
    to_onnx=to_onnx,
    d3d=lambda p: (X - input_("ZeroPoint")) * input_("Scale"),
    integers=integers,
    source=page(STRUCT),
    notes=("The case's data type is InputTensor's (and ZeroPointTensor's); ScaleTensor and OutputTensor are "
           "FLOAT32 in every case: the FLOAT16 scale and output of the 6_0 table are not tested (one case "
           "type cannot name two).",
           "Oracle: input - zero_point exact, times the scale in float64, rounded once to FLOAT32. The d3d "
           "model: the difference rounded to float32, then the product rounded (both exact for 8- and 16-bit "
           "inputs and scales of few bits).",
           "The page says a scale of 0 is undefined behaviour: no case has one. The 6_2 table makes the "
           "zero point optional: every case gives one. The page says nothing of in-place execution."),
)
