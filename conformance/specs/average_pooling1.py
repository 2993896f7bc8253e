from conformance.specs import pool_sums as pools
from conformance.specs.base import OperatorSpec, execution_flags, page
from conformance.specs.families import WINDOW
from conformance.specs.pooling import output_shapes, shape_check, window_fields

SPEC = OperatorSpec(
    name="AVERAGE_POOLING1",
    struct="DML_AVERAGE_POOLING1_OPERATOR_DESC",
    formula=pools.AVERAGE_FORMULA + ", the positions Dilations apart; " + pools.DILATED_SIZE_FORMULA,
    summary="Averages values across the elements within the sliding window over the input tensor, with Dilations.",
    parameters=window_fields(dilations=True) + (pools.INCLUDE_PADDING, execution_flags()),
    introduced="6_2",
    tables=pools.TABLES_6_2,
    in_place=False,
    constraints=pools.CONSTRAINTS,
    tolerance_ulp={},
    ulp_tolerance=pools.ulp_tolerance,
    accumulation=pools.average_accumulation,
    onnx_route="AveragePool (opset 19) with kernel_shape, strides, pads, dilations, count_include_pad = "
               "IncludePadding",
    to_onnx=pools.average_onnx,
    source=page("DML_AVERAGE_POOLING1_OPERATOR_DESC"),
    family=WINDOW,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    integers=lambda params, dtype: None,
    notes=(pools.BOUND_NOTE, pools.AVERAGE_NOTE, pools.DILATED_NOTE, pools.ULP_NOTE),
)
