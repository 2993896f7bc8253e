import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.primitives import X, rcp

STRUCT = "DML_ELEMENT_WISE_RECIP_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """Where 1/x leaves the normal range: 1/smallest normal (its reciprocal is the smallest normal),
    twice that (a subnormal result), the largest finite (a subnormal result), powers of two
    (exact) and 3 (inexact)."""
    finfo = np.finfo(dtype)
    edge = 1 / float(finfo.smallest_normal)
    return [edge, 2 * edge, float(np.nextafter(np.array(edge, dtype), np.array(np.inf, dtype))),
            float(finfo.max), 0.25, 1024.0, 3.0, 7.0, -3.0]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_RECIP",
    struct=STRUCT,
    formula="f(x) = 1 / x, x first mapped by ScaleBias if present",
    summary="The reciprocal of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 2, "float16": 2},
    onnx_route="Reciprocal (opset 13)",
    to_onnx=one_node("Reciprocal", 13),
    special_values=special_values,
    d3d=lambda p: rcp(X),
    keeps_sign=True,
    source=page(STRUCT),
    notes=("1/+-0 is +-INF and 1/+-INF is +-0 (IEEE 754). A subnormal input may be flushed: 1/+-0 = +-INF "
           "then joins the accepted results; a subnormal result may be flushed to a zero of its sign.",),
)
