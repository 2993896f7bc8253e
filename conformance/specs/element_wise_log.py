import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.primitives import X, log

STRUCT = "DML_ELEMENT_WISE_LOG_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """1 and its neighbours (log near 0, where log2's error bound is absolute), e, 1/e, the edges
    of log2's [0.5, 2] interval, and large finite values."""
    one = np.array(1.0, dtype)
    return [np.nextafter(one, one - 1), np.nextafter(one, one + 1), np.e, 1 / np.e, 0.5, 2.0, 0.75, 1.5,
            float(np.finfo(dtype).max) / 3]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_LOG",
    struct=STRUCT,
    formula="f(x) = ln(x), x first mapped by ScaleBias if present; x < 0 gives NaN (indefinite), "
            "0 gives -INF",
    summary="The natural logarithm of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 3, "float16": 2},
    onnx_route="Log (opset 13)",
    to_onnx=one_node("Log", 13),
    special_values=special_values,
    d3d=lambda p: log(X),
    source=page(STRUCT),
    notes=("WebNN judges log by an absolute error of 1/1024, which a ULP tolerance cannot state; "
           "the ULP figures are OpenCL's (3 ULP float, 2 ULP half).",
           "log(-0) is -INF like log(+0) (IEEE 754); a flushed subnormal input also gives -INF."),
)
