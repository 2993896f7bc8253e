import math

import numpy as np

from conformance.specs.primitives import X, declared
from conformance.specs.base import FLOATS, ONE_TO_EIGHT, SAME_TENSORS, OnnxNode, OperatorSpec, SupportTable


ERF_ACCURACY = "OpenCL C 3.0, 'Relative Error as ULPs', single precision: erf <= 16 ulp"
_erf = np.frompyfunc(math.erf, 1, 1)


def d3d(params: dict):
    """0.5 * x * (1 + erf(x * (1 / sqrt(2)))), erf declared (Direct3D has no erf instruction)."""
    erf = declared("erf", X * (1.0 / math.sqrt(2.0)), reference=lambda v: np.asarray(_erf(v), dtype=np.float64),
                   ulp=16, monotone="increasing", bounds=(-1.0, 1.0), source=ERF_ACCURACY)
    return 0.5 * X * (1.0 + erf)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # ONNX Runtime's DirectML EP maps its contrib Gelu, not ONNX's Gelu-20, to DML_ACTIVATION_GELU.
    return OnnxNode("Gelu", 1, domain="com.microsoft")


def special_values(dtype: str, params: dict) -> list:
    """Either side of: where erf(x / sqrt(2)) rounds to -1 in float32 (1 + erf cancels to 0 below),
    and where the result leaves the subnormal range of the tensor type; small inputs around 0."""
    tiny = float(np.finfo(dtype).smallest_subnormal)
    erf_is_minus_one = _edge(lambda x: math.erfc(-x / math.sqrt(2.0)) < 2.0 ** -25)
    underflow = _edge(lambda x: -0.5 * x * math.erfc(-x / math.sqrt(2.0)) < tiny)
    return [e * s for e in (erf_is_minus_one, underflow) for s in (0.999, 1.001)] + \
        [-erf_is_minus_one, -1e-3, 1e-3, -1e-20, 1e-20]


def _edge(below, low=-60.0, high=-0.5) -> float:
    """The x in [low, high] where the predicate below(x) stops holding (true at low, false at high)."""
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if below(middle) else (low, middle)
    return high


SPEC = OperatorSpec(
    name="ACTIVATION_GELU",
    struct="DML_ACTIVATION_GELU_OPERATOR_DESC",
    formula="f(x) = 0.5 * x * (1 + erf(x / sqrt(2))), erf as DML_ELEMENT_WISE_ERF",
    summary="Gaussian error linear unit, element-wise.",
    parameters=(),
    introduced="5_1",
    tables=(SupportTable("5_1", ONE_TO_EIGHT, FLOATS),),
    in_place=False,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 18, "float16": 18},
    onnx_route="com.microsoft Gelu (ONNX Runtime contrib operator, version 1): the DirectML EP runs it "
               "as DML_ACTIVATION_GELU",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=d3d,
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/ai/directml/api/ns-directml-dml_activation_gelu_operator_desc",
    notes=("The page has one table (no per-level history): feature level 5_1, 1 to 8 dimensions.",
           "The page does not say the operator runs in place, so no in-place cases.",
           "At x = -inf the formula is -inf * 0 = NaN (IEEE), as written.",
           "Tolerance: WebNN's gelu (18 ULP float32 and float16)."),
)
