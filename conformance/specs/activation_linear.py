import numpy as np

from conformance.specs.primitives import X
from conformance.specs.base import (ACTIVATION_TABLES, SAME_TENSORS, NotReachable, OperatorSpec, Parameter,
                                    around)


def to_onnx(dtype: str, params: dict):
    raise NotReachable("ONNX has no linear activation; ONNX Runtime's DirectML EP runs the experimental "
                       "Affine as ELEMENT_WISE_IDENTITY with a ScaleBias, never DML_ACTIVATION_LINEAR")


def special_values(dtype: str, params: dict) -> list:
    """Where Alpha * x + Beta crosses 0, and where it leaves the finite range of the tensor type."""
    alpha, beta = float(np.float32(params["Alpha"])), float(np.float32(params["Beta"]))
    if alpha == 0:
        return []
    biggest = float(np.finfo(dtype).max)
    edges = [(biggest - beta) / alpha, (-biggest - beta) / alpha]
    return around(-beta / alpha, dtype) + [e * s for e in edges for s in (0.999, 1.001) if abs(e * s) <= biggest]


SPEC = OperatorSpec(
    name="ACTIVATION_LINEAR",
    struct="DML_ACTIVATION_LINEAR_OPERATOR_DESC",
    formula="f(x) = Alpha * x + Beta",
    summary="Linear activation, element-wise.",
    parameters=(Parameter("Alpha", "float", 1.0, "The alpha coefficient (the page gives no typical value)."),
                Parameter("Beta", "float", 0.0, "The beta coefficient (the page gives no typical value).")),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 2, "float16": 2},
    onnx_route="none: ONNX has no linear activation (reached by dml-direct only)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: p["Alpha"] * X + p["Beta"],
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_linear_operator_desc",
    notes=("The page gives no typical Alpha and Beta: 1 and 0 (identity) are the harness's defaults.",
           "Tolerance: WebNN's linear (2 ULP float32 and float16)."),
)
