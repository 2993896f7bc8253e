import numpy as np

from conformance.specs.activation_tanh import saturation
from conformance.specs.activation_tanh import tanh
from conformance.specs.primitives import X
from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec, Parameter


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # An experimental ONNX operator (removed at opset 10) that the DirectML EP still registers at 7.
    return OnnxNode("ScaledTanh", 7, {"alpha": float(params["Alpha"]), "beta": float(params["Beta"])})


def special_values(dtype: str, params: dict) -> list:
    return saturation(float(np.float32(params["Beta"])))


SPEC = OperatorSpec(
    name="ACTIVATION_SCALED_TANH",
    struct="DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC",
    formula="f(x) = Alpha * tanh(Beta * x)",
    summary="Scaled hyperbolic tangent, element-wise.",
    parameters=(Parameter("Alpha", "float", 1.0, "The value of alpha; typical default 1.0."),
                Parameter("Beta", "float", 0.5, "The value of beta; typical default 0.5.")),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 16, "float16": 16},
    onnx_route="ScaledTanh (experimental ONNX operator, opset 7), attributes alpha and beta "
               "(DirectML EP: DML_ACTIVATION_SCALED_TANH)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: p["Alpha"] * tanh(p["Beta"] * X),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_scaled_tanh_operator_desc",
    notes=("Tolerance: WebNN has no scaled tanh; 16 ULP as for TANH.",),
)
