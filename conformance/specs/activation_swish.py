import numpy as np

from conformance.specs.activation_sigmoid import exp_edges
from conformance.specs.primitives import X, exp
from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TENSORS, NotReachable, OperatorSpec, Parameter,
                                    SupportTable)


def to_onnx(dtype: str, params: dict):
    raise NotReachable("ONNX Runtime's DirectML EP registers no Swish kernel (onnxruntime-directml 1.24.4 "
                       "assigned ONNX Swish-24 to the CPU), so no ONNX node reaches DML_ACTIVATION_SWISH")


def special_values(dtype: str, params: dict) -> list:
    scale = float(np.float32(params["SigmoidInputScale"]))
    return exp_edges(-scale, dtype) + exp_edges(scale, dtype) + [-1e-3, 1e-3]


SPEC = OperatorSpec(
    name="ACTIVATION_SWISH",
    struct="DML_ACTIVATION_SWISH_OPERATOR_DESC",
    formula="f(x) = x * Sigmoid(SigmoidInputScale * x) = x / (1 + exp(-SigmoidInputScale * x))",
    summary="Swish (SiLU when SigmoidInputScale is 1), element-wise.",
    parameters=(Parameter("SigmoidInputScale", "float", 1.0, "The constant coefficient; typical default 1.0."),),
    introduced="6_2",
    tables=(SupportTable("6_2", ONE_TO_EIGHT, FLOATS),),
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 35, "float16": 11},
    onnx_route="none: ONNX Swish (opset 24, alpha) has no DirectML EP kernel (reached by dml-direct only)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: X * (1.0 / (1.0 + exp(-(p["SigmoidInputScale"] * X)))),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/ai/directml/api/ns-directml-dml_activation_swish_operator_desc",
    notes=("The page has one table (no per-level history): feature level 6_2, 1 to 8 dimensions.",
           "Where Sigmoid is 0 at an infinite x (x = -inf for a positive scale) the product is inf * 0 = NaN "
           "(IEEE), as written.",
           "DirectML 1.15.0 (feature level 6_3) fixed SWISH on strided input tensors (feature level history).",
           "Tolerance: WebNN has no swish; its sigmoid's (34 float32, 10 float16) plus one for the multiply."),
)
