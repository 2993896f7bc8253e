from conformance.specs import quantization as q
from conformance.specs.base import FLOATS, NotReachable, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import NORMALIZATION
from oracle.quantization import tensor_count
from oracle.quantize import output_dtype

STRUCT = "DML_QUANTIZE_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict):
    """QuantizeLinear (opset 21): per tensor, per axis, or blocked along one axis (block 1: element-wise)."""
    if tensor_count(params) == 1 and output_dtype(dtype, params.get("OutputType")) != "uint8":
        raise NotReachable("QuantizeLinear without a zero point gives UINT8 (an INT8 one needs output_dtype, "
                           "not routed)")
    return q.onnx_node("QuantizeLinear", output_dtype(dtype, params.get("OutputType")), params)


SPEC = OperatorSpec(
    name="QUANTIZE",
    struct=STRUCT,
    formula="OutputTensor = clamp(round(InputTensor / Scale) + ZeroPoint, Min, Max) (UINT8: 0, 255; INT8: -128, "
            "127), Scale and ZeroPoint the QuantizationTensors spread over their blocks (ZeroPoint 0 for SCALE)",
    summary="Quantizes InputTensor with a scale and zero point per element, axis, block or tensor.",
    parameters=(q.QUANTIZATION_TYPE, q.QUANTIZATION_SIZES,
                Parameter("OutputType", "tensor_type", None,
                          "Not a field: the data type of OutputTensor and the zero point, UINT8 or INT8.",
                          choices=("uint8", "int8"), unset=output_dtype,
                          tensors=("QuantizationTensors[1]", "OutputTensor"))),
    inputs=q.tensors(lambda dtype: dtype, output_dtype),
    output_dtype=output_dtype,
    introduced="6_3",
    tables=(SupportTable("6_3", q.RANKS, FLOATS),),
    in_place=False,
    constraints="InputTensor, OutputTensor and QuantizationTensors have the same DimensionCount. InputTensor FLOAT32 "
                "or FLOAT16; QuantizationTensors FLOAT32, FLOAT16, INT8, INT4, UINT8, UINT4; OutputTensor INT8, INT4, "
                "UINT8, UINT4.",
    tolerance_ulp={},
    onnx_route="QuantizeLinear (opset 21): per tensor (a scalar scale), per axis (1-D), or blocked along one axis "
               "(block_size; block 1 along axis 0 for element-wise); blocks along two dimensions are not reachable",
    to_onnx=to_onnx,
    onnx_for_shape=q.onnx_for_shape,
    onnx_shapes=q.onnx_shapes,
    onnx_broadcasts=False,
    source=page(STRUCT),
    family=NORMALIZATION,  # not pointwise: a block of elements shares its scale (the judge spreads it)
    struct_order=q.STRUCT_ORDER,
    spread=q.spread_inputs,
    input_shapes_rule=q.input_shapes,
    output_shapes_rule=q.output_shapes,
    shape_check=q.shape_check,
    integers=lambda params, dtype: None,  # float input only
    notes=q.NOTES + ("The scale has InputTensor's type here (the table allows FLOAT32 or FLOAT16 for it).",),
)
