"""DML_CONVOLUTION_OPERATOR_DESC: forward and backward (transposed) convolution and cross-correlation of
1 to 3 spatial dimensions, groups, bias and a fused activation, judged by the sound interval of a sum
of products (conformance/judge/accumulated.py's Dot) followed by the bias and the activation."""
import numpy as np

from conformance.specs import convolving, fused
from conformance.specs.accumulation import Dot, Then
from conformance.specs.base import (ABSENT, FLOATS, Input, NotReachable, OnnxNode, OperatorSpec, Parameter, SupportTable,
                                    execution_flags, optional_tensor, page)
from conformance.specs.families import CONTRACTION
from conformance.specs.primitives import eq, input_, select, stored, substitute
from oracle.convolution import DIRECTIONS, MODES, convolution, output_padded
from oracle.rounding import float_param

BACKWARD = DIRECTIONS[1]


def _backward(params) -> bool:
    return params.get("Direction") == BACKWARD


def output_shapes(input_shapes, params) -> tuple:
    return (convolving.output_shape(input_shapes[0], input_shapes[1], params, _backward(params)),)


def shape_check(input_shapes, params) -> str | None:
    if len(input_shapes) < 2:
        return "InputTensor and FilterTensor each need a shape: shapes: [{Input: [...], Filter: [...]}]"
    found = convolving.problem(input_shapes[0], input_shapes[1], params, _backward(params))
    if found or len(input_shapes) < 3:
        return found
    out = output_shapes(input_shapes, params)[0]
    return convolving.per_channel_problem("BiasTensor", input_shapes[2], out[1], len(out))


def _sums(inputs, params):
    return output_padded(convolution(inputs, params), params)


def _magnitudes(inputs, params):
    return output_padded(convolution(inputs, params, magnitude=True), params)


def _inside(inputs, params):
    """1 where the convolution writes, 0 in the output padding."""
    return output_padded(np.ones_like(convolution(inputs, params)), params)


def _none(inputs, params):
    return 0


def _count(inputs, params):
    return convolving.taps_per_output(np.shape(inputs[1]), np.shape(inputs[0])[1], int(params.get("GroupCount") or 1))


def _bias(inputs, params):
    """The bias over the output (0 in the output padding), the term a device may start its accumulator with."""
    return output_padded(np.broadcast_to(np.asarray(inputs[2], np.float64), np.shape(convolution(inputs, params))),
                         params)


def accumulation(params) -> tuple:
    """S, the sum of products; then S + Bias (0 in the output padding), or the bias as one more term of S (a device
    may start its accumulator with it); then the fused activation's own formula of that (the sum as the unfused
    layer's tensor holds it, or as the fused shader keeps it: stored)."""
    biased = params.get("BiasTensor") != ABSENT
    methods = [(Dot("S", _sums, _magnitudes, _count), input_("S") + input_("Bias") if biased else input_("S"))]
    if biased:
        methods.append((Dot("S", _sums, _magnitudes, _count, addend=_bias), input_("S")))
    return tuple(_finished(dot, total, params) for dot, total in methods)


def _finished(dot, total, params) -> tuple:
    steps = (dot,)
    if any(params.get("OutputPadding") or ()):  # the padding's zeros, where a Dot of no products (1 or 0) says
        steps += (Dot("Inside", _inside, _none, _none),)
        total = select(eq(input_("Inside"), 0.0), 0.0, total)
    value = params.get("FusedActivation")
    if value is not None:
        _, fields = fused.split(value)
        total = substitute(fused.formula(value, {k: float_param(v) for k, v in fields.items()}), stored(total))
    return steps + (Then("Output", total),)


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """WebNN's conv2d and convTranspose2d: filter taps * (inputChannels / groups) * 2."""
    return 2 * convolving.taps_per_output(input_shapes[1], input_shapes[0][1], int(params.get("GroupCount") or 1))


def onnx_shapes(input_shapes, params) -> tuple:
    """Conv and ConvTranspose take the bias as a 1-D tensor of OutputChannelCount."""
    shapes = list(map(tuple, input_shapes))
    if len(shapes) > 2:
        shapes[2] = (shapes[2][1],)
    return tuple(shapes)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """Conv (FORWARD) or ConvTranspose (BACKWARD, output_padding), opset 11, CROSS_CORRELATION; a fused
    activation as its own node after it (its spec's route)."""
    if params.get("Mode") == MODES[0]:
        raise NotReachable("Mode CONVOLUTION: ONNX Conv and ConvTranspose cross-correlate (the filter is not flipped)")
    if params.get("ExecutionFlags") not in (None, "NONE"):
        raise NotReachable("ExecutionFlags: the ONNX routes compile with the provider's own flags")
    attributes = convolving.onnx_attributes(params)
    backward = _backward(params)
    padding = [int(v) for v in params.get("OutputPadding") or [0] * len(params["Strides"])]
    if any(padding):
        if not backward:
            raise NotReachable("ONNX Conv has no output padding")
        if params.get("BiasTensor") != ABSENT or params.get("FusedActivation") or any(params["EndPadding"]):
            raise NotReachable("ConvTranspose's output_padding positions take the bias, the activation and "
                               "EndPadding's cropped sums; DirectML's are zeros: they agree without all three")
        if any(o >= s for o, s in zip(padding, attributes["strides"])):
            raise NotReachable("ConvTranspose in ONNX Runtime takes output_padding below the stride alone")
        attributes["output_padding"] = padding
    op_type = "ConvTranspose" if backward else "Conv"
    value = params.get("FusedActivation")
    if value is None:
        return OnnxNode(op_type, 11, attributes=attributes, alone=True)
    spec, fields = fused.split(value)
    then = spec.to_onnx(dtype, fields)
    if then.domain:
        raise NotReachable(f"{spec.name}'s ONNX node is of another domain than Conv's")
    return OnnxNode(op_type, max(11, then.opset), attributes=attributes, alone=True, then=(then,))


SPEC = OperatorSpec(
    name="CONVOLUTION",
    struct="DML_CONVOLUTION_OPERATOR_DESC",
    formula="Output[n, m, o] = FusedActivation(S + Bias[m]); S = FORWARD: sum over the group's input channels c and "
            "filter taps k of Input[n, c, o * Strides + k * Dilations - StartPadding] * Filter[m, c, k]; BACKWARD: "
            "the transposed sum, Input[n, c, j] * Filter[c, m, k] added at o = j * Strides + k * Dilations - "
            "StartPadding; Mode CONVOLUTION flips the filter's spatial dimensions. Output sizes: FORWARD (In + "
            "StartPadding + EndPadding - ((K - 1) * Dilations + 1)) / Strides + 1, BACKWARD Strides * (In - 1) + "
            "(K - 1) * Dilations + 1 - StartPadding - EndPadding, each plus OutputPadding (zeros at the end)",
    summary="Performs a convolution of the FilterTensor with the InputTensor: forward and backward (transposed), "
            "convolution and cross-correlation, grouped (depth-wise), with an optional bias and fused activation.",
    inputs=(Input("InputTensor", aliases_output=False, broadcast=False),
            Input("FilterTensor", aliases_output=False, broadcast=False),
            Input("BiasTensor", aliases_output=False, broadcast=False, optional=True)),
    parameters=(optional_tensor("BiasTensor", "_Maybenull_: {1, OutputChannelCount, 1, ...}, added to every element "
                                "of its output channel; absent, nothing is added."),
                Parameter("Mode", "enum", MODES[1], "A DML_CONVOLUTION_MODE: CROSS_CORRELATION (inference's), or "
                          "CONVOLUTION, which flips the filter along each spatial dimension.", choices=MODES,
                          enum_values={m: k for k, m in enumerate(MODES)}),
                Parameter("Direction", "enum", DIRECTIONS[0], "A DML_CONVOLUTION_DIRECTION: FORWARD, or BACKWARD "
                          "(transposed convolution).", choices=DIRECTIONS,
                          enum_values={d: k for k, d in enumerate(DIRECTIONS)}),
                *convolving.window_fields(output_padding=True),
                Parameter("GroupCount", "uint", 1, "The number of groups the input and output channels are divided "
                          "into (InputChannelCount: depth-wise)."),
                Parameter("FusedActivation", "fused_activation", None,
                          "_Maybenull_ const DML_OPERATOR_DESC*: an optional activation applied after the bias; "
                          "one of the fusable activations, its tensors NULL.", choices=fused.FUSABLE),
                execution_flags()),
    introduced="1_0",
    tables=(SupportTable("4_0", (3, 4, 5), FLOATS), SupportTable("1_0", (4, 5), FLOATS)),
    in_place=False,
    constraints="BiasTensor, FilterTensor, InputTensor and OutputTensor must have the same DataType and "
                "DimensionCount; DimensionCount (the spatial dimensions) is theirs less 2.",
    tolerance_ulp={},
    ulp_tolerance=ulp_tolerance,
    accumulation=accumulation,
    onnx_route="Conv (FORWARD) or ConvTranspose (BACKWARD, output_padding below the stride), opset 11, "
               "CROSS_CORRELATION; pads = StartPadding + EndPadding; the bias as B (1-D); a fused "
               "activation as its own node after it",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    source=page("DML_CONVOLUTION_OPERATOR_DESC"),
    family=CONTRACTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    integers=lambda params, dtype: None,
    notes=("Judged by a sum of n products within gamma(n) * sum |products| in any order (n = the group's input "
           "channels times the filter's taps: the products a device may sum, padding's zeros included), the bias "
           "added and the fused activation applied with Direct3D's accuracy (conformance specs CONVOLUTION).",
           "The bias may be added after the sum or start the accumulator: then it is one more term of the sum, "
           "gamma(n + 1) over sum |products| + |bias| (a bound of the add after the sum alone misses the n roundings "
           "of partial sums near the bias): the union.",
           "float16 is summed in float32 unless the case's ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION.",
           "The page gives no formula: the sums are ONNX Conv's and ConvTranspose's (the page's mode table: "
           "CONVOLUTION flips the filter relative to CROSS_CORRELATION in both directions). BACKWARD's FilterTensor "
           "is {InputChannelCount, OutputChannelCount / GroupCount, kernel...}, as ONNX ConvTranspose's W (the "
           "page names the dimensions FilterBatchCount, FilterChannelCount without saying which is which).",
           "OutputPadding: zeros at the end of each spatial dimension, the bias not added there, the fused "
           "activation applied to them (the page: 'a zero padding to the result of the convolution'; DirectML.dll "
           "under Wine gives 0 there, sigmoid's 0.5 with SIGMOID fused, in both directions). ONNX ConvTranspose's output_padding computes those positions (bias "
           "added, EndPadding's cropped sums kept): the ONNX route takes it only without bias, activation and "
           "EndPadding, where both give zeros.",
           "DimensionCount 1 (3-D tensors) from 4_0: the page's text names only 2 and 3, its 4_0 table allows 3-D.",
           "The fused activation is judged by its own d3d formula of the biased sum (stored: float16 rounded or "
           "kept in float); the oracle applies the activation's oracle to the sum rounded to the tensor type.",
           "The `ulp` model: WebNN's conv2d count, filter taps * (InputChannelCount / GroupCount) * 2."),
)
