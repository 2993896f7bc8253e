from conformance.specs import pool_sums as pools
from conformance.specs.base import OperatorSpec, execution_flags, page
from conformance.specs.families import WINDOW
from conformance.specs.pooling import output_shapes, window_fields

SPEC = OperatorSpec(
    name="LP_POOLING",
    struct="DML_LP_POOLING_OPERATOR_DESC",
    formula=pools.LP_FORMULA + "; " + pools.SIZE_FORMULA,
    summary="Computes the Lp-normalized value across the elements within the sliding window over the input tensor.",
    parameters=window_fields(dilations=False) + (pools.P, execution_flags()),
    introduced="1_0",
    tables=pools.TABLES_1_0,
    in_place=False,
    constraints=pools.CONSTRAINTS,
    tolerance_ulp={},
    ulp_tolerance=pools.ulp_tolerance,
    accumulation=pools.lp_accumulation,
    onnx_route="LpPool (opset 18) with kernel_shape, strides, pads, p = P",
    to_onnx=pools.lp_onnx,
    source=page("DML_LP_POOLING_OPERATOR_DESC"),
    family=WINDOW,
    output_shapes_rule=output_shapes,
    shape_check=pools.lp_check,
    integers=lambda params, dtype: None,
    notes=(pools.BOUND_NOTE, pools.LP_NOTE, pools.ULP_NOTE),
)
