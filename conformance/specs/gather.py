import numpy as np

from conformance.specs.base import OnnxNode, OperatorSpec, Parameter, page
from conformance.specs.families import INDEX
from conformance.specs.gathering import (INDICES_TYPE, INPUT_AND_INDICES, NEGATIVE, aligned, crop_problem,
                                         index_tables, index_type_level, leading_ones_problem, onnx_index_type,
                                         unaligned, wrapped)


def _relevant(input_shape, indices_shape, params) -> tuple:
    """InputTensor.Sizes[0..Axis], the last IndexDimensions of IndicesTensor.Sizes, InputTensor.Sizes[Axis+1..]."""
    axis, count = params["Axis"], params["IndexDimensions"]
    return (tuple(input_shape[:axis]) + tuple(indices_shape[len(indices_shape) - count:])
            + tuple(input_shape[axis + 1:]))


def output_shapes(input_shapes, params) -> tuple:
    """The relevant sizes right-aligned to the DimensionCount: leading ones padded or cropped."""
    return (aligned(_relevant(*input_shapes, params), len(input_shapes[0])),)


def shape_check(input_shapes, params) -> str | None:
    data, indices = input_shapes
    axis, count = params["Axis"], params["IndexDimensions"]
    if len(indices) != len(data):
        return f"IndicesTensor has {len(indices)} dimensions, InputTensor {len(data)}: they must have the same"
    if not 0 <= axis < len(data):
        return f"Axis {axis} must be in [0, InputTensor.DimensionCount {len(data)})"
    if not 0 <= count <= len(indices):  # the page says [0, DimensionCount); its example 1 takes DimensionCount
        return f"IndexDimensions {count} must be in [0, IndicesTensor.DimensionCount {len(indices)}]"
    if data[axis] == 0:
        return f"InputTensor's Axis dimension has no element to gather"
    return (leading_ones_problem(indices, count, "IndicesTensor")
            or crop_problem(_relevant(data, indices, params), len(data), "the output"))


def index_bounds(input_shapes, params):
    """Every index addresses the Axis dimension of InputTensor."""
    return np.int64(input_shapes[0][params["Axis"]])


def source_index(output_index, inputs, params) -> tuple:
    """output[before, i, after] = input[before, indices[i], after], i the last IndexDimensions."""
    data, indices = (np.asarray(v) for v in inputs)
    axis, count = params["Axis"], params["IndexDimensions"]
    index = unaligned(output_index, len(data.shape) + count - 1)
    chosen = indices.reshape(indices.shape[indices.ndim - count:])[tuple(index[axis:axis + count])]
    source = index[:axis] + (wrapped(chosen, data.shape[axis]),) + index[axis + count:]
    return np.zeros(np.shape(source[0]), dtype=np.intp), source


def onnx_shapes(input_shapes, params) -> tuple:
    """Gather takes the indices in their last IndexDimensions dimensions (none: one index)."""
    data, indices = input_shapes
    return tuple(data), tuple(indices[len(indices) - params["IndexDimensions"]:])


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    onnx_index_type(params)
    # Alone: a shared graph's (1,) placeholder is refused by an axis past its one dimension
    return OnnxNode("Gather", 13, attributes={"axis": int(params["Axis"])}, alone=True)


SPEC = OperatorSpec(
    name="GATHER",
    struct="DML_GATHER_OPERATOR_DESC",
    formula="output[...] = input[..., indices[...], ...]: OutputTensor.Sizes = {InputTensor.Sizes[0..Axis], "
            "IndicesTensor.Sizes[(DimensionCount - IndexDimensions)..], InputTensor.Sizes[(Axis+1)..]}, "
            "right-aligned (leading ones cropped or padded)",
    summary="Gathers elements from the input tensor along Axis, using IndicesTensor to remap indices.",
    inputs=INPUT_AND_INDICES,
    parameters=(Parameter("Axis", "uint", 0, "The axis dimension of InputTensor to gather on, in "
                          "[0, InputTensor.DimensionCount)."),
                Parameter("IndexDimensions", "uint", 1, "The number of actual index dimensions within "
                          "IndicesTensor after ignoring any irrelevant leading ones, in [0, IndicesTensor.DimensionCount)."),
                INDICES_TYPE),
    introduced="1_0",
    tables=index_tables("1_0"),
    in_place=False,
    constraints="IndicesTensor, InputTensor and OutputTensor must have the same DimensionCount; InputTensor and "
                "OutputTensor the same DataType. IndicesTensor: UINT32 (1_0, 2_1); INT64, INT32, UINT64, UINT32 "
                "(3_0 on). " + NEGATIVE + " Invalid indices yield incorrect outputs, no failure (reads clamped).",
    tolerance_ulp={"float32": 0, "float16": 0, "float64": 0},  # a copy: exact
    onnx_route="Gather (opset 13, axis = Axis) on the indices' last IndexDimensions dimensions; INT32 or INT64 "
               "indices (unsigned ones are not reachable)",
    to_onnx=to_onnx,
    source=page("DML_GATHER_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=index_type_level,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    index_bounds=index_bounds,
    onnx_shapes=onnx_shapes,
    integers=lambda params, dtype: None,  # a copy: no integer arithmetic
    notes=("The page gives IndexDimensions the range [0, IndicesTensor.DimensionCount), yet its example 1 has "
           "1-D indices with IndexDimensions 1: the check takes [0, DimensionCount].",
           "The page's example 3 (Input {3,2}, Indices {1,2}, Axis 1) says IndexDimensions 2, for which its own "
           "rule makes 3 relevant output dimensions, not the {3,2} shown: the case file runs it with 1.",
           "The page says what an out-of-range index gives only as 'incorrect outputs' (reads clamped within "
           "the input's memory): no case has one.",
           "IndicesType is no field of the struct: IndicesTensor's data type, chosen by the case."),
)
