from conformance.specs import depth_space as ds
from conformance.specs.base import OperatorSpec, page
from conformance.specs.families import DATA_MOVEMENT

STRUCT = "DML_DEPTH_TO_SPACE_OPERATOR_DESC"

SPEC = OperatorSpec(
    name="DEPTH_TO_SPACE",
    struct=STRUCT,
    formula="OutputTensor[n, c, h * BlockSize + i, w * BlockSize + j] = "
            "InputTensor[n, (i * BlockSize + j) * (C / BlockSize^2) + c, h, w]; "
            "OutputTensor.Sizes = {N, C / (BlockSize * BlockSize), H * BlockSize, W * BlockSize}",
    summary="Rearranges (permutes) data from depth into blocks of spatial data: values of the depth "
            "dimension moved in [BlockSize, BlockSize] blocks to the height and width dimensions.",
    parameters=(ds.BLOCK_SIZE,),
    introduced="1_0",
    tables=ds.TABLES,
    in_place=False,
    constraints=ds.SAME_TYPE + " InputTensor {BatchCount, InputChannelCount, InputHeight, InputWidth}, "
                "OutputTensor {BatchCount, OutputChannelCount, OutputHeight, OutputWidth}: 4 dimensions.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="DepthToSpace (opset 13), mode DCR, kept alone",
    to_onnx=ds.depth_to_space_onnx,
    source=page(STRUCT),
    family=DATA_MOVEMENT,
    output_shapes_rule=ds.depth_to_space_shapes,
    shape_check=ds.depth_to_space_check,
    source_index=ds.depth_to_space_source,
    special_values=ds.nan_payloads,
    integers=ds.copies,
    notes=("The page names no order: its example is DEPTH_TO_SPACE1's with DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW, "
           "and DEPTH_TO_SPACE1's remark says the two are then equivalent.",) + ds.NOTES[1:],
)
