from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, Input, OperatorSpec, Parameter, SupportTable,
                                    execution_flags, page)
from conformance.specs.families import NORMALIZATION
from conformance.specs import normalizing as n
from conformance.specs import normalizing_onnx as routes


def _axes(params):
    return params["Axes"]


def _uses(params) -> tuple:
    """(subtracts the mean, divides by the spread)"""
    return True, bool(params.get("NormalizeVariance", 1))


SPEC = OperatorSpec(
    name="MEAN_VARIANCE_NORMALIZATION1",
    struct="DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC",
    formula="Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias), Mean and "
            "Variance along Axes; NormalizeVariance FALSE: FusedActivation(Scale * (Input - Mean) + Bias)",
    summary="Performs a mean variance normalization function on the input tensor. This operator will calculate the "
            "mean and variance of the input tensor to perform normalization.",
    parameters=(*n.scale_bias_tensors(),
                Parameter("Axes", "uint_array", None, "The axes along which to calculate the Mean and Variance.",
                          count="AxisCount"),
                n.boolean("NormalizeVariance", 1, "TRUE if the Normalization layer includes Variance in the "
                          "normalization calculation."),
                Parameter("Epsilon", "float", 0.00001, "The epsilon value to use to avoid division by zero. A value "
                          "of 0.00001 is recommended as default."),
                n.fused_activation(),
                execution_flags()),
    inputs=(Input("InputTensor", broadcast=False), Input("ScaleTensor", optional=True),
            Input("BiasTensor", optional=True)),
    introduced="2_1",
    tables=(SupportTable("3_1", ONE_TO_EIGHT, FLOATS), SupportTable("2_1", (4,), FLOATS)),
    in_place=False,
    constraints="BiasTensor, InputTensor, OutputTensor, and ScaleTensor must have the same DataType and "
                "DimensionCount.",
    tolerance_ulp={},
    ulp_tolerance=n.instance_norm_ulp,
    onnx_route=routes.ROUTE,
    to_onnx=lambda dtype, params: routes.to_onnx(dtype, params, *_uses(params), _axes(params)),
    onnx_undefined=routes.undefined(_axes, _uses),
    onnx_shapes=routes.shapes(_axes, _uses),
    source=page("DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC"),
    family=NORMALIZATION,
    output_shapes_rule=n.same_shape_output,
    shape_check=n.mean_variance_check(("NormalizeVariance",), _axes),
    accumulation=lambda params: n.mean_variance_alternatives(params, _axes, *_uses(params)),
    parameter_level=n.scale_bias_level,
    struct_order=("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor", "AxisCount", "Axes",
                  "NormalizeVariance", "Epsilon", "FusedActivation"),
    notes=n.MVN_NOTES + (
        "Setting Axes to {2, 3} is MEAN_VARIANCE_NORMALIZATION's CrossChannel FALSE, {1, 2, 3} its TRUE (the page's "
        "Remarks).",
        "Scale and Bias: any dimension 1 (broadcast) from 4_0; before 4_0 their channel dimension must be the "
        "input's (not checked: a case's level is by data type, rank and the fields). One without the other from "
        "5_2 (parameter_level).",),
)
