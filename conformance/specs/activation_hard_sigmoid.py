import numpy as np

from conformance.specs.primitives import X, maximum, minimum
from conformance.specs.base import (ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec, Parameter,
                                    around)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("HardSigmoid", 6, {"alpha": float(params["Alpha"]), "beta": float(params["Beta"])})


def hard_sigmoid(alpha, beta):
    """max(0, min(Alpha * X + Beta, 1)) in primitives; also HARD_SWISH's HardSigmoid."""
    return maximum(0.0, minimum(alpha * X + beta, 1.0))


def kinks(dtype: str, params: dict) -> list:
    """The inputs where Alpha * x + Beta reaches 0 and 1, and their neighbours in the tensor type."""
    alpha, beta = float(np.float32(params["Alpha"])), float(np.float32(params["Beta"]))
    if alpha == 0:
        return []
    return [v for edge in (-beta / alpha, (1.0 - beta) / alpha) for v in around(edge, dtype)]


SPEC = OperatorSpec(
    name="ACTIVATION_HARD_SIGMOID",
    struct="DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC",
    formula="f(x) = max(0, min(Alpha * x + Beta, 1))",
    summary="Hard sigmoid, element-wise.",
    parameters=(Parameter("Alpha", "float", 0.2, "The alpha coefficient; typical default 0.2."),
                Parameter("Beta", "float", 0.5, "The beta coefficient; typical default 0.5.")),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 2, "float16": 2},
    onnx_route="HardSigmoid (opset 6), attributes alpha and beta (DirectML EP: DML_ACTIVATION_HARD_SIGMOID)",
    to_onnx=to_onnx,
    special_values=kinks,
    d3d=lambda p: hard_sigmoid(p["Alpha"], p["Beta"]),
    keeps_sign=True,
    output_range=lambda params, dtype: (0.0, 1.0),
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_hard_sigmoid_operator_desc",
    notes=("NaN: Direct3D min/max return the non-NaN operand, so f(NaN) = max(0, min(NaN, 1)) = 1.",
           "Tolerance: WebNN's hardSigmoid (2 ULP float32 and float16)."),
)
