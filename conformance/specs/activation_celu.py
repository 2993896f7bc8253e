import numpy as np

from conformance.specs.primitives import X, exp, maximum, minimum

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, NotReachable, OnnxNode, OperatorSpec,
                                    Parameter, SupportTable)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if dtype != "float32":
        raise NotReachable("ONNX's Celu schema allows float32 only: ONNX Runtime rejects "
                           f"a {dtype} Celu model before any provider sees it")
    return OnnxNode("Celu", 12, {"alpha": float(params["Alpha"])})


def special_values(dtype: str, params: dict) -> list:
    """Where exp(x / Alpha) overflows or underflows, on both sides of the edge."""
    alpha = float(np.float32(params["Alpha"]))
    finfo = np.finfo(dtype)
    log_max = float(np.log(float(finfo.max)))
    log_tiny = float(np.log(float(finfo.smallest_subnormal)))
    return [alpha * log_max * s for s in (0.999, 1.001)] + [alpha * log_tiny * s for s in (0.999, 1.001)] + \
        [-alpha * 1e-3, alpha * 1e-3]


SPEC = OperatorSpec(
    name="ACTIVATION_CELU",
    struct="DML_ACTIVATION_CELU_OPERATOR_DESC",
    formula="f(x) = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1))",
    summary="Continuously differentiable exponential linear unit, element-wise.",
    parameters=(Parameter("Alpha", "float", 1.0, "The alpha coefficient; typical default 1.0."),),
    introduced="3_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),),
    in_place=True,
    constraints="InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes.",
    tolerance_ulp={"float32": 18, "float16": 18},
    onnx_route="Celu (opset 12), attribute alpha",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: maximum(0.0, X) + minimum(0.0, p["Alpha"] * (exp(X / p["Alpha"]) - 1.0)),
    keeps_sign=True,
    source=("https://learn.microsoft.com/windows/win32/api/directml/"
            "ns-directml-dml_activation_celu_operator_desc"),
    notes=("FLOAT16 is not reachable through ONNX Runtime (ONNX Celu is float32 only).",),
)
