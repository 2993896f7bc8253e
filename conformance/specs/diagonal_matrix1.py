import numpy as np

from conformance.specs.base import (ABSENT, PRESENT, Input, OperatorSpec, Parameter, SupportTable, no_onnx,
                                    page)
from conformance.specs.families import GENERATOR
from conformance.specs.generated import (ALL_TYPES, OUTPUT_SIZES_FIELD, VALUE_DATA_TYPE, no_integer_formula, scalar,
                                         scalars_check)
from conformance.specs.diagonal_matrix import TWO_TO_FOUR
from oracle.diagonal_matrix1 import filled

INT_RANGE = (-(1 << 31), (1 << 31) - 1)


def shape_check(input_shapes, params) -> str | None:
    problem = scalars_check("Value")(input_shapes, params)
    if problem:
        return problem
    for name in ("DiagonalFillBegin", "DiagonalFillEnd"):
        if not INT_RANGE[0] <= int(params.get(name) or 0) <= INT_RANGE[1]:
            return f"{name} {params[name]} is not an INT (32 bits)"
    return None


def source_index(output_index, inputs, params) -> tuple:
    """Value where the page's useValue holds (a constant: which -1), else InputTensor's element at the same
    coordinate, or 0 without it (which -1 too)."""
    use = filled(params["OutputSizes"], params["DiagonalFillBegin"], params["DiagonalFillEnd"])[output_index]
    which = np.where(use | (len(inputs) == 0), -1, 0).astype(np.intp)
    return which, tuple(np.asarray(o) for o in output_index)


SPEC = OperatorSpec(
    name="DIAGONAL_MATRIX1",
    struct="DML_DIAGONAL_MATRIX1_OPERATOR_DESC",
    formula="topX = x - y; useValue = (DiagonalFillEnd >= DiagonalFillBegin) ^ (topX >= DiagonalFillBegin) ^ "
            "(topX < DiagonalFillEnd); OutputTensor[coordinate] = Value if useValue else InputTensor[coordinate] "
            "(0 without InputTensor)",
    summary="Generates an identity-like matrix with Value along the given diagonal span, other elements the input's "
            "or zeros (if no InputTensor is passed).",
    parameters=(VALUE_DATA_TYPE,
                scalar("Value", "A constant value to fill the output, with ValueDataType determining how to interpret "
                       "the member."),
                Parameter("DiagonalFillBegin", "int", 0, "The lower limit (beginning inclusive) of the range to fill "
                          "with Value; begin > end reverses the fill."),
                Parameter("DiagonalFillEnd", "int", 1, "The upper limit (ending exclusive) of the range to fill with "
                          "Value; begin > end reverses the fill."),
                Parameter("InputTensor", "optional_tensor", ABSENT,
                          "Not a field: whether the optional InputTensor is bound (absent: NULL, the other elements 0).",
                          choices=(PRESENT, ABSENT)),
                OUTPUT_SIZES_FIELD),
    introduced="5_1",
    tables=(SupportTable("5_1", TWO_TO_FOUR, ALL_TYPES),),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and DimensionCount. ValueDataType must "
                "match OutputTensor's DataType.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # Value or a copy: exact
    onnx_route="none: ONNX's EyeLike and Trilu do not fill a diagonal span with a value",
    to_onnx=no_onnx("no ONNX node fills a span of diagonals with a value (EyeLike: one diagonal of ones; Trilu: "
                    "a triangle of the input)"),
    source=page("DML_DIAGONAL_MATRIX1_OPERATOR_DESC"),
    family=GENERATOR,
    inputs=(Input("InputTensor", broadcast=False, aliases_output=False, optional=True),),
    shape_check=shape_check,
    source_index=source_index,
    integers=no_integer_formula,
    notes=("The page's first example (\"Default identity matrix\") gives Value 7 and shows ones on the diagonal: "
           "its pseudocode and its second example write Value; the cases follow the pseudocode.",
           "The page's one table (MicrosoftDocs/windows-ai-docs, ns-directml-dml_diagonal_matrix1_operator_desc.md) "
           "is of 5_1, its introduction: 2 to 4 dimensions, every type with FLOAT64.",
           "The page gives no default Value: unset, it is 0."),
)
