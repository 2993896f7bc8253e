import numpy as np

from conformance.specs.primitives import X, declared
from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec


TANH_ACCURACY = ("WGSL, 'Accuracy of concrete floating point built-in functions': tanh, the worse of "
                 "absolute error 1.0e-5 and sinh(x) / cosh(x) (Direct3D states no accuracy for tanh)")


def tanh(arg):
    """HLSL's tanh intrinsic, declared: np.tanh widened by an absolute 1e-5. Also SCALED_TANH's."""
    return declared("tanh", arg, reference=np.tanh, abs_error=1e-5, monotone="increasing", bounds=(-1.0, 1.0),
                    source=TANH_ACCURACY)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Tanh", 13)


def saturation(scale: float) -> list:
    """Where tanh(scale * x) rounds to +-1 in float32 and in float16, where exp(-2 scale x) overflows
    float32, and small inputs. Also SCALED_TANH's (scale = Beta)."""
    if scale == 0:
        return []
    edges = [9.01, 4.51, 44.36]  # tanh(9.01) and tanh(4.51) round to 1 in float32 and float16
    return [sign * e * s / scale for e in edges for s in (0.999, 1.001) for sign in (1, -1)] + \
        [v / scale for v in (-1e-3, 1e-3, -1e-20, 1e-20)]


def special_values(dtype: str, params: dict) -> list:
    return saturation(1.0)


SPEC = OperatorSpec(
    name="ACTIVATION_TANH",
    struct="DML_ACTIVATION_TANH_OPERATOR_DESC",
    formula="f(x) = (1 - exp(-2 * x)) / (1 + exp(-2 * x))",
    summary="Hyperbolic tangent, element-wise.",
    parameters=(),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 16, "float16": 16},
    onnx_route="Tanh (opset 13) (DirectML EP: DML_ACTIVATION_TANH)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: tanh(X),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_tanh_operator_desc",
    notes=("The oracle is tanh(x) itself; the page's exp form, taken literally, gives NaN below x = -44 "
           "(exp(-2x) overflows) where tanh is -1.",
           "Tolerance: 16 ULP, WebNN's tanh before it moved to an absolute 1/1024 (float32), 1/512 (float16)."),
)
