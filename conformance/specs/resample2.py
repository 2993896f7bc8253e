from conformance.specs import resampling as r
from conformance.specs.base import FLOATS, OperatorSpec, SupportTable, page
from conformance.specs.families import DATA_MOVEMENT

PARAMETERS = (r.INTERPOLATION, r.ROUNDING, r.scales("DimensionCount"), r.offsets("InputPixelOffsets", 0.5),
              r.offsets("OutputPixelOffsets", -0.5))
FORMULA = ("OutputTensorX = (InputTensorX + InputPixelOffset) * Scale + OutputPixelOffset: OutputTensor[o] = "
           "InputTensor[x], x[i] = clamp(R((o[i] - OutputPixelOffsets[i]) / Scales[i] - InputPixelOffsets[i]), "
           "0, InputTensor.Sizes[i] - 1), R ceil where RoundingDirection is INCREASING, floor where DECREASING")
CONSTRAINTS = (r.SAME_TYPE_AND_RANK + " DimensionCount (the length of Scales, InputPixelOffsets and "
               "OutputPixelOffsets) is their DimensionCount.")
ONNX_ROUTE = ("Resize (opset 13), nearest, where one coordinate transformation and nearest mode is the mapping "
              "(floor, ceil; round_prefer_ceil and round_prefer_floor where the input offset is 0.5 off "
              "half_pixel's, asymmetric's or tf_half_pixel_for_nn's); other offsets are not reachable")


def to_onnx(dtype: str, params: dict):
    direction = "ceil" if params["RoundingDirection"] == r.INCREASING else "floor"
    return r.resize(params, direction, r.pixel_offsets(params))


def rounding(params):
    return r.np.ceil if params["RoundingDirection"] == r.INCREASING else r.np.floor


SPEC = OperatorSpec(
    name="RESAMPLE2",
    struct="DML_RESAMPLE2_OPERATOR_DESC",
    formula=FORMULA,
    summary="Resamples the input to the output's sizes by the scale and pixel offsets of each dimension; "
            "nearest neighbour: fractional coordinates rounded toward RoundingDirection.",
    parameters=PARAMETERS + (r.OUTPUT_SIZES,),
    introduced="5_1",
    tables=(SupportTable("5_1", r.ONE_TO_FOUR, FLOATS),),
    in_place=False,
    constraints=CONSTRAINTS,
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route=ONNX_ROUTE,
    to_onnx=to_onnx,
    source=page("DML_RESAMPLE2_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=r.resample_shapes,
    shape_check=r.resample_check,
    source_index=r.sources(rounding),
    integers=lambda params, dtype: None,
    accumulation=r.linear_accumulation((r.resample_mapping,)),
    ulp_tolerance=r.ulp_tolerance,
    notes=(r.LINEAR_NOTE, r.OUTPUT_SIZES_NOTE,
           "The page gives no default offsets: every case gives InputPixelOffsets and OutputPixelOffsets.",
           "Transcribed: the DML_FEATURE_LEVEL_5_1 table (1 to 4-D, FLOAT32, FLOAT16) of the page's 2022 "
           "copy (MicrosoftDocs/sdk-api). Tables the newer page may add (INT8, UINT8 as DML_RESAMPLE's 6_2 "
           "has) were not read."),
)
