import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, NotReachable, OnnxNode,
                                    OperatorSpec, Parameter, SupportTable, page)
from conformance.specs.families import DATA_MOVEMENT

ARRAYS = ("Offsets", "Sizes", "Strides")


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor.Sizes = Sizes."""
    return (tuple(params["Sizes"]),)


def shape_check(input_shapes, params) -> str | None:
    """The arrays have one value per input dimension, and every element copied lies within the input."""
    missing = [name for name in ARRAYS if params.get(name) is None]
    if missing:
        return f"{', '.join(missing)} required: one value per input dimension"
    rank = len(input_shapes[0])
    if len(params["Offsets"]) != rank:
        return (f"DimensionCount {len(params['Offsets'])} (the length of Offsets, Sizes, Strides) must be "
                f"InputTensor.DimensionCount {rank}")
    for i, (n, offset, size, stride) in enumerate(zip(input_shapes[0], *(params[a] for a in ARRAYS))):
        if size < 1:
            return f"Sizes[{i}] {size}: an empty output is not tested (the output's sizes are Sizes)"
        last = offset + stride * (size - 1)
        if last >= n:
            return (f"dimension {i}: Offsets {offset} + Strides {stride} * (Sizes {size} - 1) = {last} reads beyond "
                    f"InputTensor.Sizes[{i}] {n} (out-of-bounds reads are not permitted)")
    return None


def source_index(output_index, inputs, params) -> tuple:
    """InputTensor[Offsets + Strides * OutputCoordinates]."""
    which = np.zeros(np.shape(output_index[0]), dtype=np.intp)
    return which, tuple(offset + stride * np.asarray(o)
                        for o, offset, stride in zip(output_index, params["Offsets"], params["Strides"]))


def onnx_slice(starts, ends, steps) -> OnnxNode:
    """ONNX's Slice (opset 13) over every axis, its starts, ends, axes and steps as int64 initializers;
    alone: a shared graph's (1,) placeholder is refused by a Slice over more axes."""
    axes = np.arange(len(starts), dtype=np.int64)
    initializers = tuple(np.array(v, dtype=np.int64) for v in (starts, ends, axes, steps))
    return OnnxNode("Slice", 13, constant_inputs=initializers, alone=True)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    offsets, sizes, strides = (params[a] for a in ARRAYS)
    if any(s == 0 for s in strides):
        raise NotReachable("a stride of 0: ONNX's Slice refuses a step of 0")
    # end = the last element read + 1: exclusive, and within the input whatever the stride
    return onnx_slice(offsets, [o + s * (n - 1) + 1 for o, s, n in zip(offsets, strides, sizes)], strides)


SPEC = OperatorSpec(
    name="SLICE",
    struct="DML_SLICE_OPERATOR_DESC",
    formula="OutputTensor[OutputCoordinates] = InputTensor[Offsets + Strides * OutputCoordinates], "
            "OutputTensor.Sizes = Sizes",
    summary="Extracts a single subregion (a \"slice\") of an input tensor: in each dimension Sizes[i] elements, "
            "from Offsets[i] on, Strides[i] apart.",
    parameters=(Parameter("Offsets", "uint_array", None,
                          "The slice's start along each dimension of the input tensor, in elements.",
                          count="DimensionCount"),
                Parameter("Sizes", "uint_array", None,
                          "The slice's size along each dimension, in elements; the output tensor's sizes.",
                          count="DimensionCount"),
                Parameter("Strides", "uint_array", None,
                          "The slice's stride along each dimension of the input tensor, in elements (a stride "
                          "larger than 1 skips elements).", count="DimensionCount")),
    introduced="1_0",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_1", (4, 5), FLOATS + INTEGERS_32),
            SupportTable("1_0", (4, 5), FLOATS + ("int32", "int16", "uint32", "uint16"))),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and DimensionCount. DimensionCount "
                "(the length of Offsets, Sizes and Strides) is the tensors' DimensionCount: 1 to 8 from "
                "DML_FEATURE_LEVEL_3_0, 4 or 5 before. Sizes are the output tensor's sizes. Only elements within "
                "the input may be copied (out-of-bounds reads are not permitted).",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Slice (opset 13) with starts, ends, axes and steps as int64 initializers",
    to_onnx=to_onnx,
    source=page("DML_SLICE_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,  # a copy: no arithmetic on integers
    notes=("Tables transcribed from the page (MicrosoftDocs/sdk-api, ms.date 11/04/2020): 1_0, 2_1, 3_0, 4_1.",
           "The page does not forbid a stride of 0 (SLICE1's page does): such a case repeats one element; "
           "ONNX's Slice cannot express it.",
           "Sizes of 0 (an empty output) are refused at load; the page does not say whether they are allowed, "
           "and DirectML was not asked."),
)
