from conformance.specs.base import FLOATS, OnnxNode, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import NORMALIZATION
from conformance.specs.primitives import X, input_

STRUCT = "DML_VALUE_SCALE_2D_OPERATOR_DESC"
CHANNEL = 1  # {BatchCount, ChannelCount, Height, Width}


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor's sizes are InputTensor's."""
    return (input_shapes[0],)


def shape_check(input_shapes, params) -> str | None:
    shape = input_shapes[0]
    if len(shape) != 4:
        return f"InputTensor has {len(shape)} dimensions: {{BatchCount, ChannelCount, Height, Width}}"
    bias = params.get("Bias")
    if bias is None or len(bias) not in (1, 3):
        return f"Bias {bias}: ChannelCount (the length of Bias) must be 1 or 3"
    if len(bias) != shape[CHANNEL]:
        return (f"ChannelCount {len(bias)} (the length of Bias) must match InputTensor's channel dimension "
                f"{shape[CHANNEL]}")
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # ImageScaler, experimental in ONNX until opset 10 (removed there), at opset 9 (ONNX Runtime casts float16
    # for its float-only CPU kernel with Cast-6, whose int "to" opset 1 would refuse); alone:
    # a (1,) placeholder has no channel dimension for its bias
    return OnnxNode("ImageScaler", 9, {"scale": float(params["Scale"]), "bias": [float(b) for b in params["Bias"]]},
                    alone=True)


SPEC = OperatorSpec(
    name="VALUE_SCALE_2D",
    struct=STRUCT,
    formula="Output = Scale * Input + Bias[c], c the element's index along the channel dimension",
    summary="Performs an element-wise scale-and-bias function, Output = Scale * Input + Bias, a bias per channel.",
    parameters=(Parameter("Scale", "float", 1.0, "Scale value to be applied to all input values."),
                Parameter("Bias", "float_array", None, "The bias term of each channel (ChannelCount values: 1 or "
                          "3, the input's channel dimension).", count="ChannelCount", along=CHANNEL)),
    introduced="1_0",
    tables=(SupportTable("1_0", (4,), FLOATS),),
    in_place=False,  # the page does not say it may run in place
    constraints="InputTensor and OutputTensor must have the same DataType and Sizes; ChannelCount 1 or 3, the "
                "size of the channel dimension.",
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="ImageScaler (ONNX opset 1 to 9, experimental, removed in 10) with scale and bias",
    to_onnx=to_onnx,
    source=page(STRUCT),
    # Not pointwise: an element's result depends on its channel (the judge reads Bias per element)
    family=NORMALIZATION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    d3d=lambda p: X * p["Scale"] + input_("Bias"),  # a mad: no worse than mul then add
    integers=lambda params, dtype: None,  # FLOAT32 and FLOAT16 only
    notes=("The page's one table (1_0: 4-D, FLOAT32 and FLOAT16) is transcribed whole.",
           "The page says ChannelCount must be 1 or 3 and match the input's channel dimension: a case of another "
           "channel count is refused at load.",
           "The d3d judge reads Bias[c] as an exact float32 operand; a device computing float16 tensors in half "
           "with the bias rounded to half first is judged by the float32 path's interval."),
)
