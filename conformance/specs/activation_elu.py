import numpy as np

from conformance.specs.primitives import X, exp, select
from conformance.specs.base import (ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec, Parameter)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Elu", 6, {"alpha": float(params["Alpha"])})


def special_values(dtype: str, params: dict) -> list:
    """Either side of where exp(x) underflows in float32 and in the tensor type, and tiny negatives
    (exp(x) - 1 loses everything there unless computed with care)."""
    values = []
    for finfo in (np.finfo(np.float32), np.finfo(dtype)):
        log_tiny = float(np.log(float(finfo.smallest_subnormal)))
        values += [log_tiny * 0.999, log_tiny * 1.001]
    return values + [-1e-3, 1e-3, -1e-7, -1e-30]


SPEC = OperatorSpec(
    name="ACTIVATION_ELU",
    struct="DML_ACTIVATION_ELU_OPERATOR_DESC",
    formula="f(x) = x if x >= 0, else Alpha * (exp(x) - 1)",
    summary="Exponential linear unit, element-wise.",
    parameters=(Parameter("Alpha", "float", 1.0, "The alpha coefficient; typical default 1.0."),),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 18, "float16": 18},
    onnx_route="Elu (opset 6), attribute alpha (DirectML EP: DML_ACTIVATION_ELU)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: select(X >= 0.0, X, p["Alpha"] * (exp(X) - 1.0)),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_elu_operator_desc",
    notes=("NaN: x >= 0 is false, so f(NaN) = Alpha * (exp(NaN) - 1) = NaN.",
           "Tolerance: WebNN's elu (18 ULP float32 and float16)."),
)
