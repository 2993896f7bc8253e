"""What the six softmax pages share (ACTIVATION_SOFTMAX, ACTIVATION_LOG_SOFTMAX, ACTIVATION_HARDMAX and
their "1" versions): fields, tables, shapes (the normalization family: the output the input's shape),
the formulas the sound judge composes (conformance/judge/accumulated.py), hardmax's one-hot index
judge, and the ONNX routes (Softmax, LogSoftmax, Hardmax).

Softmax is judged by exp(x - max) / sum(exp(x - max)) alone: the page's exp(x) / sum(exp(x)) computed
as written overflows float32 from logits of 89, a fault the judge must catch, not a reading to accept."""
import numpy as np

from conformance.specs import indices
from conformance.specs.accumulation import Extreme, Sum, Then
from conformance.specs.base import (ACTIVATION_TABLES, FLOATS, ONE_TO_EIGHT, NotReachable, OnnxNode, OperatorSpec,
                                    Output, Parameter, SAME_TENSORS, SupportTable, execution_flags, page)
from conformance.specs.families import NORMALIZATION
from conformance.specs.primitives import X, exp, input_, log
from oracle.softmaxes import LAST_AXIS

SOFTMAX, LOG_SOFTMAX, HARDMAX = "SOFTMAX", "LOG_SOFTMAX", "HARDMAX"
ONNX = {SOFTMAX: "Softmax", LOG_SOFTMAX: "LogSoftmax", HARDMAX: "Hardmax"}
AXES_TABLES = (SupportTable("5_1", ONE_TO_EIGHT, FLOATS),)  # the "1" pages' one table
MAX_EFFECTIVE_RANK = 2  # the original pages: {BatchCount, Width} after leftmost 1s


def reduced_axes(one: bool):
    """params -> the axes a slice spans: Axes, or the last axis."""
    return (lambda params: tuple(int(a) for a in params["Axes"])) if one else (lambda params: LAST_AXIS)


def _summed(axes_of):
    def reduce(params):
        axes = axes_of(params)
        return lambda array: np.sum(array, axis=tuple(a % array.ndim for a in axes), keepdims=True)
    return reduce


def _extreme(axes_of):
    def reduce(params):
        axes = axes_of(params)
        return lambda array, ufunc: ufunc.reduce(array, axis=tuple(a % array.ndim for a in axes), keepdims=True)
    return reduce


def formulas(kind: str, one: bool) -> tuple:
    axes_of = reduced_axes(one)
    m, s = input_("M"), input_("S")
    steps = (Extreme("M", X, _extreme(axes_of), True), Sum("S", exp(X - m), _summed(axes_of)))
    if kind == SOFTMAX:
        return (steps + (Then("Output", exp(X - m) / s),),)
    return (steps + (Then("Output", X - m - log(s)),),)


def slice_size(input_shapes, params, one: bool) -> int:
    shape = input_shapes[0]
    return int(np.prod([shape[a % len(shape)] for a in reduced_axes(one)(params)]))


def webnn_ulp(one: bool):
    """WebNN's softmax tolerance, 3 * size(axis) + 3, n the elements of a slice (several axes: their product)."""
    return lambda input_shapes, params, dtype: 3 * slice_size(input_shapes, params, one) + 3


def same_shape(input_shapes, params) -> tuple:
    return (tuple(int(n) for n in input_shapes[0]),)


def effective_rank_check(input_shapes, params) -> str | None:
    shape = list(input_shapes[0])
    while len(shape) > 1 and shape[0] == 1:
        shape.pop(0)
    if len(shape) > MAX_EFFECTIVE_RANK:
        return (f"InputTensor {list(input_shapes[0])} has an effective rank of {len(shape)}: the page allows at most "
                f"{MAX_EFFECTIVE_RANK} ({{BatchCount, Width}} after leftmost dimensions of size 1)")
    return None


def axes_check(input_shapes, params) -> str | None:
    axes, rank = params.get("Axes"), len(input_shapes[0])
    if not axes:
        return "Axes is required: at least one axis (the page does not say what AxisCount 0 means)"
    if any(not 0 <= a < rank for a in axes):
        return f"Axes {list(axes)}: values must be in the range [0, InputTensor.DimensionCount - 1] = [0, {rank - 1}]"
    if len(set(axes)) != len(axes):
        return f"Axes {list(axes)} names an axis twice"
    return None


def contiguous(axes) -> bool:
    ordered = sorted(axes)
    return ordered == list(range(ordered[0], ordered[-1] + 1))


def onnx_route(kind: str, one: bool):
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        """ExecutionFlags are the backends' to reach or not."""
        if one and not contiguous(params["Axes"]):
            raise NotReachable(f"ONNX's {ONNX[kind]} reduces one axis, or (opset 11) the trailing ones together; "
                               f"Axes {list(params['Axes'])} are not adjacent")
        return OnnxNode(ONNX[kind], 13, attributes={"axis": 1 if one else -1}, alone=True)
    return to_onnx


def onnx_shapes(input_shapes, params) -> tuple:
    """The "1" versions' adjacent Axes as the middle of three dimensions (before, the axes, after): Softmax
    opset 13's one axis 1."""
    shape = tuple(input_shapes[0])
    axes = sorted(params["Axes"])
    if not contiguous(axes):
        return (shape,)
    first, last = axes[0], axes[-1]
    size = lambda part: int(np.prod(part, dtype=np.int64))  # noqa: E731
    return ((size(shape[:first]), size(shape[first:last + 1]), size(shape[last + 1:])),)


WORDS = {SOFTMAX: ("a softmax activation function", "f(x[i]) = exp(x[i]) / sum(exp(x[0]), ..., exp(x[j-1]))"),
         LOG_SOFTMAX: ("a natural log-of-softmax activation function",
                       "f(x[i]) = ln(exp(x[i]) / sum(exp(x[0]), ..., exp(x[j-1])))"),
         HARDMAX: ("a hardmax function", "f(x[i]) = 1 at the first maximum of the slice, 0 elsewhere")}


def softmax_spec(kind: str, one: bool, summary: str, notes: tuple = ()) -> OperatorSpec:
    name = f"ACTIVATION_{kind}{'1' if one else ''}"
    struct = f"DML_{name}_OPERATOR_DESC"
    axes_parameter = (Parameter("Axes", "uint_array", None,
                                "The axes along which to reduce (" + ("hardmax" if kind == HARDMAX else "the sum")
                                + "). Values must be in the range [0, InputTensor.DimensionCount - 1].",
                                count="AxisCount"),) if one else ()
    flags = () if kind == HARDMAX else (execution_flags(),)
    slice_words = "the elements sharing x's coordinates off Axes" if one else "x's row (the last axis)"
    if kind == HARDMAX:
        axes_of = reduced_axes(one)
        outputs = (Output("OutputTensor", indicator_axes=axes_of,
                          allowed=lambda inputs, params: indices.positions_allowed(inputs, axes_of(params), np.max)),)
    else:
        outputs = (Output("OutputTensor"),)
    return OperatorSpec(
        name=name, struct=struct,
        formula=f"{WORDS[kind][1]}, over {slice_words}" + ("" if kind == HARDMAX else
                                                            ", computed as " + ("exp(x - m) / sum(exp(x - m))"
                                                                                if kind == SOFTMAX else
                                                                                "x - m - log(sum(exp(x - m)))")
                                                            + ", m the slice's maximum"),
        summary=summary,
        parameters=axes_parameter + flags,
        introduced="5_1" if one else "1_0",
        tables=AXES_TABLES if one else ACTIVATION_TABLES,
        in_place=False,
        constraints=SAME_TENSORS,
        tolerance_ulp={},
        ulp_tolerance=None if kind == HARDMAX else webnn_ulp(one),
        onnx_route=f"{ONNX[kind]} (opset 13) over " + ("Axes when adjacent, the input reshaped to (before, Axes, "
                                                       "after) and axis 1" if one else "axis -1"),
        to_onnx=onnx_route(kind, one),
        onnx_shapes=onnx_shapes if one else None,
        source=page(struct),
        family=NORMALIZATION,
        output_shapes_rule=same_shape,
        shape_check=axes_check if one else effective_rank_check,
        accumulation=() if kind == HARDMAX else formulas(kind, one),
        outputs=outputs,
        notes=notes + (("Axes: the page does not say what AxisCount 0 means: the harness refuses it at load, and an "
                        "axis named twice.",) if one else
                       ("The page allows an effective rank of at most 2 ({BatchCount, Width} after leftmost "
                        "dimensions of size 1): the slice is the last axis, every dimension but the batch one; "
                        "other shapes are refused at load.",)),
    )
