import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, OperatorSpec, Parameter,
                                    SupportTable, page)
from conformance.specs.families import DATA_MOVEMENT
from conformance.specs.slice import onnx_slice

WINDOW = ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides")


def max_copied(sizes, strides) -> list:
    """MaxCopiedElements[i] = 1 + (InputWindowSize[i] - 1) / |InputWindowStrides[i]| (whole elements)."""
    return [1 + (n - 1) // abs(s) for n, s in zip(sizes, strides)]


def output_sizes(params) -> list:
    """The output's sizes: the case's OutputSizes, else every element the window reaches."""
    chosen = params.get("OutputSizes")
    return list(chosen) if chosen is not None else max_copied(params["InputWindowSizes"], params["InputWindowStrides"])


def output_shapes(input_shapes, params) -> tuple:
    return (tuple(output_sizes(params)),)


def shape_check(input_shapes, params) -> str | None:
    missing = [name for name in WINDOW if params.get(name) is None]
    if missing:
        return f"{', '.join(missing)} required: one value per input dimension"
    rank = len(input_shapes[0])
    if len(params["InputWindowOffsets"]) != rank:
        return (f"DimensionCount {len(params['InputWindowOffsets'])} (the length of the InputWindow arrays) must be "
                f"InputTensor.DimensionCount {rank}")
    chosen = params.get("OutputSizes")
    if chosen is not None and len(chosen) != rank:
        return f"OutputSizes has {len(chosen)} values; the tensors have {rank} dimensions"
    for i, (n, offset, size, stride) in enumerate(zip(input_shapes[0], *(params[w] for w in WINDOW))):
        if size < 1:
            return f"InputWindowSizes[{i}] {size}: the input window mustn't be empty in any dimension"
        if offset + size > n:
            return (f"dimension {i}: InputWindowOffsets {offset} + InputWindowSizes {size} > InputTensor.Sizes[{i}] "
                    f"{n} (the window mustn't extend beyond the input)")
        if stride == 0:
            return f"InputWindowStrides[{i}] 0: strides may not be 0"
    most = max_copied(params["InputWindowSizes"], params["InputWindowStrides"])
    for i, (k, m) in enumerate(zip(output_sizes(params), most)):
        if not 1 <= k <= m:
            return f"OutputSizes[{i}] {k}: the page allows 1 <= OutputSizes[i] <= MaxCopiedElements[i] {m}"
    return None


def copy_start(params) -> list:
    """CopyStart: the window's offset, or its last element where the stride is negative."""
    return [o + (n - 1 if s < 0 else 0) for o, n, s in zip(*(params[w] for w in WINDOW))]


def source_index(output_index, inputs, params) -> tuple:
    """InputTensor[CopyStart + InputWindowStrides * OutputCoordinates]."""
    which = np.zeros(np.shape(output_index[0]), dtype=np.intp)
    return which, tuple(start + stride * np.asarray(o)
                        for o, start, stride in zip(output_index, copy_start(params), params["InputWindowStrides"]))


def to_onnx(dtype: str, params: dict):
    starts, strides = copy_start(params), params["InputWindowStrides"]
    # end: one step past the last element read; backwards past index 0 it is INT64_MIN (ONNX clamps it to
    # "before the first element", where a literal -1 would mean the last one)
    ends = [start + stride * count for start, stride, count in zip(starts, strides, output_sizes(params))]
    return onnx_slice(starts, [end if end >= 0 else np.iinfo(np.int64).min for end in ends], strides)


SPEC = OperatorSpec(
    name="SLICE1",
    struct="DML_SLICE1_OPERATOR_DESC",
    formula="CopyStart[i] = InputWindowOffsets[i] + (InputWindowSizes[i] - 1 if InputWindowStrides[i] < 0 else 0); "
            "OutputTensor[OutputCoordinates] = InputTensor[CopyStart + InputWindowStrides * OutputCoordinates], "
            "1 <= OutputTensor.Sizes[i] <= 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]|",
    summary="Extracts a single subregion (a \"slice\") of an input tensor through an input window: a positive "
            "stride copies from the window's beginning, a negative one from its end, backwards.",
    parameters=(Parameter("InputWindowOffsets", "uint_array", None,
                          "The beginning of the input window in each dimension, in elements; "
                          "InputWindowOffsets[i] + InputWindowSizes[i] <= InputTensor.Sizes[i].",
                          count="DimensionCount"),
                Parameter("InputWindowSizes", "uint_array", None,
                          "The extent of the input window in each dimension, in elements; not 0.",
                          count="DimensionCount"),
                Parameter("InputWindowStrides", "int_array", None,
                          "The slice's stride along each dimension, in elements: its magnitude the step, its sign "
                          "where copying starts (positive: the window's beginning; negative: its end); not 0.",
                          count="DimensionCount"),
                Parameter("OutputSizes", "uint_array", None,
                          "No field: the output tensor's sizes, which the page lets a case choose "
                          "(1 <= OutputSizes[i] <= MaxCopiedElements[i]); unset: every element the window reaches.",
                          sizes_of="OutputTensor")),
    introduced="2_1",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_1", (4, 5), FLOATS + INTEGERS_32)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and DimensionCount. DimensionCount "
                "(the length of the InputWindow arrays) is 1 to 8 from DML_FEATURE_LEVEL_3_0, 4 or 5 before. The "
                "window is not empty and lies within the input; strides are not 0; "
                "1 <= OutputTensor.Sizes[i] <= MaxCopiedElements[i].",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Slice (opset 13) with starts, ends, axes and steps as int64 initializers (a negative step reads "
               "backwards from the window's end)",
    to_onnx=to_onnx,
    source=page("DML_SLICE1_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,  # a copy: no arithmetic on integers
    notes=("Tables transcribed from the page (MicrosoftDocs/sdk-api): 2_1, 3_0, 4_1.",
           "The page's field list types InputWindowStrides as const UINT*; its text (negative strides), its "
           "example 2 and DirectML.h make it const INT*: int_array here.",
           "The page's MaxCopiedElements divides by InputWindowStrides[i]; with a negative stride that is its "
           "magnitude (example 2: size 4, stride -2, two elements)."),
)
