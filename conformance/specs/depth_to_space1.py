from conformance.specs import depth_space as ds
from conformance.specs.base import OperatorSpec, page
from conformance.specs.families import DATA_MOVEMENT

STRUCT = "DML_DEPTH_TO_SPACE1_OPERATOR_DESC"

SPEC = OperatorSpec(
    name="DEPTH_TO_SPACE1",
    struct=STRUCT,
    formula="OutputTensor[n, c, h * BlockSize + i, w * BlockSize + j] = InputTensor[n, d, h, w], "
            "d = (i * BlockSize + j) * (C / BlockSize^2) + c (DEPTH_COLUMN_ROW) or "
            "(c * BlockSize + i) * BlockSize + j (COLUMN_ROW_DEPTH); "
            "OutputTensor.Sizes = {N, C / (BlockSize * BlockSize), H * BlockSize, W * BlockSize}",
    summary="Rearranges (permutes) data from depth into blocks of spatial data, the depth read in the "
            "order Order names.",
    parameters=(ds.BLOCK_SIZE, ds.ORDER),
    introduced="2_1",
    tables=ds.TABLES_1,
    in_place=False,
    constraints=ds.SAME_TYPE + " InputTensor {BatchCount, InputChannelCount, InputHeight, InputWidth}, "
                "OutputTensor {BatchCount, OutputChannelCount, OutputHeight, OutputWidth}: 4 dimensions.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="DepthToSpace (opset 13), mode DCR for DEPTH_COLUMN_ROW and CRD for COLUMN_ROW_DEPTH, kept alone",
    to_onnx=ds.depth_to_space_onnx,
    source=page(STRUCT),
    family=DATA_MOVEMENT,
    output_shapes_rule=ds.depth_to_space_shapes,
    shape_check=ds.depth_to_space_check,
    source_index=ds.depth_to_space_source,
    special_values=ds.nan_payloads,
    integers=ds.copies,
    notes=ds.NOTES + ("The remark's link for DEPTH_TO_SPACE points at DEPTH_TO_SPACE1's own page.",),
)
