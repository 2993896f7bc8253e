from conformance.specs import resampling as r
from conformance.specs.base import FLOATS, OperatorSpec, SupportTable, page
from conformance.specs.families import DATA_MOVEMENT


def to_onnx(dtype: str, params: dict):
    return r.resize(params, *r.half_up_as_floor(r.pixel_offsets(params)))


SPEC = OperatorSpec(
    name="RESAMPLE1",
    struct="DML_RESAMPLE1_OPERATOR_DESC",
    formula="OutputTensorX = (InputTensorX + InputPixelOffset) * Scale + OutputPixelOffset: OutputTensor[o] = "
            "InputTensor[x], x[i] = clamp(round((o[i] - OutputPixelOffsets[i]) / Scales[i] - "
            "InputPixelOffsets[i]), 0, InputTensor.Sizes[i] - 1), halves rounded up",
    summary="Resamples the input to the output's sizes by the scale and pixel offsets of each dimension; "
            "nearest neighbour: each output element is the input element nearest to its mapped coordinate.",
    parameters=(r.INTERPOLATION, r.scales("DimensionCount"), r.offsets("InputPixelOffsets", 0.5),
                r.offsets("OutputPixelOffsets", -0.5), r.OUTPUT_SIZES),
    introduced="2_1",
    tables=r.RESAMPLE_TABLES + (SupportTable("2_1", (4,), FLOATS),),
    in_place=False,
    constraints=r.SAME_TYPE_AND_RANK + " DimensionCount (the length of Scales, InputPixelOffsets and "
                "OutputPixelOffsets) is their DimensionCount.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Resize (opset 13), nearest, where one coordinate transformation (half_pixel, asymmetric, "
               "tf_half_pixel_for_nn) with floor or round_prefer_ceil is the mapping of every axis (offsets "
               "0.5 and -0.5: half_pixel, round_prefer_ceil); other offsets are not reachable",
    to_onnx=to_onnx,
    source=page("DML_RESAMPLE1_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=r.resample_shapes,
    shape_check=r.resample_check,
    source_index=r.sources(lambda params: r.half_up),
    integers=lambda params, dtype: None,
    accumulation=r.linear_accumulation((r.resample_mapping,)),
    ulp_tolerance=r.ulp_tolerance,
    rounded_integers=r.rounded_integers,
    notes=(r.LINEAR_NOTE, r.OUTPUT_SIZES_NOTE,
           "The page gives no default offsets: every case gives InputPixelOffsets and OutputPixelOffsets.",
           "The page says nearest neighbour chooses the input element nearest to the pixel centre; it does "
           "not say which of two equally near elements is chosen. The harness rounds halves up "
           "(floor(x + 0.5)) (docs/findings/issue25-resample_nearest.md).",
           "DML_RESAMPLE2's page calls this operator RESAMPLE2 with RoundingDirection DECREASING and the "
           "OutputPixelOffsets 0.5 lower, which is floor((o - OutputPixelOffset + 0.5) / Scale - "
           "InputPixelOffset): not the nearest element where Scale is not 1; the findings page says what "
           "DirectML does."),
)
