import numpy as np

from conformance.specs.primitives import X, select
from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec, Parameter


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("LeakyRelu", 6, {"alpha": float(params["Alpha"])})


def special_values(dtype: str, params: dict) -> list:
    """Where Alpha * x leaves the finite range (|Alpha| > 1) or the normal range (|Alpha| < 1)."""
    alpha = abs(float(np.float32(params["Alpha"])))
    finfo = np.finfo(dtype)
    if alpha == 0:
        return []
    edges = [-float(finfo.max) / alpha, -float(finfo.smallest_normal) / alpha]
    return [e * s for e in edges for s in (0.999, 1.001) if abs(e * s) <= float(finfo.max)]


SPEC = OperatorSpec(
    name="ACTIVATION_LEAKY_RELU",
    struct="DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC",
    formula="f(x) = x if x >= 0, else Alpha * x",
    summary="Leaky rectified linear unit, element-wise.",
    parameters=(Parameter("Alpha", "float", 0.01, "The alpha coefficient; typical default 0.01."),),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 1, "float16": 2},
    onnx_route="LeakyRelu (opset 6), attribute alpha (DirectML EP: DML_ACTIVATION_LEAKY_RELU)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: select(X >= 0.0, X, p["Alpha"] * X),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_leaky_relu_operator_desc",
    notes=("NaN: x >= 0 is false, so f(NaN) = Alpha * NaN = NaN; f(-0) = -0 (-0 >= 0).",
           "Tolerance: WebNN's leakyRelu (1 ULP float32, 2 ULP float16)."),
)
