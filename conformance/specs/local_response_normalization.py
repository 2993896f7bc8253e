import numpy as np

from conformance.specs.accumulation import Sum, Then
from conformance.specs.base import FLOATS, OnnxNode, OperatorSpec, Parameter, SupportTable, execution_flags, page
from conformance.specs.families import NORMALIZATION
from conformance.specs import normalizing as n
from conformance.specs.primitives import X, input_, pow_, rounded_constant
from oracle.local_response_normalization import region_axes, window_sums
from oracle.rounding import float_param


def _region(axes):
    def reduce(params):
        return lambda array: window_sums(array, axes, int(params["LocalSize"]))
    return reduce


def accumulation(params) -> tuple:
    """Output = Input / (Bias + (Alpha / LocalSize) * sum of squares)^Beta, or Input * (...)^-Beta; CrossChannel
    TRUE: the channel window (the earlier page, ONNX) or the channel, height and width window (the current page's
    words), the union."""
    size = int(params["LocalSize"])
    alpha, beta, bias = (float_param(params[k]) for k in ("Alpha", "Beta", "Bias"))
    readings = (region_axes(True), (1, 2, 3)) if params.get("CrossChannel", 1) else (region_axes(False),)
    base = bias + rounded_constant(alpha / size) * input_("S")
    result = []
    for axes in readings:
        for output in (X / pow_(base, beta), X * pow_(base, -beta)):
            result.append((Sum("S", X * X, _region(axes)), Then("Output", output)))
    return tuple(result)


def shape_check(input_shapes, params) -> str | None:
    problem = n.booleans_problem(params, ("CrossChannel",))
    if problem:
        return problem
    if int(params.get("LocalSize") or 0) < 1:
        return f"LocalSize {params.get('LocalSize')} must be at least 1"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if not params["CrossChannel"]:
        raise n.NotReachable("ONNX LRN sums across channels only (CrossChannel TRUE)")
    if int(params["LocalSize"]) % 2 == 0:  # ONNX defines even sizes; the kernel refuses them
        raise n.NotReachable("ONNX Runtime's CPU LRN refuses an even size (lrn.h: size_ % 2 == 1)")
    floats = {k.lower(): float(np.float32(params[k])) for k in ("Alpha", "Beta", "Bias")}
    return OnnxNode("LRN", 13, attributes={"size": int(params["LocalSize"]), **floats}, alone=True)


SPEC = OperatorSpec(
    name="LOCAL_RESPONSE_NORMALIZATION",
    struct="DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC",
    formula="Output = Input / (Bias + (Alpha / LocalSize) * sum(Input^2 for every Input in the local region))^Beta",
    summary="Performs a local response normalization (LRN) function on the input.",
    parameters=(n.boolean("CrossChannel", 1, "TRUE if the LRN layer sums across channels; otherwise, FALSE."),
                Parameter("LocalSize", "uint", 5, "The number of elements to sum over per dimension: Width, Height, "
                          "and optionally Channel (if CrossChannel is set). At least 1 (the page gives no default)."),
                Parameter("Alpha", "float", 0.0001, "The value of the scaling parameter. A value of 0.0001 is "
                          "recommended as default."),
                Parameter("Beta", "float", 0.75, "The value of the exponent. A value of 0.75 is recommended as "
                          "default."),
                Parameter("Bias", "float", 1.0, "The value of bias. A value of 1 is recommended as default."),
                execution_flags()),
    introduced="1_0",
    tables=(SupportTable("1_0", (4,), FLOATS),),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and Sizes.",
    tolerance_ulp={},
    onnx_route="LRN (opset 13; size = LocalSize, alpha, beta, bias) where CrossChannel is TRUE",
    to_onnx=to_onnx,
    source=page("DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC"),
    family=NORMALIZATION,
    output_shapes_rule=n.same_shape_output,
    shape_check=shape_check,
    accumulation=accumulation,
    notes=("The local region: the current page says LocalSize is \"the number of elements to sum over per "
           "dimension: Width, Height, and optionally Channel (if CrossChannel is set)\"; the earlier page (2018) "
           "says the region is across channels, c - floor((LocalSize - 1) / 2) to c + ceil((LocalSize - 1) / 2) "
           "within the tensor (ONNX's LRN). CrossChannel TRUE: the oracle is the channel window, and the judge "
           "accepts it or the window of LocalSize along channel, height and width (the union). CrossChannel FALSE: "
           "LocalSize along Height and along Width in the element's channel, with the same alignment; elements "
           "outside the tensor are not in the region. The divisor is Alpha / LocalSize as the formula writes it.",
           "The sum of squares in any order within gamma(n - 1) * sum |t| (float16 summed in float32 unless "
           "ExecutionFlags allow half precision); Alpha / LocalSize a float32 constant or exact; then the power "
           "as HLSL lowers pow (exp2(Beta * log2(base))), divided by or multiplied by the power of -Beta (the "
           "union).",
           "WebNN has no local response normalization: the `ulp` model is the case's tolerance."),
)
