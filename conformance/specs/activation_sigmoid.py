import numpy as np

from conformance.specs.primitives import X, exp
from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Sigmoid", 13)


def exp_edges(scale: float, dtype: str) -> list:
    """Either side of the x where exp(scale * x) overflows, and where it underflows, in float32
    (the shaders' type) and in the tensor type. Also SOFTPLUS's, PARAMETRIC_SOFTPLUS's and SWISH's."""
    if scale == 0:
        return []
    values = []
    for finfo in (np.finfo(np.float32), np.finfo(dtype)):
        for edge in (np.log(float(finfo.max)), np.log(float(finfo.smallest_subnormal))):
            values += [float(edge) / scale * s for s in (0.999, 1.001)]
    return values


def special_values(dtype: str, params: dict) -> list:
    return exp_edges(-1.0, dtype) + exp_edges(1.0, dtype) + [-1e-3, 1e-3]


SPEC = OperatorSpec(
    name="ACTIVATION_SIGMOID",
    struct="DML_ACTIVATION_SIGMOID_OPERATOR_DESC",
    formula="f(x) = 1 / (1 + exp(-x))",
    summary="Logistic sigmoid, element-wise.",
    parameters=(),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 34, "float16": 10},
    onnx_route="Sigmoid (opset 13) (DirectML EP: DML_ACTIVATION_SIGMOID)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: 1.0 / (1.0 + exp(-X)),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_sigmoid_operator_desc",
    notes=("f(-inf) = 1 / (1 + inf) = 0, f(inf) = 1, f(NaN) = NaN.",
           "Tolerance: WebNN's sigmoid (34 ULP float32, 10 ULP float16)."),
)
