from conformance.specs import depth_space as ds
from conformance.specs.base import OperatorSpec, page
from conformance.specs.families import DATA_MOVEMENT

STRUCT = "DML_SPACE_TO_DEPTH1_OPERATOR_DESC"

SPEC = OperatorSpec(
    name="SPACE_TO_DEPTH1",
    struct=STRUCT,
    formula="OutputTensor[n, d, h, w] = InputTensor[n, c, h * BlockSize + i, w * BlockSize + j], "
            "d = (i * BlockSize + j) * C + c (DEPTH_COLUMN_ROW) or (c * BlockSize + i) * BlockSize + j "
            "(COLUMN_ROW_DEPTH); OutputTensor.Sizes = {N, C * BlockSize * BlockSize, H / BlockSize, W / BlockSize}",
    summary="Rearranges blocks of spatial data into depth, the depth laid out in the order Order names "
            "(the inverse of DEPTH_TO_SPACE1).",
    parameters=(ds.BLOCK_SIZE, ds.ORDER),
    introduced="2_1",
    tables=ds.TABLES_1,
    in_place=False,
    constraints=ds.SAME_TYPE + " InputTensor {Batch, Channels, Height, Width}: 4 dimensions.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="SpaceToDepth (opset 13), kept alone, for DEPTH_COLUMN_ROW; COLUMN_ROW_DEPTH is not reachable "
               "(SpaceToDepth has no mode)",
    to_onnx=ds.space_to_depth_onnx,
    source=page(STRUCT),
    family=DATA_MOVEMENT,
    output_shapes_rule=ds.space_to_depth_shapes,
    shape_check=ds.space_to_depth_check,
    source_index=ds.space_to_depth_source,
    special_values=ds.nan_payloads,
    integers=ds.copies,
    notes=("The page's OutputTensor sizes, {Batch, Channels / (BlockSize * BlockSize), Height * BlockSize, "
           "Width * BlockSize}, are DEPTH_TO_SPACE1's: its own examples (and 'the inverse of "
           "DEPTH_TO_SPACE1') give {N, C * BlockSize * BlockSize, H / BlockSize, W / BlockSize}, which the "
           "harness follows.",) + ds.NOTES,
)
