from conformance.specs import resampling as r
from conformance.specs.base import FLOATS, OperatorSpec, SupportTable, page
from conformance.specs.families import DATA_MOVEMENT


def to_onnx(dtype: str, params: dict):
    return r.resize(params, *r.half_up_as_floor(r.pixel_offsets(params)))


SPEC = OperatorSpec(
    name="RESAMPLE",
    struct="DML_RESAMPLE_OPERATOR_DESC",
    formula="OutputTensor[o] = InputTensor[x], x[i] = clamp(round((o[i] + 0.5) / Scales[i] - 0.5), 0, "
            "InputTensor.Sizes[i] - 1), halves rounded up (the input element nearest the output element's "
            "pixel centre)",
    summary="Resamples the input to the output's sizes by the scale of each dimension; nearest neighbour: "
            "each output element is the input element nearest to its pixel centre.",
    parameters=(r.INTERPOLATION, r.scales("ScaleCount"), r.OUTPUT_SIZES),
    introduced="2_0",
    tables=r.RESAMPLE_TABLES + (SupportTable("2_0", (4,), FLOATS),),
    in_place=False,
    constraints=r.SAME_TYPE_AND_RANK + " ScaleCount (the length of Scales) is their DimensionCount.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Resize (opset 13), nearest, half_pixel with round_prefer_ceil, the scales as an initializer",
    to_onnx=to_onnx,
    source=page("DML_RESAMPLE_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=r.resample_shapes,
    shape_check=r.resample_check,
    source_index=r.sources(lambda params: r.half_up),
    integers=lambda params, dtype: None,
    accumulation=r.linear_accumulation((r.resample_mapping,)),
    ulp_tolerance=r.ulp_tolerance,
    rounded_integers=r.rounded_integers,
    notes=(r.LINEAR_NOTE, r.OUTPUT_SIZES_NOTE,
           "The page says nearest neighbour chooses the input element nearest to the output element's pixel "
           "centre; it does not say which of two equally near elements is chosen. The harness rounds halves "
           "up (floor(x + 0.5)), as DirectML does on lavapipe (docs/findings/issue25-resample_nearest.md).",
           "DML_RESAMPLE1's page: RESAMPLE1 with InputPixelOffsets 0.5 and OutputPixelOffsets -0.5 is this "
           "operator; its coordinate formula is used here with those offsets."),
)
