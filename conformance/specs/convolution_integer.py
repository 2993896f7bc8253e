"""DML_CONVOLUTION_INTEGER_OPERATOR_DESC: the forward cross-correlation of 8-bit integers less their zero
points, into INT32: exact (entry.py judges an accumulating spec's integer outputs exactly)."""
import numpy as np

from conformance.specs import convolving
from conformance.specs.accumulation import Dot
from conformance.specs.base import (ABSENT, Input, NotReachable, OnnxNode, OperatorSpec, Parameter, SupportTable,
                                    execution_flags, optional_tensor, page)
from conformance.specs.families import CONTRACTION
from oracle.convolution import convolve, window_fields
from oracle.convolution_integer import differences, output_dtype

QUANTIZED = ("int8", "uint8")
ZERO_POINTS = ("InputZeroPointTensor", "FilterZeroPointTensor")
FILTER_TYPE = Parameter("FilterType", "tensor_type", None, "Not a field: the data type of FilterTensor and "
                        "FilterZeroPointTensor, INT8 or UINT8 (unset: InputTensor's).", choices=QUANTIZED,
                        unset=lambda dtype: dtype, tensors=("FilterTensor", "FilterZeroPointTensor"))


def named(input_shapes, params, spec) -> dict:
    return {i.short: tuple(s) for i, s in zip(spec.input_tensors(params), input_shapes)}


def zero_point_problems(shapes: dict, channels: int) -> str | None:
    """Each zero point (and scale) one element, a filter's or the output's also one per output channel."""
    for name, shape in shapes.items():
        if name in ("Input", "Filter", "Bias"):
            continue
        per_channel = name.startswith("Filter") and len(shape) > 1 and shape[1] == channels
        if int(np.prod(shape)) != 1 and not (per_channel and int(np.prod(shape)) == channels):
            allowed = f"{{1, ..., 1}}{' or {1, ' + str(channels) + ', 1, ...}' if name.startswith('Filter') else ''}"
            return f"{name}Tensor {list(shape)} must be {allowed}"
    return None


def output_shapes(input_shapes, params) -> tuple:
    shapes = named(input_shapes, params, SPEC)
    return (convolving.output_shape(shapes["Input"], shapes["Filter"], params),)


def shape_check(input_shapes, params) -> str | None:
    shapes = named(input_shapes, params, SPEC)
    found = convolving.problem(shapes["Input"], shapes["Filter"], params)
    return found or zero_point_problems(shapes, shapes["Filter"][0])


def integer_sums(inputs, params, spec) -> tuple:
    """The exact sums of the differences' products, and of their magnitudes (as float64)."""
    t = dict(zip((i.short for i in spec.input_tensors(params)), inputs))
    x, w = differences(t["Input"], t.get("InputZeroPoint", 0), t["Filter"], t.get("FilterZeroPoint", 0))
    fields = window_fields(params)
    return convolve(x, w, fields).astype(np.float64), convolve(np.abs(x), np.abs(w), fields).astype(np.float64)


def products_per_output(inputs, params, spec) -> int:
    shapes = named([np.shape(v) for v in inputs], params, spec)
    return convolving.taps_per_output(shapes["Filter"], shapes["Input"][1], int(params.get("GroupCount") or 1))


def accumulation(params) -> tuple:
    """One Dot (its integer sums exact: integers are judged exactly; `conformance specs` shows the step)."""
    return ((Dot("Output", lambda inputs, p: integer_sums(inputs, p, SPEC)[0],
                 lambda inputs, p: integer_sums(inputs, p, SPEC)[1],
                 lambda inputs, p: products_per_output(inputs, p, SPEC)),),)


def onnx_shapes(input_shapes, params) -> tuple:
    """ConvInteger takes a zero point as a scalar, or one per output channel as a 1-D tensor."""
    return tuple(shape if name in ("Input", "Filter") else () if int(np.prod(shape)) == 1 else (int(np.prod(shape)),)
                 for name, shape in named(input_shapes, params, SPEC).items())


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """ConvInteger (opset 10): x, w, x_zero_point, w_zero_point by position (a filter zero point needs an input
    one before it); ONNX Runtime's CPU kernel takes the filter's per tensor only."""
    if params.get("ExecutionFlags") not in (None, "NONE"):
        raise NotReachable("ExecutionFlags: the ONNX routes compile with the provider's own flags")
    input_zero, filter_zero = (params.get(name) != ABSENT for name in ZERO_POINTS)
    if filter_zero and not input_zero:
        raise NotReachable("ConvInteger binds x_zero_point before w_zero_point by position: no filter zero point "
                           "without an input one")
    order = (0, 2, 1, 3) if filter_zero else (0, 2, 1) if input_zero else ()
    return OnnxNode("ConvInteger", 10, attributes=convolving.onnx_attributes(params), alone=True,
                    output_type="int32", input_order=order)


SPEC = OperatorSpec(
    name="CONVOLUTION_INTEGER",
    struct="DML_CONVOLUTION_INTEGER_OPERATOR_DESC",
    formula="Output[n, m, o] = sum over the group's input channels c and filter taps k of (Input[n, c, o * Strides "
            "+ k * Dilations - StartPadding] - InputZeroPoint) * (Filter[m, c, k] - FilterZeroPoint[m]) (a padded "
            "position adds 0), INT32",
    summary="Performs a forward convolution of the FilterTensor with the InputTensor on integer data, optional zero "
            "points subtracted from each first.",
    inputs=(Input("InputTensor", aliases_output=False, broadcast=False),
            Input("InputZeroPointTensor", role="zero_point", aliases_output=False, broadcast=False, optional=True),
            Input("FilterTensor", aliases_output=False, broadcast=False),
            Input("FilterZeroPointTensor", role="zero_point", aliases_output=False, broadcast=False, optional=True)),
    parameters=(FILTER_TYPE,
                *(optional_tensor(name, "_Maybenull_: absent, the zero point is 0.") for name in ZERO_POINTS),
                *convolving.window_fields(output_padding=False),
                Parameter("GroupCount", "uint", 1, "The number of groups the input and output channels are divided "
                          "into (InputChannelCount: depth-wise)."),
                execution_flags()),
    output_dtype=output_dtype,
    introduced="2_1",
    tables=(SupportTable("4_0", (3, 4), QUANTIZED), SupportTable("2_1", (4,), QUANTIZED)),
    in_place=False,
    constraints="FilterZeroPointTensor and InputZeroPointTensor must have the same DimensionCount; FilterTensor, "
                "InputTensor and OutputTensor must have the same DimensionCount; InputTensor and InputZeroPointTensor "
                "the same DataType; FilterTensor and FilterZeroPointTensor the same DataType. OutputTensor is INT32.",
    tolerance_ulp={},
    accumulation=accumulation,
    onnx_route="ConvInteger (opset 10), the zero points as scalars by position (x, w, x_zero_point, w_zero_point); "
               "ONNX Runtime's CPU kernel takes a per-tensor filter zero point only (a per-channel one fails there)",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    source=page("DML_CONVOLUTION_INTEGER_OPERATOR_DESC"),
    family=CONTRACTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    integers=lambda params, dtype: None,
    notes=("Exact: each difference and product is an integer, the sum wrapped to INT32 as two's complement (no "
           "case reaches it: 2^15 products of 8-bit differences cannot wrap); any order gives it.",
           "The page gives no formula: the sums are CONVOLUTION's forward cross-correlation; a padded position "
           "adds 0 (ONNX ConvInteger pads with the zero point; the page is silent).",
           "DimensionCount: the page's text says only 2 is supported, its 4_0 table allows 3-D tensors "
           "(DimensionCount 1): both are cased.",
           "FilterZeroPointTensor {1, OutputChannelCount, 1, 1} is per output channel (the page), {1, 1, 1, 1} "
           "per tensor."),
)
