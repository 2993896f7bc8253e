from conformance.specs.accumulation import Then
import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, Input, NotReachable, OnnxNode, OperatorSpec, Output,
                                    Parameter, SupportTable, execution_flags, optional_tensor, page)
from conformance.specs.families import NORMALIZATION
from conformance.specs import normalizing as n
from conformance.specs.primitives import X, input_
from oracle.batch_normalization_training import reduced_axes
from oracle.rounding import float_param


def _reduce(params, shapes):
    """Over the dimensions where ScaleTensor's sizes are 1 (the page)."""
    axes = reduced_axes(shapes[1])
    return lambda array: array.sum(axis=axes, keepdims=True)


def accumulation(params) -> tuple:
    added = {"FusedAdd"} if params.get("FusedAddTensor") != n.ABSENT else set()
    result = []
    for stats in n.statistics_steps(_reduce, mean="OutputMean", variance="OutputVariance", shaped=True):
        for value in n.scaled(X - input_("OutputMean"), float_param(params["Epsilon"]), variance="OutputVariance"):
            total = n.affine(value, {"Scale", "Bias"})
            total = total + input_("FusedAdd") if added else total
            result.append(stats + (Then("Output", n.activated(total, params)),))
    return tuple(result)


def output_shapes(input_shapes, params) -> tuple:
    """Output: the input's sizes; OutputMean and OutputVariance: Scale's."""
    return tuple(input_shapes[0]), tuple(input_shapes[1]), tuple(input_shapes[1])


def shape_check(input_shapes, params) -> str | None:
    problem = n.broadcast_to_input(input_shapes, params)
    if problem:
        return problem
    scale, bias = input_shapes[1], input_shapes[2]
    if tuple(scale) != tuple(bias):
        return f"ScaleTensor {list(scale)} and BiasTensor {list(bias)} must have the same Sizes"
    if len(input_shapes) > 3 and tuple(input_shapes[3]) != tuple(input_shapes[0]):
        return f"FusedAddTensor {list(input_shapes[3])} must have InputTensor's Sizes {list(input_shapes[0])}"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """BatchNormalization in training mode with momentum 0: its running statistics are the batch's (input_mean *
    0 + current_mean). Its input_mean and input_var are Bias and Scale again (any [C] values: times 0)."""
    if params.get("FusedAddTensor") != n.ABSENT:
        raise NotReachable("ONNX BatchNormalization adds no FusedAddTensor")
    n.onnx_no_fused(params, "BatchNormalization")
    if dtype != "float32":  # seen: 120 of 120 outputs wrong; zeros and ones as input_mean and input_var are right
        raise NotReachable("ONNX Runtime's CPU float16 BatchNormalization in training mode gives a wrong Output when "
                           "its input_mean and input_var are its Bias and Scale again, as this route feeds them (the "
                           "route cannot shape [C] constants of its own)")
    return OnnxNode("BatchNormalization", 15, attributes={"epsilon": float(np.float32(params["Epsilon"])),
                                                          "momentum": 0.0, "training_mode": 1},
                    input_order=(0, 1, 2, 2, 1), outputs=3, alone=True)


SPEC = OperatorSpec(
    name="BATCH_NORMALIZATION_TRAINING",
    struct="DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC",
    formula="Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias + FusedAdd); "
            "OutputMean and OutputVariance the Input's mean and variance across the dimensions where Scale's and "
            "Bias's sizes are 1",
    summary="Performs a batch normalization on the input.",
    parameters=(optional_tensor("FusedAddTensor", "Absent: nothing added."),
                Parameter("Epsilon", "float", 0.00001, "The epsilon value to use to avoid division by zero (the page "
                          "gives no default: the other normalizations' 0.00001)."),
                n.fused_activation(),
                execution_flags()),
    inputs=(Input("InputTensor", broadcast=False), Input("ScaleTensor", broadcast=False),
            Input("BiasTensor", broadcast=False), Input("FusedAddTensor", broadcast=False, optional=True)),
    outputs=(Output("OutputTensor"), Output("OutputMeanTensor"), Output("OutputVarianceTensor")),
    introduced="4_1",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, FLOATS),),
    in_place=False,
    constraints="BiasTensor, FusedAddTensor, InputTensor, OutputMeanTensor, OutputTensor, OutputVarianceTensor, and "
                "ScaleTensor must have the same DataType and DimensionCount. BiasTensor, OutputMeanTensor, "
                "OutputVarianceTensor, and ScaleTensor must have the same Sizes. FusedAddTensor, InputTensor, and "
                "OutputTensor must have the same Sizes.",
    tolerance_ulp={},
    ulp_tolerance=n.batch_norm_ulp,
    onnx_route="BatchNormalization (opset 15, training_mode 1, momentum 0: the running statistics are the batch's) "
               "with Scale and Bias per channel, no FusedAdd, no fused activation",
    to_onnx=to_onnx,
    onnx_shapes=n.onnx_channel_vectors,
    onnx_undefined=n.onnx_per_channel,
    source=page("DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC"),
    family=NORMALIZATION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    accumulation=accumulation,
    struct_order=("InputTensor", "ScaleTensor", "BiasTensor", "FusedAddTensor", "OutputTensor", "OutputMeanTensor",
                  "OutputVarianceTensor", "Epsilon", "FusedActivation"),
    notes=("OutputMean = sum / n and OutputVariance (population: divided by n, as ONNX's training BatchNormalization; "
           "the page does not say) over the dimensions where ScaleTensor's sizes are 1, by two passes or one (the "
           "page does not say how: the union), each sum in any order within gamma(n - 1) * sum |t| (float16 summed "
           "in float32 unless ExecutionFlags allow half precision); Output the page's formula of those with "
           "Direct3D's accuracy (/ sqrt as written or * rsqrt), FusedAdd added before the fused activation's own "
           "d3d formula.",
           "Scale and Bias: any dimension 1, otherwise the input's; they have one shape, which OutputMean and "
           "OutputVariance take. Inputs in their own shapes (a case's `shapes` or `broadcast`).",
           "The `ulp` model: WebNN's batchNormalization count, 6 ULP (WebNN has no training batch normalization).") +
          n.MVN_NOTES[3:4],
)
