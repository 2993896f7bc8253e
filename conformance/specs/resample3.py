from conformance.specs import resample2, resampling as r
from conformance.specs.base import FLOATS, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import DATA_MOVEMENT

ANTIALIASED = Parameter("Antialiased", "int", 0,
                        "A BOOL: whether to antialias where the scale shrinks. The page's text on it was not "
                        "read; the cases give FALSE (0), and TRUE is refused at load.")


def shape_check(input_shapes, params) -> str | None:
    if params.get("Antialiased"):
        return "Antialiased TRUE: its page text was not read; only FALSE (0) is tested"
    return r.resample_check(input_shapes, params)


SPEC = OperatorSpec(
    name="RESAMPLE3",
    struct="DML_RESAMPLE3_OPERATOR_DESC",
    formula=resample2.FORMULA,
    summary="RESAMPLE2 with an Antialiased field; nearest neighbour with Antialiased FALSE as RESAMPLE2.",
    parameters=resample2.PARAMETERS + (ANTIALIASED, r.OUTPUT_SIZES),
    introduced="6_4",
    tables=(SupportTable("6_4", r.ONE_TO_FOUR, FLOATS),),
    in_place=False,
    constraints=resample2.CONSTRAINTS,
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route=resample2.ONNX_ROUTE + "; Antialiased TRUE is not reachable",
    to_onnx=resample2.to_onnx,
    source=page("DML_RESAMPLE3_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=r.resample_shapes,
    shape_check=shape_check,
    source_index=r.sources(resample2.rounding),
    integers=lambda params, dtype: None,
    accumulation=r.linear_accumulation((r.resample_mapping,)),
    ulp_tolerance=r.ulp_tolerance,
    notes=(r.LINEAR_NOTE, r.OUTPUT_SIZES_NOTE,
           "The page's text past RoundingDirection and its support tables were not read. The level, 6_4, is "
           "DirectML.h's (DML_OPERATOR_RESAMPLE3 under DML_TARGET_VERSION >= 0x6400); the table here is "
           "RESAMPLE2's (1 to 4-D, FLOAT32, FLOAT16) at that level, an assumption, not a transcription.",
           "The coordinate formula and RoundingDirection are RESAMPLE2's (the page's first part, read)."),
)
