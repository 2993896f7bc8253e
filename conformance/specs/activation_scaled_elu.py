import numpy as np

from conformance.specs.primitives import X, exp, select

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, OnnxNode, OperatorSpec, Parameter,
                                    SupportTable)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Selu", 6, {"alpha": float(params["Alpha"]), "gamma": float(params["Gamma"])})


def special_values(dtype: str, params: dict) -> list:
    """Where e^x underflows, and where Gamma * x overflows."""
    gamma = float(np.float32(params["Gamma"]))
    finfo = np.finfo(dtype)
    log_tiny = float(np.log(float(finfo.smallest_subnormal)))
    edge = float(finfo.max) / abs(gamma) if gamma else float(finfo.max)
    return [log_tiny * 0.999, log_tiny * 1.001, edge * 0.999, min(edge * 1.001, float(finfo.max)),
            -1e-3, 1e-3]


SPEC = OperatorSpec(
    name="ACTIVATION_SCALED_ELU",
    struct="DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC",
    formula="f(x) = Gamma * x if x > 0 else Gamma * (Alpha * e^x - Alpha)",
    summary="Scaled exponential linear unit, element-wise.",
    parameters=(Parameter("Alpha", "float", 1.6732, "The value of alpha; default 1.6732."),
                Parameter("Gamma", "float", 1.0507, "The value of gamma; default 1.0507.")),
    introduced="1_0",
    # The page has no table; the levels are DirectML's activation history
    # (shared/notes/directml-facts.md): 4-D at 1_0, 4 to 5-D at 2_0, 1 to 8-D at 3_0.
    tables=(SupportTable("3_0", tuple(range(1, 9)), FLOATS),
            SupportTable("2_0", (4, 5), FLOATS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints="InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes.",
    tolerance_ulp={"float32": 18, "float16": 18},
    onnx_route="Selu (opset 6), attributes alpha and gamma",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: select(X > 0.0, p["Gamma"] * X, p["Gamma"] * (p["Alpha"] * exp(X) - p["Alpha"])),
    source=("https://learn.microsoft.com/windows/win32/api/directml/"
            "ns-directml-dml_activation_scaled_elu_operator_desc"),
    notes=("Per-level dimension counts come from DirectML's release history, not the page.",
           "ONNX's Selu defaults (1.67326..., 1.05070...) differ from the page's typical 1.6732, 1.0507."),
)
assert SPEC.ranks == ONE_TO_EIGHT
