from conformance.specs.base import (ONE_TO_EIGHT, Input, NotReachable, OnnxNode, OperatorSpec, Parameter, SupportTable,
                                    one_element_per_tensor, page)
from oracle.element_wise_quantize_linear import output_dtype, scale_dtype

STRUCT = "DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """QuantizeLinear (opset 21) with a scale and zero point of the input's rank: blocked
    quantization of block size 1 along axis 0, which is element-wise. Opset 21 types x and the scale
    alike, so an INT32 input with a FLOAT32 scale is not expressible (opset 13's float scale is per axis)."""
    if dtype == "int32":
        raise NotReachable("QuantizeLinear-21 gives x and y_scale one type: no INT32 input with a FLOAT32 "
                           "element-wise scale (opset 13 has one, but per axis only)")
    return OnnxNode("QuantizeLinear", 21, attributes={"axis": 0, "block_size": 1}, alone=True,
                    output_type=output_dtype(dtype, params.get("OutputType")))


def integers(params: dict, dtype: str):
    """None: an INT32 input is divided by a FLOAT32 scale, a float computation."""
    return None


SPEC = OperatorSpec(
    name="ELEMENT_WISE_QUANTIZE_LINEAR",
    struct=STRUCT,
    formula="f(input, scale, zero_point) = clamp(round(input / scale) + zero_point, Min, Max), "
            "Min and Max those of the output type (UINT8: 0, 255; INT8: -128, 127)",
    summary="Quantizes each element of InputTensor with its elements of ScaleTensor and ZeroPointTensor.",
    parameters=(Parameter("OutputType", "tensor_type", None,
                          "Not a field: the data type of ZeroPointTensor and OutputTensor, UINT8 or (from 2_1) INT8.",
                          choices=("uint8", "int8"), unset=output_dtype, tensors=("ZeroPointTensor", "OutputTensor")),),
    parameter_level=lambda p: "2_1" if p.get("OutputType") == "int8" else None,
    inputs=(Input("InputTensor"),
            Input("ScaleTensor", role="scale", aliases_output=False, dtype=scale_dtype),
            Input("ZeroPointTensor", role="zero_point", aliases_output=False, dtype=output_dtype)),
    output_dtype=output_dtype,
    onnx_broadcasts=False,
    onnx_for_shape=one_element_per_tensor,
    introduced="1_0",
    tables=(SupportTable("6_0", ONE_TO_EIGHT, ("float32", "float16", "int32")),
            SupportTable("3_0", ONE_TO_EIGHT, ("float32", "int32")),
            SupportTable("2_1", (4,), ("float32", "int32")),
            SupportTable("1_0", (4,), ("float32",))),
    in_place=False,
    constraints="OutputTensor and ZeroPointTensor must have the same DataType (UINT8 here). ScaleTensor is FLOAT32 "
                "for an INT32 input, else the input's type. InputTensor, OutputTensor, ScaleTensor, and "
                "ZeroPointTensor must have the same DimensionCount and Sizes.",
    tolerance_ulp={},
    onnx_route="QuantizeLinear (opset 21), the scale and zero point blocked with block size 1 (element-wise; per "
               "tensor for a rank-1 case of one element, which ONNX Runtime takes as per tensor), not for INT32 input; "
               "a broadcast scale or zero point is not one of ONNX's shapes (scalar, per axis, blocked)",
    to_onnx=to_onnx,
    integers=integers,
    source=page(STRUCT),
    notes=("The case's data type is InputTensor's; ZeroPointTensor and OutputTensor are UINT8, or INT8 (Min -128, "
           "Max 127; the 2_1 table on) where the case's OutputType says (case ids: OutputType=int8).",
           "The page says 'round' without naming the tie rule: ties to even here, as ONNX's QuantizeLinear; "
           "the cases put exact ties (k + 0.5 with scales 1, 0.5, 0.25) where a device's rule shows.",
           "Oracle: input / scale in float64 (a device dividing in float32 differs only where that rounding "
           "crosses a tie), rounded, plus the zero point, saturated to the output type. The page is silent on "
           "NaN (0 here): no case has one. A scale of 0 is undefined (the page): no case has one.",
           "Tables: 1_0 4-D FLOAT32 to UINT8; 2_1 4-D FLOAT32 and INT32, UINT8 or INT8 out; 3_0 1 to 8-D; "
           "6_0 adds FLOAT16 input and scale; 6_2 makes the zero point optional (every case gives one).",
           "The page says nothing of in-place execution: none is asked for."),
)
