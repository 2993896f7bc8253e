import numpy as np

from conformance.specs.primitives import NAN, X, abs_, pow_, select
from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SCALE_BIAS, OnnxNode, OperatorSpec,
                                    Parameter, SupportTable, scale_bias_not_reachable)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    scale_bias_not_reachable(params)
    # A one-element constant exponent is what makes the DirectML EP choose CONSTANT_POW.
    # It stays float32, like the FLOAT field, so a float16 tensor keeps the exact exponent.
    return OnnxNode("Pow", 15, {}, (np.array(params["Exponent"], dtype=np.float32),))


def special_values(dtype: str, params: dict) -> list:
    """Negative bases (integral and not), and the bases where pow leaves the finite range."""
    exponent = float(np.float32(params["Exponent"]))
    finfo = np.finfo(dtype)
    values = [-1.0, -2.0, -3.0, -0.5, -1.5, -10.0]
    if exponent != 0:
        edge = float(finfo.max) ** (1.0 / exponent)
        values += [edge * 0.999, edge * 1.001, -edge * 0.999, -edge * 1.001]
        tiny = float(finfo.smallest_subnormal) ** (1.0 / exponent)
        values += [tiny * 0.999, tiny * 1.001]
    return [v for v in values if abs(v) <= float(finfo.max)]


def d3d(params: dict):
    """HLSL's pow lowering, exp2(y * log2(x)), with the sign handled for negative bases: an
    integral exponent takes |x| and restores the sign for odd ones; otherwise NaN. A zero base
    is not negative (-0 < 0 is false), so pow(-0, y) goes through log2(-0) = -inf."""
    exponent = params["Exponent"]
    if float(exponent).is_integer():
        sign = -1.0 if exponent % 2 == 1 else 1.0
        return select(X < 0.0, sign * pow_(abs_(X), exponent), pow_(X, exponent))
    return select(X < 0.0, NAN, pow_(X, exponent))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_CONSTANT_POW",
    struct="DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC",
    formula="f(x) = pow(x, Exponent), x first mapped by ScaleBias if present; "
            "a negative base with a non-integral exponent gives NaN",
    summary="Raises every element to the constant power Exponent.",
    parameters=(SCALE_BIAS,
                Parameter("Exponent", "float", 1.0, "The exponent all inputs are raised to.")),
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints="InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes.",
    tolerance_ulp={"float32": 32, "float16": 2},
    onnx_route="Pow (opset 15) with a one-element float32 initializer as exponent",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=d3d,
    source=("https://learn.microsoft.com/windows/win32/api/directml/"
            "ns-directml-dml_element_wise_constant_pow_operator_desc"),
    notes=("The page gives no default Exponent; 1.0 (identity) is the harness's.",),
)
