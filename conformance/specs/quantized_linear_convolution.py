"""DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC: the integer sums of CONVOLUTION_INTEGER (exact) plus an
INT32 bias, scaled by InputScale * FilterScale / OutputScale in float32 and quantized (ties to even, plus the
zero point, saturated). Each output element is judged within the quantizations of the scaling's interval
under Direct3D's float32 accuracy (either order of the scale steps)."""
import numpy as np

from conformance.specs import convolving
from conformance.specs.base import (ABSENT, Input, NotReachable, OnnxNode, OperatorSpec, Output, Parameter,
                                    SupportTable, execution_flags, optional_tensor, page)
from conformance.specs.convolution_integer import FILTER_TYPE, QUANTIZED, named, zero_point_problems
from conformance.specs.families import CONTRACTION
from conformance.specs.dynamic_quantize_linear import DIVISION_ULP
from oracle.quantized_linear_convolution import OPTIONAL, accumulated, output_dtype, real_value, unpack

FLOAT32_TYPE = lambda dtype: "float32"  # noqa: E731  every scale tensor's type (the page's tables)
ULP = 2.0 ** -23  # a float32 ULP relative to the value it rounds, at most
# ONNX Runtime's CPU QLinearConv (1.32): (x, w) types it has kernels for
ONNX_CPU_TYPES = (("uint8", "uint8"), ("uint8", "int8"), ("int8", "int8"))


def output_shapes(input_shapes, params) -> tuple:
    shapes = named(input_shapes, params, SPEC)
    return (convolving.output_shape(shapes["Input"], shapes["Filter"], params),)


def shape_check(input_shapes, params) -> str | None:
    shapes = named(input_shapes, params, SPEC)
    found = convolving.problem(shapes["Input"], shapes["Filter"], params)
    channels = shapes["Filter"][0]
    if found or "Bias" not in shapes:
        return found or zero_point_problems(shapes, channels)
    return (convolving.per_channel_problem("BiasTensor", shapes["Bias"], channels, len(shapes["Input"]))
            or zero_point_problems(shapes, channels))


def bounds(inputs, params):
    """Each element's least and greatest allowed value: S * InputScale * FilterScale[m] / OutputScale (S exact)
    as Direct3D's float32 arithmetic may compute it, in either order of the scale steps: S converted within one
    ULP, two products within one ULP each (truncation allowed), the division within DIVISION_ULP; rounded to
    integers (ties to even: monotone, so the interval's ends bound every result), plus the zero point, saturated."""
    present = {name: params.get(name) or "present" for name in OPTIONAL}
    t = unpack(inputs, present)
    fields = {name: params[name] for name in ("Strides", "Dilations", "StartPadding", "EndPadding")}
    value = real_value(t, accumulated(t, {**fields, "GroupCount": params.get("GroupCount") or 1}))
    radius = np.abs(value) * ((1 + ULP) ** 3 * (1 + DIVISION_ULP * ULP) - 1)
    target = np.iinfo(output_dtype(np.asarray(inputs[0]).dtype.name, params.get("FilterType"), params.get("OutputType")))
    zero = float(np.asarray(t["OutputZeroPoint"]).astype(np.int64).reshape(-1)[0])
    quantize = lambda v: np.clip(np.rint(v) + zero, target.min, target.max).astype(target.dtype)  # noqa: E731
    return quantize(value - radius), quantize(value + radius)


def onnx_shapes(input_shapes, params) -> tuple:
    """QLinearConv takes each scale and zero point as a scalar (a filter's per channel: 1-D) and the bias 1-D."""
    def shape(name, sizes):
        if name in ("Input", "Filter"):
            return sizes
        count = int(np.prod(sizes))
        return (count,) if name == "Bias" or count > 1 else ()
    return tuple(shape(name, sizes) for name, sizes in named(input_shapes, params, SPEC).items())


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """QLinearConv (opset 10): x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B
    (DirectML's bias comes before the output scale: input_order); every zero point bound."""
    if params.get("ExecutionFlags") not in (None, "NONE"):
        raise NotReachable("ExecutionFlags: the ONNX routes compile with the provider's own flags")
    if any(params.get(name) == ABSENT for name in OPTIONAL if name != "BiasTensor"):
        raise NotReachable("an absent zero point: QLinearConv binds x_zero_point, w_zero_point and y_zero_point")
    filter_type = params.get("FilterType") or dtype
    if (dtype, filter_type) not in ONNX_CPU_TYPES or output_dtype(dtype, filter_type, params.get("OutputType")) != dtype:
        raise NotReachable(f"ONNX Runtime's CPU QLinearConv has no kernel for x {dtype}, w {filter_type} and this "
                           "output type")
    order = (0, 1, 2, 3, 4, 5, 7, 8, 6) if params.get("BiasTensor") != ABSENT else ()
    return OnnxNode("QLinearConv", 10, attributes=convolving.onnx_attributes(params), alone=True, output_type=dtype,
                    input_order=order)


SPEC = OperatorSpec(
    name="QUANTIZED_LINEAR_CONVOLUTION",
    struct="DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC",
    formula="S[n, m, o] = sum over the group's input channels c and filter taps k of (Input[n, c, o * Strides + k * "
            "Dilations - StartPadding] - InputZeroPoint) * (Filter[m, c, k] - FilterZeroPoint[m]) + Bias[m]; "
            "Output = clamp(round(S * InputScale * FilterScale[m] / OutputScale) + OutputZeroPoint, Min, Max) "
            "(UINT8: 0, 255; INT8: -128, 127)",
    summary="Performs a forward convolution of the FilterTensor with the InputTensor on quantized data: "
            "dequantizing the inputs, convolving, and then quantizing the output.",
    inputs=(Input("InputTensor", aliases_output=False, broadcast=False),
            Input("InputScaleTensor", role="scale", aliases_output=False, broadcast=False, dtype=FLOAT32_TYPE),
            Input("InputZeroPointTensor", role="zero_point", aliases_output=False, broadcast=False, optional=True),
            Input("FilterTensor", aliases_output=False, broadcast=False),
            Input("FilterScaleTensor", role="scale", aliases_output=False, broadcast=False, dtype=FLOAT32_TYPE),
            Input("FilterZeroPointTensor", role="zero_point", aliases_output=False, broadcast=False, optional=True),
            Input("BiasTensor", aliases_output=False, broadcast=False, optional=True, dtype=lambda dtype: "int32"),
            Input("OutputScaleTensor", role="scale", aliases_output=False, broadcast=False, dtype=FLOAT32_TYPE),
            Input("OutputZeroPointTensor", role="zero_point", aliases_output=False, broadcast=False, optional=True,
                  dtype=lambda dtype: dtype)),
    parameters=(FILTER_TYPE,
                Parameter("OutputType", "tensor_type", None, "Not a field: the data type of OutputTensor and "
                          "OutputZeroPointTensor, INT8 or UINT8 (unset: InputTensor's).", choices=QUANTIZED,
                          unset=lambda dtype: dtype, tensors=("OutputZeroPointTensor", "OutputTensor")),
                *(optional_tensor(name, "_Maybenull_: absent, a zero point is 0 and no bias is added.")
                  for name in OPTIONAL),
                *convolving.window_fields(output_padding=False),
                Parameter("GroupCount", "uint", 1, "The number of groups the input and output channels are divided "
                          "into (InputChannelCount: depth-wise)."),
                execution_flags()),
    outputs=(Output("OutputTensor", bounds=bounds),),
    output_dtype=output_dtype,
    introduced="2_1",
    tables=(SupportTable("4_0", (3, 4), QUANTIZED), SupportTable("2_1", (4,), QUANTIZED)),
    in_place=False,
    constraints="BiasTensor, FilterTensor, InputTensor and OutputTensor must have the same DimensionCount; "
                "OutputTensor and OutputZeroPointTensor, InputTensor and InputZeroPointTensor, FilterTensor and "
                "FilterZeroPointTensor the same DataType; the scales FLOAT32, the bias INT32.",
    tolerance_ulp={},
    onnx_route="QLinearConv (opset 10), every zero point bound, the scales and zero points as scalars (the filter's "
               "per channel 1-D), the bias 1-D and last; x and w (UINT8, UINT8), (UINT8, INT8) or (INT8, INT8), the "
               "output of x's type (ONNX Runtime's CPU kernels)",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    source=page("DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC"),
    family=CONTRACTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    integers=lambda params, dtype: None,
    notes=("The integer sums are exact (CONVOLUTION_INTEGER's); the bias is INT32 in the accumulator's scale "
           "(InputScale * FilterScale, as ONNX QLinearConv's: the page only says it is added to the result).",
           "The scaling S * InputScale * FilterScale[m] / OutputScale is judged by Direct3D's float32 arithmetic "
           "(S converted within one ULP, each product within one ULP, the division within 2.5 ULP, in either "
           "order of the scale steps), then rounded to an integer (ties to even, as ELEMENT_WISE_QUANTIZE_LINEAR: monotone, so "
           "the interval's ends bound every result), plus the zero point, saturated: an element passes within "
           "those integers. The oracle computes it in float64.",
           "The page: a scale of 0 is undefined behaviour (no case has one).",
           "DimensionCount: the page's text says only 2, its 4_0 table allows 3-D tensors: both are cased.",
           "The page's OutputZeroPointTensor description says 'filter zero point data' (a copy of the filter's): it "
           "is the output's zero point."),
)
