import numpy as np

from conformance.specs.base import (A_B, FLOATS, ONE_TO_EIGHT, SAME_TYPES_A_B, NotReachable, OnnxNode, OperatorSpec,
                                    SupportTable, arithmetic_specials, page, scale_bias_not_reachable, wrap)
from conformance.specs.primitives import A, B, is_inf, select

INTEGERS = ("int32", "uint32")


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    scale_bias_not_reachable(params)
    if dtype not in FLOATS:
        raise NotReachable("ONNX Mean has float types only: an integer MEAN is reached by no ONNX node")
    return OnnxNode("Mean", 13)


def d3d(params: dict):
    """(a + b) * 0.5, the halving exact; where the float sum overflows, a shader that halves first
    (a * 0.5 + b * 0.5) keeps the page's finite mean: both are accepted there."""
    return select(is_inf(A + B), A * 0.5 + B * 0.5, (A + B) * 0.5)


def integers(params: dict, dtype: str):
    """(a + b) wrapped in the type, then halved toward zero (the page is silent)."""
    def mean(a: int, b: int) -> int:
        total = wrap(a + b, dtype)
        return -((-total) // 2) if total < 0 else total // 2
    return mean


SPEC = OperatorSpec(
    name="ELEMENT_WISE_MEAN",
    struct="DML_ELEMENT_WISE_MEAN_OPERATOR_DESC",
    formula="f(a, b) = (a + b) / 2",
    summary="Averages each pair of corresponding elements of ATensor and BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS),
            SupportTable("2_1", (4,), FLOATS + INTEGERS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 1, "float16": 1},  # an add, then an exact halving: WebNN's add (0) plus one rounding
    onnx_route="Mean (opset 13) of two inputs, float types only; not reachable for INT32/UINT32",
    to_onnx=to_onnx,
    d3d=d3d,
    special_values=arithmetic_specials,
    source=page("DML_ELEMENT_WISE_MEAN_OPERATOR_DESC"),
    notes=("Floats: the exact mean rounded once; a + b overflowing float32 while the mean is finite is "
           "accepted under d3d as inf (the sum rounded) or the finite mean (halving first).",
           "Integers (the page is silent): the sum wraps in the type (two's complement), then is halved "
           "toward zero as HLSL's integer division does.",
           "The page: OutputTensor may alias one of the inputs in place."),
    integers=integers,
)
