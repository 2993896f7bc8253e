from conformance.specs.base import FLOATS, Input, OperatorSpec, Parameter, SupportTable, execution_flags, page
from conformance.specs.families import NORMALIZATION
from conformance.specs import normalizing as n
from conformance.specs import normalizing_onnx as routes
from oracle.mean_variance_normalization import axes


def _axes(params):
    return axes(params.get("CrossChannel", 0))


def _uses(params) -> tuple:
    """(subtracts the mean, divides by the spread)"""
    return True, bool(params.get("NormalizeVariance", 1))


SPEC = OperatorSpec(
    name="MEAN_VARIANCE_NORMALIZATION",
    struct="DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC",
    formula="Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias), Mean and "
            "Variance over {ChannelCount, Height, Width} (CrossChannel TRUE) or {Height, Width} (FALSE); "
            "NormalizeVariance FALSE: FusedActivation(Scale * (Input - Mean) + Bias)",
    summary="Performs a mean variance normalization function on the input tensor. This operator will calculate the "
            "mean and variance of the input tensor to perform normalization.",
    parameters=(*n.scale_bias_tensors(),
                n.boolean("CrossChannel", 0, "TRUE: Mean and Variance over axes {ChannelCount, Height, Width}; "
                          "FALSE: over {Height, Width}, each channel independent."),
                n.boolean("NormalizeVariance", 1, "TRUE if the Normalization layer includes Variance in the "
                          "normalization calculation."),
                Parameter("Epsilon", "float", 0.00001, "The epsilon value to use to avoid division by zero. A value "
                          "of 0.00001 is recommended as default."),
                n.fused_activation(),
                execution_flags()),
    inputs=(Input("InputTensor", broadcast=False), Input("ScaleTensor", optional=True),
            Input("BiasTensor", optional=True)),
    introduced="1_0",
    tables=(SupportTable("1_0", (4,), FLOATS),),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same Sizes. BiasTensor, InputTensor, OutputTensor, and "
                "ScaleTensor must have the same DataType.",
    tolerance_ulp={},
    ulp_tolerance=n.instance_norm_ulp,
    onnx_route=routes.ROUTE,
    to_onnx=lambda dtype, params: routes.to_onnx(dtype, params, *_uses(params), _axes(params)),
    onnx_undefined=routes.undefined(_axes, _uses),
    onnx_shapes=routes.shapes(_axes, _uses),
    source=page("DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC"),
    family=NORMALIZATION,
    output_shapes_rule=n.same_shape_output,
    shape_check=n.mean_variance_check(("CrossChannel", "NormalizeVariance"), _axes),
    accumulation=lambda params: n.mean_variance_alternatives(params, _axes, *_uses(params)),
    parameter_level=n.scale_bias_level,
    struct_order=("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor", "CrossChannel", "NormalizeVariance",
                  "Epsilon", "FusedActivation"),
    notes=n.MVN_NOTES + (
        "The page's one table has no feature-level heading: 4-D, FLOAT32 and FLOAT16, from 1_0.",
        "Scale and Bias: any dimension 1 (broadcast); one without the other from 5_2 (parameter_level).",),
)
