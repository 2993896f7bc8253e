"""DML_QUANTIZED_LINEAR_AVERAGE_POOLING: dequantize, AVERAGE_POOLING1, quantize. Judged by the integers
a device computing the dequantized sum in float32 in any order may round to (bounds), the sum's error
stated by the accumulation judge's model (conformance/judge/accumulated.py)."""
import numpy as np

from conformance.specs import pool_sums as pools
from conformance.specs.accumulation import gamma
from conformance.specs.base import (ABSENT, PRESENT, Input, NotReachable, OnnxNode, OperatorSpec, Output, Parameter,
                                    SupportTable, optional_tensor, page)
from conformance.specs.families import WINDOW
from conformance.specs.pooling import output_shapes, window_fields
from conformance.specs.pooling import shape_check as window_check
from oracle.average_pooling import divisor
from oracle.quantized_linear_average_pooling import dequantized_average, operands, output_dtype
from oracle.windows import window_sums

STRUCT = "DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC"
QUANTIZED = ("int8", "uint8")
SCALES = ("InputScale", "InputZeroPoint", "OutputScale", "OutputZeroPoint")
ZERO_POINTS = ("InputZeroPointTensor", "OutputZeroPointTensor")
# Float32 roundings besides the sum's: each dequantized term's product, the divisions by the divisor and
# by OutputScale (each a * rcp(b), two roundings), and a scale ratio a device may fold them into
ROUNDINGS_AFTER = 6
FLOAT32 = lambda dtype: "float32"  # noqa: E731  the scales' type (the page's table)


def bounds(inputs, params):
    """The integers a float32 device may give: the exact average's quotient by OutputScale, widened by
    the sum's gamma(n) * sum |term| (any order) and six float32 roundings (ROUNDINGS_AFTER), each end rounded
    as the page's quantize rounds (ties to even), plus OutputZeroPoint, saturated."""
    data, scale, zero, out_scale, out_zero = operands(inputs, params)
    u = float(np.finfo(np.float32).eps)  # float32 with truncation allowed, as the accumulation judge's u
    terms = np.abs((np.asarray(data, np.float64) - np.asarray(zero, np.float64)) * np.asarray(scale, np.float64))
    count = divisor(np.shape(data), params)
    inside = window_sums(params)(np.ones(np.shape(data)))
    average = dequantized_average(inputs, params)
    radius = gamma(inside, u) * window_sums(params)(terms) / count + gamma(ROUNDINGS_AFTER, u) * np.abs(average)
    out_scale = np.abs(np.asarray(out_scale, np.float64))
    quotient, spread = average / out_scale, (radius * (1 + gamma(ROUNDINGS_AFTER, u)) + 2.0 ** -126) / out_scale
    target = np.iinfo(output_dtype(_dtype(data), params.get("OutputType")))
    shift = np.asarray(out_zero, np.float64)
    lo, hi = (np.clip(np.rint(q) + shift, target.min, target.max) for q in (quotient - spread, quotient + spread))
    return lo.astype(target.dtype), hi.astype(target.dtype)


def _dtype(data) -> str:
    return np.asarray(data).dtype.name


def shape_check(input_shapes, params) -> str | None:
    """The windows', and each scale and zero point {1, 1, 1, 1} (per tensor) or {1, ChannelCount, 1, 1}
    (per channel), of InputTensor's DimensionCount (the page's field texts)."""
    problem = window_check(input_shapes, params)
    if problem:
        return problem
    shape = input_shapes[0]
    names = [i.short for i in SPEC.input_tensors(params)]
    for name, sizes in zip(names[1:], input_shapes[1:]):
        ones = [1] * len(shape)
        if list(sizes) not in (ones, [1, shape[1]] + ones[2:]):
            return (f"{name} {list(sizes)}: must be {ones} (per tensor) or {[1, shape[1]] + ones[2:]} (per channel) "
                    f"for an InputTensor of sizes {list(shape)}")
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """com.microsoft QLinearAveragePool: one type T for X, Y and the zero points, per-tensor scalars, no
    dilations (onnx_shapes makes the scales scalars; a per-channel case fails its shape there)."""
    if output_dtype(dtype, params.get("OutputType")) != dtype:
        raise NotReachable("QLinearAveragePool (com.microsoft) types X and Y alike: no case of mixed INT8 and UINT8")
    if any(params.get(name, PRESENT) == ABSENT for name in ZERO_POINTS):
        raise NotReachable("an absent zero point: the ONNX route binds every QLinearAveragePool input by position")
    if any(d != 1 for d in params.get("Dilations") or ()):
        raise NotReachable("QLinearAveragePool (com.microsoft) has no dilations")
    attributes = {"kernel_shape": list(params["WindowSize"]), "strides": list(params["Strides"]),
                  "pads": list(params["StartPadding"]) + list(params["EndPadding"]),
                  "count_include_pad": int(bool(params.get("IncludePadding")))}
    return OnnxNode("QLinearAveragePool", 1, domain="com.microsoft", attributes=attributes, alone=True,
                    output_type=dtype)


def onnx_shapes(input_shapes, params) -> tuple:
    """QLinearAveragePool's scales and zero points are scalars (per-channel ones: per_channel_unreachable)."""
    if any(int(np.prod(s)) != 1 for s in input_shapes[1:]):
        return tuple(tuple(s) for s in input_shapes)
    return (tuple(input_shapes[0]),) + ((),) * (len(input_shapes) - 1)


def per_channel_unreachable(inputs, dtype, params) -> str | None:
    """The ONNX node takes no per-channel scale or zero point: such a case is not reachable."""
    if any(np.size(t) != 1 for t in inputs[1:]):
        return "QLinearAveragePool (com.microsoft) takes each scale and zero point as a scalar: no per-channel one"
    return None


SPEC = OperatorSpec(
    name="QUANTIZED_LINEAR_AVERAGE_POOLING",
    struct=STRUCT,
    formula="Output = clamp(round(average(Dequantize(window)) / OutputScale) + OutputZeroPoint, Min, Max), "
            "Dequantize(x) = (x - InputZeroPoint) * InputScale, average AVERAGE_POOLING1's (IncludePadding: the "
            "padding a dequantized 0 in the divisor); " + pools.DILATED_SIZE_FORMULA,
    summary="Averages quantized values across the elements within the sliding window over the input tensor: "
            "dequantizing the inputs, average pooling, and quantizing the output.",
    parameters=window_fields(dilations=True) + (
        pools.INCLUDE_PADDING,
        Parameter("OutputType", "tensor_type", None, "Not a field: the data type of OutputZeroPointTensor and "
                  "OutputTensor, INT8 or UINT8 (unset: InputTensor's).", choices=QUANTIZED, unset=output_dtype,
                  tensors=("OutputZeroPointTensor", "OutputTensor")),
        *(optional_tensor(name, "_Maybenull_: absent, the zero point is 0.") for name in ZERO_POINTS)),
    inputs=(Input("InputTensor", broadcast=False),
            Input("InputScaleTensor", role="scale", broadcast=False, aliases_output=False, dtype=FLOAT32),
            Input("InputZeroPointTensor", role="zero_point", broadcast=False, aliases_output=False, optional=True),
            Input("OutputScaleTensor", role="scale", broadcast=False, aliases_output=False, dtype=FLOAT32),
            Input("OutputZeroPointTensor", role="zero_point", broadcast=False, aliases_output=False,
                  dtype=output_dtype, optional=True)),
    outputs=(Output("OutputTensor", bounds=bounds),),
    output_dtype=output_dtype,
    introduced="6_2",
    tables=(SupportTable("6_2", (4, 5), QUANTIZED),),
    in_place=False,
    constraints="InputTensor and OutputTensor have the same DimensionCount (4 or 5), InputTensor and "
                "InputZeroPointTensor the same DataType, OutputTensor and OutputZeroPointTensor the same DataType "
                "(INT8 or UINT8); the scales are FLOAT32. Each scale and zero point is {1, 1, 1, 1} or "
                "{1, ChannelCount, 1, 1}.",
    tolerance_ulp={},
    onnx_route="QLinearAveragePool (com.microsoft, opset 1) with kernel_shape, strides, pads, count_include_pad, "
               "every scale and zero point a scalar, X and Y of one type, no dilations",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    onnx_undefined=per_channel_unreachable,
    source=page(STRUCT),
    family=WINDOW,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    integers=lambda params, dtype: None,  # a float computation between quantized ends
    notes=("The case's data type is InputTensor's (and InputZeroPointTensor's); OutputTensor's is OutputType where "
           "a case gives it (ids OutputType=int8), else InputTensor's.",
           "Judged within bounds: the integers that the page's quotient rounds to (ties to even, as "
           "ELEMENT_WISE_QUANTIZE_LINEAR) anywhere in its sound float32 interval: the window's sum of dequantized "
           "terms within gamma(n) * sum |term| in any order, then six float32 roundings (the divisions as "
           "a * rcp(b), a folded scale ratio). An exact integer device lies inside.",
           "The table's scale and zero point tensors allow 1 to 5 dimensions; the field texts say {1, 1, 1, 1} or "
           "{1, ChannelCount, 1, 1}: the cases give those (of InputTensor's DimensionCount). A scale of 0 is "
           "undefined: no case has one.",
           "The constraints tie each tensor only to its zero point's type, yet DirectML 1.15.4 refuses an INT8 "
           "InputTensor with a UINT8 OutputTensor and the reverse (E_INVALIDARG; docs/findings/issue26-pooling.md): "
           "the OutputType cases stay, as the page allows them.",
           pools.DILATED_NOTE),
)
