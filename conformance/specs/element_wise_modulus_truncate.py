from conformance.specs.base import (A_B, FLOATS, INTEGERS_32, ONE_TO_EIGHT, SAME_TYPES_A_B, NotReachable, OnnxNode,
                                    OperatorSpec, SupportTable, neighbours, page, scale_bias_not_reachable)
from conformance.specs.primitives import A, B, trunc

# MODULUS_TRUNCATE's and MODULUS_FLOOR's pages have the same tables.
MODULUS_TABLES = (SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
                  SupportTable("2_1", (4,), FLOATS + INTEGERS_32))


def modulus_specials(dtype: str, params: dict) -> list:
    """Divisors and dividends where the quotient turns: +-0, +-1 and its neighbours, +-3 (inexact
    quotients), the largest finite value (quotients beyond 2^24) and the smallest subnormal."""
    import numpy as np
    if np.dtype(dtype).kind != "f":
        return []
    finfo = np.finfo(dtype)
    return neighbours([1.0, -1.0], dtype) + [3.0, -3.0, 0.5, -2.5, float(finfo.max), -float(finfo.max),
                                             float(finfo.smallest_subnormal)]


def onnx_mod(fmod: int, floats: bool):
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        scale_bias_not_reachable(params)
        if dtype in FLOATS and not floats:
            raise NotReachable("ONNX Mod with fmod=0 (Python's modulus) is defined for integers only")
        return OnnxNode("Mod", 13, {"fmod": fmod})
    return to_onnx


def truncated(a: int, b: int) -> int:
    """C's a % b: the sign of the dividend; b = 0 is not defined by the page (0 here, no case asks)."""
    if b == 0:
        return 0
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


SPEC = OperatorSpec(
    name="ELEMENT_WISE_MODULUS_TRUNCATE",
    struct="DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC",
    formula="f(a, b) = a - (b * trunc(a / b)) (C's modulus: the result has the dividend's sign)",
    summary="Computes the C modulus of each pair of corresponding elements of ATensor and BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="2_1",
    tables=MODULUS_TABLES,
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 0, "float16": 0},  # fmod is exact in IEEE arithmetic
    onnx_route="Mod (opset 13) with fmod=1 (C's fmod; every type of the page)",
    to_onnx=onnx_mod(1, floats=True),
    d3d=lambda p: A - B * trunc(A / B),
    special_values=modulus_specials,
    source=page("DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC"),
    notes=("Floats: C's fmod, exact (its zero results keep the dividend's sign); b = +-0 and a = +-inf give "
           "NaN, b = +-inf gives a (the formula's lowering gives NaN there, accepted and counted under d3d).",
           "The device computes a - b * trunc(a * rcp(b)): a quotient rounded across an integer changes the "
           "result by b, which the d3d interval allows; the ulp verdict does not.",
           "Integers: C's %, the dividend's sign; b = 0 is not defined by the page (no case asks); "
           "INT_MIN % -1 = 0. The page: OutputTensor may alias one of the inputs in place."),
    integers=lambda params, dtype: truncated,
)
