from conformance.specs.base import OperatorSpec, Parameter, SupportTable, no_onnx, page
from conformance.specs.families import GENERATOR
from conformance.specs.generated import ALL_TYPES, OUTPUT_SIZES_FIELD, TYPES_4_0, all_filled, no_integer_formula
from conformance.specs.shapes import generated_check

TWO_TO_FOUR = (2, 3, 4)


def shape_check(input_shapes, params) -> str | None:
    problem = generated_check(input_shapes, params)
    if problem:
        return problem
    if not -(1 << 31) <= int(params.get("Offset") or 0) < 1 << 31:
        return f"Offset {params['Offset']} is not an INT (32 bits)"
    return None


SPEC = OperatorSpec(
    name="DIAGONAL_MATRIX",
    struct="DML_DIAGONAL_MATRIX_OPERATOR_DESC",
    formula="OutputTensor[coordinate] = Value if coordinate.y + Offset == coordinate.x else 0 (the last two "
            "dimensions a matrix, y the row, x the column; the leading ones a batch)",
    summary="Generates an identity-like matrix with ones (or other explicit value) on the major diagonal, and zeros "
            "everywhere else; the diagonal shifted by Offset.",
    parameters=(Parameter("Offset", "int", 0, "An offset to shift the diagonal lines of Value, positive to the "
                          "right/up, negative to the left/down."),
                Parameter("Value", "float", 1.0, "A value to fill along the 2D diagonal (the standard value is 1.0); "
                          "truncated in a tensor that is not FLOAT16 or FLOAT32 (10.6 becomes 10)."),
                OUTPUT_SIZES_FIELD),
    introduced="2_0",
    tables=(SupportTable("5_1", TWO_TO_FOUR, ALL_TYPES),
            SupportTable("4_0", TWO_TO_FOUR, TYPES_4_0),
            SupportTable("2_1", (4,), TYPES_4_0),
            SupportTable("2_0", (4,), ("float32", "float16"))),
    in_place=False,
    constraints="OutputTensor's dimensions are { Batch1, Batch2, OutputHeight, OutputWidth }; height and width need "
                "not be square.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # Value or 0: exact
    onnx_route="none: EyeLike needs an input tensor, DIAGONAL_MATRIX has none",
    to_onnx=no_onnx("ONNX's EyeLike takes an input tensor (its shape); DIAGONAL_MATRIX has none"),
    source=page("DML_DIAGONAL_MATRIX_OPERATOR_DESC"),
    family=GENERATOR,
    inputs=(),
    shape_check=shape_check,
    source_index=all_filled,
    integers=no_integer_formula,
    notes=("Value is a FLOAT: an integer tensor gets it truncated toward zero (the page); beyond the type's range "
           "it saturates and NaN is 0 (D3D's float-to-integer rule: the page is silent). FLOAT16 rounds it half to "
           "even; FLOAT64 holds the float32 exactly.",
           "The tables are the page's (MicrosoftDocs/sdk-api, ns-directml-dml_diagonal_matrix_operator_desc.md): "
           "5_1, 4_0, 2_1 and 2_0."),
)
