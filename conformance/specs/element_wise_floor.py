from conformance.specs.base import (SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, integral_edges,
                                    one_node, page)
from conformance.specs.primitives import X, floor


SPEC = OperatorSpec(
    name="ELEMENT_WISE_FLOOR",
    struct="DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC",
    formula="f(x) = floor(x), the largest integer <= x; x first mapped by ScaleBias if present",
    summary="Computes the floor of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    # WebNN's ULP tolerances (webnn/resources: exp 32 / 1, ceil and floor 0).
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Floor (opset 13)",
    to_onnx=one_node("Floor", 13),
    special_values=lambda dtype, params: integral_edges(dtype),
    d3d=lambda p: floor(X),
    source=page("DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC"),
    notes=("floor(-0) is -0 (IEEE 754).",),
)
