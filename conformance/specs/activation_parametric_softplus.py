import numpy as np

from conformance.specs.activation_sigmoid import exp_edges
from conformance.specs.activation_softplus import softplus
from conformance.specs.primitives import X
from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec, Parameter


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # An experimental ONNX operator (removed at opset 10) that the DirectML EP still registers at 7.
    return OnnxNode("ParametricSoftplus", 7, {"alpha": float(params["Alpha"]), "beta": float(params["Beta"])})


def special_values(dtype: str, params: dict) -> list:
    return exp_edges(float(np.float32(params["Beta"])), dtype) + [-1e-3, 1e-3]


SPEC = OperatorSpec(
    name="ACTIVATION_PARAMETRIC_SOFTPLUS",
    struct="DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC",
    formula="f(x) = Alpha * ln(1 + exp(Beta * x))",
    summary="Parametric softplus, element-wise.",
    parameters=(Parameter("Alpha", "float", 1.0, "The alpha coefficient (the page gives no typical value)."),
                Parameter("Beta", "float", 1.0, "The beta coefficient (the page gives no typical value).")),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 18, "float16": 18},
    onnx_route="ParametricSoftplus (experimental ONNX operator, opset 7), attributes alpha and beta "
               "(DirectML EP: DML_ACTIVATION_PARAMETRIC_SOFTPLUS)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: p["Alpha"] * softplus(p["Beta"] * X),
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_parametric_softplus_operator_desc",
    notes=("The page gives no typical Alpha and Beta: 1 and 1 (plain softplus) are the harness's defaults.",
           "Tolerance: WebNN has no parametric softplus; its softplus's (18 ULP float32 and float16)."),
)
