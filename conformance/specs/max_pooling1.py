from conformance.specs.base import ONE_OUTPUT, OperatorSpec, SupportTable, page
from conformance.specs.families import WINDOW
from conformance.specs.pooling import (FLOATS_UP_TO_5_0, INDICES_FIELDS, INDICES_OUTPUT, NAN_NOTE, indices_level,
                                       max_pool_onnx, max_source_index, output_shapes, shape_check, window_fields)

SPEC = OperatorSpec(
    name="MAX_POOLING1",
    struct="DML_MAX_POOLING1_OPERATOR_DESC",
    formula="y = max(x1, x2, ... x_pool_size) over each window; as MAX_POOLING",
    summary="Computes the maximum value across the elements within the sliding window over the input tensor, "
            "and optionally returns the indices of the maximum values selected.",
    parameters=window_fields(dilations=False) + INDICES_FIELDS,
    outputs=ONE_OUTPUT + (INDICES_OUTPUT,),
    parameter_level=indices_level,
    introduced="2_0",
    tables=(SupportTable("5_0", (4, 5), FLOATS_UP_TO_5_0),
            SupportTable("3_0", (4, 5), ("float32", "float16", "int8", "uint8")),
            SupportTable("2_0", (4, 5), ("float32", "float16"))),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and DimensionCount (4 or 5); "
                "DimensionCount is InputTensor's less 2.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a maximum is one of its inputs: exact
    onnx_route="MaxPool (opset 12: float32, float16, int8, uint8) with kernel_shape, strides, pads; its "
               "Indices output (int64) read as OutputIndicesTensor's type",
    to_onnx=max_pool_onnx,
    source=page("DML_MAX_POOLING1_OPERATOR_DESC"),
    family=WINDOW,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=max_source_index,
    integers=lambda params, dtype: None,
    notes=(NAN_NOTE,),
)
