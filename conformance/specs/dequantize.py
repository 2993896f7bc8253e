from conformance.specs import quantization as q
from conformance.specs.base import OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import NORMALIZATION
from conformance.specs.primitives import X, input_
from oracle.dequantize import output_dtype
from oracle.quantization import tensor_count

STRUCT = "DML_DEQUANTIZE_OPERATOR_DESC"


def d3d(params):
    """ELEMENT_WISE_DEQUANTIZE_LINEAR's model: the difference, then the product, each rounded in the output's
    type (FLOAT16: computed in float16 or in float32 and stored toward zero or to nearest)."""
    scale = input_("Quantizations[0]")
    if tensor_count(params) == 1:
        return X * scale
    return (X - input_("Quantizations[1]")) * scale


def to_onnx(dtype: str, params: dict):
    """DequantizeLinear (opset 21): per tensor, per axis, or blocked along one axis (block 1: element-wise)."""
    return q.onnx_node("DequantizeLinear", output_dtype(dtype, params.get("OutputType")), params)


SPEC = OperatorSpec(
    name="DEQUANTIZE",
    struct=STRUCT,
    formula="OutputTensor = (InputTensor - ZeroPoint) * Scale, Scale and ZeroPoint the QuantizationTensors spread "
            "over their blocks (ZeroPoint 0 for SCALE)",
    summary="Dequantizes InputTensor with a scale and zero point per element, axis, block or tensor.",
    parameters=(q.QUANTIZATION_TYPE, q.QUANTIZATION_SIZES,
                Parameter("OutputType", "tensor_type", None,
                          "Not a field: the data type of OutputTensor and the scale, FLOAT32 or FLOAT16.",
                          choices=("float32", "float16"), unset=output_dtype,
                          tensors=("QuantizationTensors[0]", "OutputTensor"))),
    inputs=q.tensors(output_dtype, lambda dtype: dtype),
    output_dtype=output_dtype,
    introduced="6_3",
    tables=(SupportTable("6_3", q.RANKS, ("int8", "uint8")),),
    in_place=False,
    constraints="InputTensor, OutputTensor and QuantizationTensors have the same DimensionCount. InputTensor INT8, "
                "INT4, UINT8 or UINT4; QuantizationTensors FLOAT32, FLOAT16, INT8, INT4, UINT8, UINT4; OutputTensor "
                "FLOAT32 or FLOAT16.",
    tolerance_ulp={"float32": 0},
    onnx_route="DequantizeLinear (opset 21): per tensor (a scalar scale), per axis (1-D), or blocked along one axis "
               "(block_size; block 1 along axis 0 for element-wise); blocks along two dimensions are not reachable",
    to_onnx=to_onnx,
    onnx_for_shape=q.onnx_for_shape,
    onnx_shapes=q.onnx_shapes,
    onnx_broadcasts=False,
    d3d=d3d,
    source=page(STRUCT),
    family=NORMALIZATION,  # not pointwise: a block of elements shares its scale (the judge spreads it)
    struct_order=q.STRUCT_ORDER,
    spread=q.spread_inputs,
    input_shapes_rule=q.input_shapes,
    output_shapes_rule=q.output_shapes,
    shape_check=q.shape_check,
    integers=lambda params, dtype: None,  # a float result
    notes=q.NOTES + ("The zero point has InputTensor's type, the scale OutputTensor's (OutputType).",),
)
