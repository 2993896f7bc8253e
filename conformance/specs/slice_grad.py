import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, Input, OperatorSpec, Output,
                                    Parameter, SupportTable, no_onnx, page)
from conformance.specs.families import DATA_MOVEMENT
from conformance.specs.slice1 import WINDOW, copy_start, max_copied


def output_sizes(params) -> list:
    """OutputGradientTensor's sizes: the case's OutputSizes, else the least that holds the window."""
    chosen = params.get("OutputSizes")
    return list(chosen) if chosen is not None else [o + n for o, n in zip(params["InputWindowOffsets"],
                                                                           params["InputWindowSizes"])]


def output_shapes(input_shapes, params) -> tuple:
    return (tuple(output_sizes(params)),)


def shape_check(input_shapes, params) -> str | None:
    """SLICE1's rules with the tensors' roles swapped: the window lies within OutputGradientTensor, and
    InputGradientTensor has 1 to MaxCopiedElements[i] elements in each dimension."""
    missing = [name for name in WINDOW if params.get(name) is None]
    if missing:
        return f"{', '.join(missing)} required: one value per dimension"
    shape = input_shapes[0]
    if len(params["InputWindowOffsets"]) != len(shape):
        return (f"DimensionCount {len(params['InputWindowOffsets'])} (the length of the InputWindow arrays) must be "
                f"InputGradientTensor.DimensionCount {len(shape)}")
    chosen = params.get("OutputSizes")
    if chosen is not None and len(chosen) != len(shape):
        return f"OutputSizes has {len(chosen)} values; the tensors have {len(shape)} dimensions"
    sizes = output_sizes(params)
    for i, (n, offset, size, stride) in enumerate(zip(sizes, *(params[w] for w in WINDOW))):
        if size < 1:
            return f"InputWindowSizes[{i}] {size}: the input window mustn't be empty in any dimension"
        if offset + size > n:
            return (f"dimension {i}: InputWindowOffsets {offset} + InputWindowSizes {size} > OutputGradientTensor.Sizes"
                    f"[{i}] {n} (the window lies within the output)")
        if stride == 0:
            return f"InputWindowStrides[{i}] 0: this operator requires non-zero strides"
    most = max_copied(params["InputWindowSizes"], params["InputWindowStrides"])
    for i, (k, m) in enumerate(zip(shape, most)):
        if not 1 <= k <= m:
            return (f"InputGradientTensor.Sizes[{i}] {k}: SLICE1's output sizes, 1 to MaxCopiedElements[{i}] {m}, "
                    f"for this window")
    return None


def source_index(output_index, inputs, params) -> tuple:
    """The InputGradientTensor element whose slice copy lands here, where SLICE1's formula
    CopyStart + InputWindowStrides * c reaches this index; -1 (the page's 0) elsewhere."""
    shape = np.shape(inputs[0])
    coordinates, reached = [], True
    for o, start, stride, n in zip(output_index, copy_start(params), params["InputWindowStrides"], shape):
        step, rest = np.divmod(np.asarray(o) - start, stride)
        coordinates.append(np.where((rest == 0) & (step >= 0) & (step < n), step, 0))
        reached = reached & (rest == 0) & (step >= 0) & (step < n)
    which = np.where(reached, 0, -1)
    return which, tuple(coordinates)


SPEC = OperatorSpec(
    name="SLICE_GRAD",
    struct="DML_SLICE_GRAD_OPERATOR_DESC",
    formula="OutputGradientTensor = 0, then OutputGradientTensor[CopyStart + InputWindowStrides * c] = "
            "InputGradientTensor[c] for every c (CopyStart as SLICE1's: the window's end where a stride is negative)",
    summary="Backpropagation of SLICE1: the incoming gradient's elements placed where SLICE1 would have read them "
            "from, every other element 0.",
    inputs=(Input("InputGradientTensor"),),
    outputs=(Output("OutputGradientTensor"),),
    parameters=(Parameter("InputWindowOffsets", "uint_array", None,
                          "SLICE1's InputWindowOffsets: the beginning of the window in each dimension.",
                          count="DimensionCount"),
                Parameter("InputWindowSizes", "uint_array", None,
                          "SLICE1's InputWindowSizes: the extent of the window in each dimension; not 0.",
                          count="DimensionCount"),
                Parameter("InputWindowStrides", "int_array", None,
                          "SLICE1's InputWindowStrides; non-zero, a negative one flips the window's direction.",
                          count="DimensionCount"),
                Parameter("OutputSizes", "uint_array", None,
                          "No field: OutputGradientTensor's sizes (SLICE1's input's), the window within them; unset: "
                          "InputWindowOffsets + InputWindowSizes.", sizes_of="OutputGradientTensor")),
    introduced="3_0",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32),
            SupportTable("3_1", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("3_0", (4, 5), FLOATS + INTEGERS_32)),
    in_place=False,
    constraints="InputGradientTensor and OutputGradientTensor must have the same DataType and DimensionCount "
                "(DimensionCount, the length of the InputWindow arrays: 4 or 5 at DML_FEATURE_LEVEL_3_0, 1 to 8 from "
                "3_1). The strides are non-zero. As SLICE1's: the window lies within OutputGradientTensor and "
                "InputGradientTensor has 1 to MaxCopiedElements[i] elements in each dimension.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # copies and zeros: exact
    onnx_route="none: ONNX has no slice gradient (ONNX Runtime's SliceGrad is a training build's contrib operator)",
    to_onnx=no_onnx("ONNX has no slice gradient operator (SliceGrad is in ONNX Runtime's training builds only)"),
    source=page("DML_SLICE_GRAD_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,  # copies and zeros: no arithmetic on integers
    notes=("Tables transcribed from the page (MicrosoftDocs/sdk-api): 3_0, 3_1, 4_1.",
           "The page's field list types InputWindowStrides as const UINT*; its text (negative strides flip the "
           "window) and its syntax block make it const INT*: int_array here.",
           "The elements no slice element lands on are 0 (+0 for floats); InputGradientTensor's sizes are the "
           "case's shape, OutputGradientTensor's the case's OutputSizes (not in the struct)."),
)
