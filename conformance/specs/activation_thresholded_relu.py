import numpy as np

from conformance.specs.primitives import X, select
from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec, Parameter, around


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("ThresholdedRelu", 10, {"alpha": float(params["Alpha"])})


def special_values(dtype: str, params: dict) -> list:
    """Alpha and its neighbours in the tensor type, and in float32 (a float16 neighbour of Alpha
    rounded to float16 can lie on the other side of the float32 Alpha)."""
    alpha = np.float32(params["Alpha"])
    return around(alpha, dtype) + around(alpha, "float32")


SPEC = OperatorSpec(
    name="ACTIVATION_THRESHOLDED_RELU",
    struct="DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC",
    formula="f(x) = x if x > Alpha, else 0",
    summary="Thresholded rectified linear unit, element-wise.",
    parameters=(Parameter("Alpha", "float", 1.0, "The threshold; typical default 1.0."),),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="ThresholdedRelu (opset 10), attribute alpha (DirectML EP: DML_ACTIVATION_THRESHOLDED_RELU)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: select(X > p["Alpha"], X, 0.0),
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_thresholded_relu_operator_desc",
    notes=("The comparison is exact against the float32 Alpha (a float16 input is not compared with Alpha "
           "rounded to float16: the page is silent, and the field is a float32).",
           "NaN > Alpha is false, so f(NaN) = 0, as written.",
           "Exact operator: tolerance 0 (WebNN has no thresholded relu)."),
)
