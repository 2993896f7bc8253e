"""The normalizations' shared page facts and formula steps (MEAN_VARIANCE_NORMALIZATION, 1 and 2,
BATCH_NORMALIZATION, BATCH_NORMALIZATION_TRAINING, LOCAL_RESPONSE_NORMALIZATION, LP_NORMALIZATION),
judged by the sound interval of their steps (conformance/specs/accumulation.py,
conformance/judge/accumulated.py).

The pages name Mean and Variance without saying how they are computed, so a device may take either
method: two passes (Variance = sum((x - Mean)^2) / n) or one (sum(x^2) / n - Mean^2, ONNX's own
function body); and / sqrt(Variance + Epsilon) either as the page writes it or as * rsqrt(...).
The accepted set is the union of those alternatives."""
import numpy as np

from oracle.rounding import float_param

from conformance.specs import fused
from conformance.specs.accumulation import Sum, Then, count_of
from conformance.specs.base import ABSENT, NotReachable, Parameter, optional_tensor
from conformance.specs.primitives import X, abs_, input_, rsqrt, sqrt, stored, substitute

PRESENT_BOTH_BEFORE = "5_2"  # ScaleTensor and BiasTensor each nullable alone from 5_2 (MVN pages)
WEBNN_INSTANCE_NORM_ULP = {"float32": 840, "float16": 8400}  # webnn/resources/utils.js instanceNormalization
WEBNN_BATCH_NORM_ULP = {"float32": 6, "float16": 6}  # batchNormalization


def fused_activation() -> Parameter:
    return Parameter("FusedActivation", "fused_activation", None,
                     "_Maybenull_ const DML_OPERATOR_DESC*: an optional activation applied after the normalization; "
                     "one of the fusable activations, its tensors NULL.", choices=fused.FUSABLE)


def scale_bias_tensors() -> tuple:
    return (optional_tensor("ScaleTensor", "Absent: Scale is 1."), optional_tensor("BiasTensor", "Absent: Bias is 0."))


def activated(value, params: dict):
    """FusedActivation's own d3d formula of value, as the unfused normalization's output tensor holds it
    (float16: rounded) or the fused shader keeps it (ELEMENT_WISE_ADD1's reading)."""
    chosen = params.get("FusedActivation")
    if chosen is None:
        return value
    _, fields = fused.split(chosen)
    return substitute(fused.formula(chosen, {k: float_param(v) for k, v in fields.items()}), stored(value))


def summed_over(axes_of):
    """A Sum's reduce: over the axes axes_of(params) gives, kept as size 1."""
    def reduce(params):
        axes = tuple(sorted(int(a) for a in axes_of(params)))
        return lambda array: np.sum(array, axis=axes, keepdims=True)
    return reduce


def statistics_steps(reduce, centred: bool = True, mean: str = "Mean", variance: str = "Variance",
                     shaped: bool = False) -> tuple:
    """Alternatives of steps giving the steps mean and variance (about the mean, or about 0 where not centred);
    shaped: reduce reads the inputs' shapes (accumulation.Sum.shaped)."""
    m = input_(mean)
    first = (Sum("S", X, reduce, shaped), Then(mean, input_("S") / count_of("S")))
    deviation = abs_(X - m) if centred else abs_(X)
    two_pass = first + (Sum("Q", deviation * deviation, reduce, shaped), Then(variance, input_("Q") / count_of("Q")))
    if not centred:
        return (two_pass,)
    one_pass = first + (Sum("Q", X * X, reduce, shaped), Then(variance, input_("Q") / count_of("Q") - m * m))
    return two_pass, one_pass


def scaled(centred, epsilon: float, use_variance: bool = True, variance: str = "Variance") -> tuple:
    """centred / sqrt(Variance + Epsilon), as the pages write it or with rsqrt; centred alone without variance."""
    if not use_variance:
        return (centred,)
    spread = input_(variance) + epsilon
    return centred / sqrt(spread), centred * rsqrt(spread)


def affine(value, present: set, scale="Scale", bias="Bias"):
    value = input_(scale) * value if scale in present else value
    return value + input_(bias) if bias in present else value


def present(params: dict, names=("Scale", "Bias")) -> set:
    return {name for name in names if params.get(name + "Tensor") != ABSENT}


def mean_variance_alternatives(params: dict, axes_of, use_mean: bool, use_variance: bool) -> tuple:
    """The MEAN_VARIANCE_NORMALIZATION versions' formula: FusedActivation(Scale * ((Input - Mean) /
    sqrt(Variance + Epsilon)) + Bias), every alternative of computing it."""
    reduce, bound = summed_over(axes_of), present(params)
    result = []
    for stats in statistics_steps(reduce, centred=use_mean):
        centred = X - input_("Mean") if use_mean else X
        for value in scaled(centred, float_param(params["Epsilon"]), use_variance):
            result.append(stats + (Then("Output", activated(affine(value, bound), params)),))
    return tuple(result)


def same_shape_output(input_shapes, params) -> tuple:
    """OutputTensor has InputTensor's sizes."""
    return (tuple(int(n) for n in input_shapes[0]),)


def broadcast_to_input(input_shapes, params) -> str | None:
    """Every other input of the input's dimension count, each dimension the input's or 1."""
    first = input_shapes[0]
    for shape in input_shapes[1:]:
        if len(shape) != len(first) or any(n not in (1, m) for n, m in zip(shape, first)):
            return (f"an input of sizes {list(shape)} does not broadcast to InputTensor's {list(first)} "
                    "(each dimension the input's or 1, one dimension count)")
    return None


def scale_bias_level(params) -> str | None:
    """Scale without Bias, or Bias without Scale: from 5_2 (the MVN pages)."""
    return PRESENT_BOTH_BEFORE if len(present(params)) == 1 else None


def instance_norm_ulp(input_shapes, params, dtype) -> int:
    """The `ulp` model: WebNN's instanceNormalization count (layerNormalization's is an absolute 1/1024, no
    ULP count: not used)."""
    return WEBNN_INSTANCE_NORM_ULP[dtype]


def batch_norm_ulp(input_shapes, params, dtype) -> int:
    return WEBNN_BATCH_NORM_ULP[dtype]


def onnx_no_fused(params: dict, node: str):
    if params.get("FusedActivation") is not None:
        raise NotReachable(f"FusedActivation: ONNX {node} has no fused activation (the CPU provider runs no fusion)")


MVN_NOTES = (
    "The page names Mean and Variance without saying how they are computed: the judge accepts either method, "
    "two passes (Variance = sum((x - Mean)^2) / n) or one (sum(x^2) / n - Mean^2, ONNX's function body), and "
    "/ sqrt(Variance + Epsilon) as written or as * rsqrt(...): the union of the four. The one-pass method's "
    "bound grows with Mean^2 / Variance (cancellation), so a large mean over a small spread is loosely bounded; "
    "where its Variance may come within Epsilon of 0 or below it (a mean of 1000 over a spread of 1 in float32, a "
    "single element whose Mean is S * rcp(1)), any finite number is its result and the element accepts any (a "
    "NaN there is no way of computing the page's result: conformance/judge/accumulated.py's alternatives).",
    "Variance is the population variance (divided by n): the page does not say; ONNX's MeanVarianceNormalization, "
    "InstanceNormalization and LayerNormalization, which DirectML implements with this operator, divide by n.",
    "Mean = sum / n and each Variance sum in any order within gamma(n - 1) * sum |t| (float16 tensors summed in "
    "float32 unless ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION), then the page's formula with "
    "Direct3D's accuracy, in the order Scale * (normalized) + Bias.",
    "FusedActivation: every fusable activation, its own d3d formula applied to the normalized value as the "
    "unfused output tensor holds it or as the fused shader keeps it (ELEMENT_WISE_ADD1's reading); the oracle "
    "is the activation's own oracle on the normalized value rounded to the tensor type.",
    "The `ulp` model: WebNN's instanceNormalization count (840 ULP float32, 8400 float16). WebNN's "
    "layerNormalization tolerance is an absolute 1/1024 (float32), 1/512 (float16): no ULP count, not used.",
)


def boolean(name: str, default: int, description: str) -> Parameter:
    """A BOOL field: 0 (FALSE) or 1 (TRUE)."""
    return Parameter(name, "int", default, f"A BOOL, 0 or 1: {description}")


def booleans_problem(params: dict, names) -> str | None:
    for name in names:
        if params.get(name) not in (0, 1):
            return f"{name} is a BOOL: 0 (FALSE) or 1 (TRUE), not {params.get(name)!r}"
    return None


def axes_problem(axes, rank: int) -> str | None:
    if not axes:
        return "Axes is required: the axes along which to calculate the Mean and Variance"
    if any(not 0 <= a < rank for a in axes):
        return f"Axes {list(axes)}: each must be below InputTensor's DimensionCount {rank}"
    if len(set(axes)) != len(axes):
        return f"Axes {list(axes)} names an axis twice"
    return None


def mean_variance_check(booleans: tuple, axes_of):
    """The MVN versions' shape check: Scale and Bias broadcast to the input, BOOL fields, the axes."""
    def check(input_shapes, params) -> str | None:
        return (broadcast_to_input(input_shapes, params) or booleans_problem(params, booleans)
                or axes_problem(tuple(axes_of(params)), len(input_shapes[0])))
    return check


def onnx_per_channel(x, dtype: str, params: dict) -> str | None:
    """ONNX's BatchNormalization takes its statistics, Scale and Bias as [C]: only DirectML tensors of sizes
    {1, C, 1, ...} have that form (onnx_undefined)."""
    data = np.shape(x[0])
    per_channel = len(data) >= 2 and all(np.shape(v) == tuple(data[1] if i == 1 else 1 for i in range(len(data)))
                                         for v in x[1:])
    return None if per_channel else ("ONNX BatchNormalization takes Mean, Variance, Scale and Bias per channel ([C]) "
                                     "alone")


def onnx_channel_vectors(input_shapes, params) -> tuple:
    """The input as it is, the per-channel tensors as ONNX's [C] (onnx_shapes)."""
    return (tuple(input_shapes[0]),) + tuple((int(np.prod(s)),) for s in input_shapes[1:])
