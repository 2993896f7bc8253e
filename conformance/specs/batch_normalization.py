import numpy as np

from conformance.specs.accumulation import Then
from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, Input, OnnxNode, OperatorSpec, Parameter, SupportTable,
                                    execution_flags, page)
from conformance.specs.families import NORMALIZATION
from conformance.specs import normalizing as n
from conformance.specs.primitives import X, input_
from oracle.rounding import float_param

STATISTICS = ("Mean", "Variance", "Scale", "Bias")


def accumulation(params) -> tuple:
    """No sum: the page's formula element-wise, / sqrt as written or * rsqrt; or folded into one factor and
    one shift per element of the statistics, Input * f + (Bias - Mean * f) with f = Scale * rsqrt(Variance +
    Epsilon) (inference batch normalization's usual form; DirectML on lavapipe computes it so). The union."""
    epsilon = float_param(params["Epsilon"])
    centred = X - input_("Mean")
    page_order = tuple(n.affine(value, {"Scale", "Bias"}) for value in n.scaled(centred, epsilon))
    folded = tuple(X * factor + (input_("Bias") - input_("Mean") * factor)
                   for factor in n.scaled(input_("Scale"), epsilon))
    return tuple((Then("Output", n.activated(value, params)),) for value in page_order + folded)


def shape_check(input_shapes, params) -> str | None:
    problem = n.broadcast_to_input(input_shapes, params) or n.booleans_problem(params, ("Spatial",))
    if problem:
        return problem
    if params.get("Spatial") == 0 and len(input_shapes[0]) >= 2:
        for name, shape in zip(("Mean", "Variance"), input_shapes[1:3]):
            if tuple(shape[-2:]) != tuple(input_shapes[0][-2:]):
                return f"Spatial FALSE: {name}Tensor's Height and Width must not be broadcast (the page)"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    n.onnx_no_fused(params, "BatchNormalization")
    # ONNX's inputs: X, scale, B, input_mean, input_var
    return OnnxNode("BatchNormalization", 15, attributes={"epsilon": float(np.float32(params["Epsilon"]))},
                    input_order=(0, 3, 4, 1, 2), alone=True)


SPEC = OperatorSpec(
    name="BATCH_NORMALIZATION",
    struct="DML_BATCH_NORMALIZATION_OPERATOR_DESC",
    formula="Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias)",
    summary="Performs a batch normalization on the input.",
    parameters=(n.boolean("Spatial", 1, "TRUE to specify that locations are spatial. FALSE requires the Width and "
                          "Height dimensions of MeanTensor and VarianceTensor to not be broadcast. Deprecated in "
                          "4_0: no effect."),
                Parameter("Epsilon", "float", 0.00001, "The epsilon value to use to avoid division by zero (the page "
                          "gives no default: the other normalizations' 0.00001)."),
                n.fused_activation(),
                execution_flags()),
    inputs=(Input("InputTensor", broadcast=False),) + tuple(Input(s + "Tensor") for s in STATISTICS),
    introduced="1_0",
    tables=(SupportTable("3_1", ONE_TO_EIGHT, FLOATS), SupportTable("1_0", (4,), FLOATS)),
    in_place=False,
    constraints="BiasTensor, InputTensor, MeanTensor, OutputTensor, ScaleTensor, and VarianceTensor must have the "
                "same DataType and DimensionCount. InputTensor and OutputTensor must have the same Sizes.",
    tolerance_ulp={},
    ulp_tolerance=n.batch_norm_ulp,
    onnx_route="BatchNormalization (opset 15, inference: training_mode 0) with Mean, Variance, Scale and Bias "
               "per channel (DirectML's {1, C, 1, ...} tensors as ONNX's [C]); no fused activation",
    to_onnx=to_onnx,
    onnx_shapes=n.onnx_channel_vectors,
    onnx_undefined=n.onnx_per_channel,
    source=page("DML_BATCH_NORMALIZATION_OPERATOR_DESC"),
    family=NORMALIZATION,
    output_shapes_rule=n.same_shape_output,
    shape_check=shape_check,
    accumulation=accumulation,
    struct_order=("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor", "OutputTensor",
                  "Spatial", "Epsilon", "FusedActivation"),
    notes=("No sum: Mean and Variance are given tensors. The page's formula element-wise with Direct3D's accuracy "
           "(/ sqrt(Variance + Epsilon) as written, or * rsqrt(...)), in the order Scale * (normalized) + Bias, or "
           "folded as inference batch normalization usually is: Input * f + (Bias - Mean * f), f = Scale / "
           "sqrt(Variance + Epsilon) (DirectML 1.15.4 on lavapipe matches the folded form: 12 of 120 elements "
           "differ from it by an ULP, 54 from the page's order); the union of the four, then the fused "
           "activation's own d3d formula (every fusable activation). The folded form cancels where Input * f and "
           "the shift are large and of opposite signs: its bound widens there.",
           "Mean, Variance, Scale and Bias: any dimension 1 (broadcast), otherwise the input's (the page). Spatial "
           "FALSE with Mean or Variance broadcast along Height or Width is refused at load: the page forbids it "
           "before 4_0 (from 4_0 Spatial has no effect, but a case's level does not follow from its shapes).",
           "The `ulp` model: WebNN's batchNormalization count, 6 ULP (float32 and float16).",
           "The ONNX route reaches only cases whose Mean, Variance, Scale and Bias are per channel ({1, C, 1, ...}): "
           "the case file's cpu cases are those."),
)
