from conformance.specs import quantization as q
from conformance.specs.base import FLOATS, NotReachable, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import NORMALIZATION
from oracle.quantize import output_dtype

STRUCT = "DML_QUANTIZE_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict):
    raise NotReachable("not routed yet: QuantizeLinear-21's axis and block_size need the case's shape")


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
    onnx_route="not routed yet (QuantizeLinear-21 with axis and block_size would reach the per-tensor, per-axis and "
               "one-axis blocked cases)",
    to_onnx=to_onnx,
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
