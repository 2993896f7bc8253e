import numpy as np

from conformance.specs.base import (SAME_TYPE_AND_SHAPE, NotReachable, OnnxNode, OperatorSpec, Parameter,
                                    float_tables, page)
from conformance.specs.primitives import X, is_inf, round_ne, select, trunc
from oracle.element_wise_round import MODES

STRUCT = "DML_ELEMENT_WISE_ROUND_OPERATOR_DESC"


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if params["RoundingMode"] != MODES[0]:
        raise NotReachable(f"{params['RoundingMode']}: ONNX's Round rounds halves to even only")
    return OnnxNode("Round", 11)



def d3d(params: dict):
    """round_ne and trunc are Direct3D instructions; halves away from zero is composed exactly:
    x - trunc(x) is exact, doubling it is exact, and its truncation is -1, 0 or 1."""
    mode = params["RoundingMode"]
    if mode == MODES[0]:
        return round_ne(X)
    if mode == MODES[1]:
        return trunc(X)
    return select(is_inf(X), X, trunc(X) + trunc(2.0 * (X - trunc(X))))

def special_values(dtype: str, params: dict) -> list:
    """Ties (+-0.5, 1.5, 2.5, ...) and their neighbours, and the largest values with a fraction."""
    finfo = np.finfo(dtype)
    largest_half = 2.0 ** (finfo.nmant - 1) - 0.5  # float32 8388607.5, float16 1023.5
    half = np.array(0.5, dtype)
    values = [0.5, 1.5, 2.5, 3.5, float(np.nextafter(half, half - 1)), float(np.nextafter(half, half + 1)),
              1.4999, 2.5001, largest_half, largest_half - 1, largest_half + 0.5, 2.0 ** finfo.nmant + 1]
    return values + [-v for v in values]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ROUND",
    struct=STRUCT,
    formula="f(x) = x rounded to an integral value in the direction RoundingMode names",
    summary="Rounds every element to an integral value.",
    parameters=(Parameter("RoundingMode", "enum", MODES[0],
                          "A DML_ROUNDING_MODE: HALVES_TO_NEAREST_EVEN, TOWARD_ZERO or TOWARD_INFINITY "
                          "(halves away from zero). The page gives no typical value.",
                          choices=MODES, enum_values={name: value for value, name in enumerate(MODES)}),),
    introduced="2_1",
    tables=float_tables("2_1"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Round (opset 11) for DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN; the other modes are "
               "not reachable",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=d3d,
    source=page(STRUCT),
    notes=("The page has no ScaleBias field.",
           "The harness's default RoundingMode is HALVES_TO_NEAREST_EVEN, the mode ONNX's Round asks for.",
           "DML_ROUNDING_MODE values from DirectML.h: HALVES_TO_NEAREST_EVEN 0, TOWARD_ZERO 1, "
           "TOWARD_INFINITY 2; the DML_ROUNDING_MODE page's table (-2.5 -> -2/-2/-3, 1.5 -> 2/1/2) is "
           "checked in tests/test_ops_batch_b.py."),
)
