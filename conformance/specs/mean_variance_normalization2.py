from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, Input, OperatorSpec, Parameter, SupportTable,
                                    execution_flags)
from conformance.specs.families import NORMALIZATION
from conformance.specs import normalizing as n
from conformance.specs import normalizing_onnx as routes


SOURCE = ("https://learn.microsoft.com/windows/ai/directml/api/"
          "ns-directml-dml_mean_variance_normalization2_operator_desc")  # windows-ai-docs: no sdk-api page


def _axes(params):
    return params["Axes"]


def _uses(params) -> tuple:
    """(subtracts the mean, divides by the spread)"""
    return bool(params.get("UseMean", 1)), bool(params.get("UseVariance", 1))


SPEC = OperatorSpec(
    name="MEAN_VARIANCE_NORMALIZATION2",
    struct="DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC",
    formula="TBD on the page; inferred: Output = FusedActivation(Scale * ((Input - C) / D) + Bias), C = Mean along "
            "Axes where UseMean (else 0), D = sqrt(Variance + Epsilon) where UseVariance (else 1), Variance the mean "
            "of (Input - C)^2",
    summary="TBD (the page's description).",
    parameters=(*n.scale_bias_tensors(),
                Parameter("Axes", "uint_array", None, "The axes along which to calculate the Mean and Variance.",
                          count="AxisCount"),
                n.boolean("UseMean", 1, "TBD (the page). Inferred: subtract the Mean."),
                n.boolean("UseVariance", 1, "TBD (the page). Inferred: divide by sqrt(Variance + Epsilon)."),
                Parameter("Epsilon", "float", 0.00001, "The epsilon value to use to avoid division by zero. A value "
                          "of 0.00001 is recommended as default."),
                n.fused_activation(),
                execution_flags()),
    inputs=(Input("InputTensor", broadcast=False), Input("ScaleTensor", optional=True),
            Input("BiasTensor", optional=True)),
    introduced="6_3",
    tables=(SupportTable("6_3", ONE_TO_EIGHT, FLOATS),),
    in_place=False,
    constraints="BiasTensor, InputTensor, OutputTensor, and ScaleTensor must have the same DataType and "
                "DimensionCount.",
    tolerance_ulp={},
    ulp_tolerance=n.instance_norm_ulp,
    onnx_route=routes.ROUTE,
    to_onnx=lambda dtype, params: routes.to_onnx(dtype, params, *_uses(params), _axes(params)),
    onnx_undefined=routes.undefined(_axes, _uses),
    onnx_shapes=routes.shapes(_axes, _uses),
    source=SOURCE,
    family=NORMALIZATION,
    output_shapes_rule=n.same_shape_output,
    shape_check=n.mean_variance_check(("UseMean", "UseVariance"), _axes),
    accumulation=lambda params: n.mean_variance_alternatives(params, _axes, *_uses(params)),
    struct_order=("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor", "AxisCount", "Axes", "UseMean",
                  "UseVariance", "Epsilon", "FusedActivation"),
    notes=("The page (MicrosoftDocs/windows-ai-docs, 02/14/2025) is a stub: its description and the UseMean and "
           "UseVariance fields are \"TBD\"; it gives the struct, the Scale, Bias, Axes and Epsilon texts of "
           "MEAN_VARIANCE_NORMALIZATION1, one table (1 to 8-D, FLOAT32 and FLOAT16, from 6_3) and no formula.",
           "The formula is INFERRED from MEAN_VARIANCE_NORMALIZATION1 (NormalizeVariance split in two): UseMean "
           "subtracts the Mean, UseVariance divides by sqrt(Variance + Epsilon), Variance about the Mean, or about 0 "
           "where UseMean is FALSE (RMS normalization: ONNX Runtime's DirectML provider sets UseMean FALSE, "
           "UseVariance TRUE for SimplifiedLayerNormalization). Not documented by the page.",
           "The Scale and Bias texts' branches for levels below 4_0 and 5_2 cannot apply to an operator of 6_3: "
           "any dimension 1 (broadcast), each nullable alone.") + n.MVN_NOTES,
)
