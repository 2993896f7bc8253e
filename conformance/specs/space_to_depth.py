from conformance.specs import depth_space as ds
from conformance.specs.base import OperatorSpec, page
from conformance.specs.families import DATA_MOVEMENT

STRUCT = "DML_SPACE_TO_DEPTH_OPERATOR_DESC"

SPEC = OperatorSpec(
    name="SPACE_TO_DEPTH",
    struct=STRUCT,
    formula="OutputTensor[n, (i * BlockSize + j) * C + c, h, w] = "
            "InputTensor[n, c, h * BlockSize + i, w * BlockSize + j]; "
            "OutputTensor.Sizes = {N, C * BlockSize * BlockSize, H / BlockSize, W / BlockSize}",
    summary="Rearranges blocks of spatial data into depth: [BlockSize, BlockSize] blocks of the height and "
            "width dimensions moved to the depth dimension (the inverse of DEPTH_TO_SPACE).",
    parameters=(ds.BLOCK_SIZE,),
    introduced="1_0",
    tables=ds.TABLES,
    in_place=False,
    constraints=ds.SAME_TYPE + " InputTensor {Batch, Channels, Height, Width}: 4 dimensions.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="SpaceToDepth (opset 13), kept alone",
    to_onnx=ds.space_to_depth_onnx,
    source=page(STRUCT),
    family=DATA_MOVEMENT,
    output_shapes_rule=ds.space_to_depth_shapes,
    shape_check=ds.space_to_depth_check,
    source_index=ds.space_to_depth_source,
    special_values=ds.nan_payloads,
    integers=ds.copies,
    notes=("The page's OutputTensor sizes, {Batch, Channels / (BlockSize * BlockSize), Height * BlockSize, "
           "Width * BlockSize}, are DEPTH_TO_SPACE's: its own example (and 'the inverse of "
           "DEPTH_TO_SPACE') gives {N, C * BlockSize * BlockSize, H / BlockSize, W / BlockSize}, which the "
           "harness follows.",
           "The page names no order: its example is the depth (BlockHeight, BlockWidth, Channels), "
           "SPACE_TO_DEPTH1's DEPTH_COLUMN_ROW.") + ds.NOTES[1:],
)
