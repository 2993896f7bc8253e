from conformance.specs.accumulation import Sum, Then
from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, OnnxNode, OperatorSpec, Parameter, SupportTable,
                                    execution_flags, page)
from conformance.specs.families import NORMALIZATION
from conformance.specs import normalizing as n
from conformance.specs.primitives import X, abs_, input_, is_nan, maximum, rsqrt, select, sqrt
from oracle.rounding import float_param


def _along_axis(params):
    axis = int(params["Axis"])
    return lambda array: array.sum(axis=axis, keepdims=True)


def accumulation(params) -> tuple:
    """The page gives no formula: Input / (norm + Epsilon), Input / max(norm, Epsilon), and for P 2
    Input * rsqrt(sum + Epsilon), the union."""
    epsilon, s = float_param(params["Epsilon"]), input_("S")
    if int(params["P"]) == 1:
        summed, norm = Sum("S", abs_(X), _along_axis), s
    else:
        summed, norm = Sum("S", X * X, _along_axis), sqrt(s)
    # a NaN norm stays NaN in the max reading too (Direct3D's max would give Epsilon, a finite number the
    # union of alternatives would keep in place of every other reading's NaN)
    outputs = (X / (norm + epsilon), X / select(is_nan(s), s, maximum(norm, epsilon)))
    if int(params["P"]) == 2:
        outputs += (X * rsqrt(s + epsilon), X / sqrt(s + epsilon))
    return tuple((summed, Then("Output", output)) for output in outputs)


def shape_check(input_shapes, params) -> str | None:
    axis, rank = params.get("Axis"), len(input_shapes[0])
    if axis is None or not 0 <= int(axis) < rank:
        return f"Axis {axis} must be below InputTensor's DimensionCount {rank}"
    if params.get("P") not in (1, 2):
        return f"P {params.get('P')} must be 1 or 2"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if float(params["Epsilon"]) != 0.0:
        raise n.NotReachable("ONNX LpNormalization has no epsilon (x / norm): only Epsilon 0 is its formula")
    return OnnxNode("LpNormalization", 1, attributes={"axis": int(params["Axis"]), "p": int(params["P"])},
                    alone=True)


SPEC = OperatorSpec(
    name="LP_NORMALIZATION",
    struct="DML_LP_NORMALIZATION_OPERATOR_DESC",
    formula="Output = Input / Lp norm of Input along Axis (P 1: sum |x|; P 2: sqrt(sum x^2)), Epsilon avoiding "
            "division by zero (the page gives no formula)",
    summary="Performs an Lp-normalization function along the specified axis of the input tensor.",
    parameters=(Parameter("Axis", "uint", None, "The axis on which to apply normalization."),
                Parameter("Epsilon", "float", 0.00001, "The epsilon value to use to avoid division by zero. A value "
                          "of 0.00001 is recommended as default."),
                Parameter("P", "uint", 2, "The order of the normalization (either 1 or 2); the page gives no "
                          "default: ONNX's 2."),
                execution_flags()),
    introduced="1_0",
    tables=(SupportTable("3_1", ONE_TO_EIGHT, FLOATS), SupportTable("1_0", (4,), FLOATS)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType, DimensionCount, and Sizes.",
    tolerance_ulp={},
    onnx_route="LpNormalization (opset 1; axis = Axis, p = P) where Epsilon is 0: ONNX has no epsilon (x / norm)",
    to_onnx=to_onnx,
    source=page("DML_LP_NORMALIZATION_OPERATOR_DESC"),
    family=NORMALIZATION,
    output_shapes_rule=n.same_shape_output,
    shape_check=shape_check,
    accumulation=accumulation,
    notes=("The page gives no formula and does not say where Epsilon enters: the judge accepts Input / (norm + "
           "Epsilon), Input / max(norm, Epsilon), and for P 2 Input / sqrt(sum + Epsilon) and Input * rsqrt(sum + "
           "Epsilon) (the union: they differ only where the norm is near Epsilon); the oracle is Input / (norm + "
           "Epsilon). A NaN norm (a NaN term) gives NaN in every reading.",
           "The norm's sum in any order within gamma(n - 1) * sum |t| (float16 summed in float32 unless "
           "ExecutionFlags allow half precision), then sqrt (P 2) and the division with Direct3D's accuracy.",
           "WebNN has no Lp normalization: the `ulp` model is the case's tolerance."),
)
