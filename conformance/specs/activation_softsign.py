from conformance.specs.primitives import X, abs_
from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Softsign", 1)


def special_values(dtype: str, params: dict) -> list:
    """Where 1 + |x| stops changing in float32 (2^24) and in float16 (2^11), and small inputs."""
    return [s * v for v in (2.0 ** 24, 2.0 ** 24 + 2, 2.0 ** 11, 2.0 ** 11 + 2, 1e-3, 1e-20) for s in (1, -1)]


SPEC = OperatorSpec(
    name="ACTIVATION_SOFTSIGN",
    struct="DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC",
    formula="f(x) = x / (1 + abs(x))",
    summary="Softsign, element-wise.",
    parameters=(),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 3, "float16": 3},
    onnx_route="Softsign (opset 1) (DirectML EP: DML_ACTIVATION_SOFTSIGN)",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=lambda p: X / (1.0 + abs_(X)),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_softsign_operator_desc",
    notes=("At x = +-inf the formula is inf / inf = NaN (IEEE), as written (the limit would be +-1).",
           "Tolerance: WebNN's softsign (3 ULP float32 and float16)."),
)
