import numpy as np

from conformance.specs.activation_sigmoid import exp_edges
from conformance.specs.primitives import X, exp, log, select
from conformance.specs.base import (ACTIVATION_TABLES, SAME_TENSORS, NotReachable, OnnxNode, OperatorSpec,
                                    Parameter)


EXP_OVERFLOW = float(np.log(np.finfo(np.float32).max))  # 88.72: exp(t) is not a float32 beyond


def softplus(t):
    """ln(1 + exp(t)) in primitives, as DirectML's shaders compute it (dml-wine, lavapipe, a float32 sweep
    of t = -30 to 100): the page's form, within 1 ULP, while exp(t) is a float32, and t itself beyond
    (exactly t from t = 88.72 on, not inf). Also PARAMETRIC_SOFTPLUS's."""
    return select(t > EXP_OVERFLOW, t, log(1.0 + exp(t)))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if np.float32(params["Steepness"]) != 1:
        raise NotReachable("ONNX Softplus has no steepness: only Steepness = 1 has an ONNX form")
    return OnnxNode("Softplus", 1)


def special_values(dtype: str, params: dict) -> list:
    return exp_edges(float(np.float32(params["Steepness"])), dtype) + [-1e-3, 1e-3]


def steepness_level(params: dict):
    """Steepness below 1: allowed from feature level 6_4 (the feature level history)."""
    return "6_4" if np.float32(params["Steepness"]) < 1 else None


SPEC = OperatorSpec(
    name="ACTIVATION_SOFTPLUS",
    struct="DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC",
    formula="f(x) = ln(1 + exp(Steepness * x)) / Steepness",
    summary="Softplus with a steepness, element-wise.",
    parameters=(Parameter("Steepness", "float", 1.0,
                          "The steepness; typical default 1.0; not below 1 before feature level 6_4."),),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS + " Steepness must not be less than 1 below feature level 6_4.",
    tolerance_ulp={"float32": 18, "float16": 18},
    onnx_route="Softplus (opset 1) when Steepness = 1 (DirectML EP: DML_ACTIVATION_SOFTPLUS)",
    to_onnx=to_onnx,
    special_values=special_values,
    parameter_level=steepness_level,
    d3d=lambda p: softplus(p["Steepness"] * X) / p["Steepness"],
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_softplus_operator_desc; "
           "Steepness < 1 from https://learn.microsoft.com/en-us/windows/ai/directml/dml-feature-level-history "
           "(DML_FEATURE_LEVEL_6_4)",
    notes=("The page's member list is garbled: the Steepness text ('typical default 1.0, cannot be less "
           "than 1') sits under OutputTensor. The feature level history lifts the limit at 6_4, so cases "
           "with Steepness < 1 require 6_4.",
           "exp(Steepness * x) overflows float32 for Steepness * x > 88.7 while f stays finite (about x): "
           "the oracle gives the true value.",
           "Tolerance: WebNN's softplus (18 ULP float32 and float16)."),
)
