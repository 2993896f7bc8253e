import numpy as np

from conformance.specs.base import OnnxNode, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import INDEX
from conformance.specs.gathering import (DATA_3_0, INDICES_TYPE, INPUT_AND_INDICES, NEGATIVE, index_type_level,
                                         onnx_index_type, wrapped)


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor.Sizes = IndicesTensor.Sizes."""
    return (tuple(input_shapes[1]),)


def shape_check(input_shapes, params) -> str | None:
    data, indices = input_shapes
    axis = params["Axis"]
    if len(indices) != len(data):
        return f"IndicesTensor has {len(indices)} dimensions, InputTensor {len(data)}: they must have the same"
    if not 0 <= axis < len(data):
        return f"Axis {axis} must be in [0, InputTensor.DimensionCount {len(data)})"
    other = [d for d in range(len(data)) if d != axis and data[d] != indices[d]]
    if other:
        return (f"IndicesTensor.Sizes {list(indices)} must match InputTensor.Sizes {list(data)} in every dimension "
                f"but Axis {axis} (not in {other[0]})")
    if data[axis] == 0:
        return "InputTensor's Axis dimension has no element to gather"
    return None


def index_bounds(input_shapes, params):
    return np.int64(input_shapes[0][params["Axis"]])


def source_index(output_index, inputs, params) -> tuple:
    """output[i, j, k] = input[i, indices[i, j, k], k] where Axis is 1."""
    data, indices = (np.asarray(v) for v in inputs)
    axis = params["Axis"]
    index = tuple(np.asarray(o) for o in output_index)
    source = index[:axis] + (wrapped(indices[index], data.shape[axis]),) + index[axis + 1:]
    return np.zeros(np.shape(index[0]), dtype=np.intp), source


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    onnx_index_type(params)
    return OnnxNode("GatherElements", 13, attributes={"axis": int(params["Axis"])}, alone=True)  # as Gather


SPEC = OperatorSpec(
    name="GATHER_ELEMENTS",
    struct="DML_GATHER_ELEMENTS_OPERATOR_DESC",
    formula="output[i, j, k, ...] = input[i, index[i, j, k, ...], k, ...] (Axis 1; the index replaces the "
            "Axis coordinate), OutputTensor.Sizes = IndicesTensor.Sizes",
    summary="Gathers elements from the input tensor along the given axis using the indices tensor to remap "
            "into the input.",
    inputs=INPUT_AND_INDICES,
    parameters=(Parameter("Axis", "uint", 0, "The axis dimension of InputTensor to gather along, in "
                          "[0, InputTensor.DimensionCount)."),
                INDICES_TYPE),
    introduced="2_1",
    tables=(SupportTable("3_0", tuple(range(1, 9)), DATA_3_0),
            SupportTable("2_1", (4,), DATA_3_0)),
    in_place=False,
    constraints="IndicesTensor, InputTensor and OutputTensor must have the same DimensionCount; InputTensor and "
                "OutputTensor the same DataType; IndicesTensor.Sizes match InputTensor.Sizes but in Axis; "
                "OutputTensor.Sizes are IndicesTensor.Sizes. IndicesTensor: UINT32 (2_1); INT64, INT32, UINT64, "
                "UINT32 (3_0). " + NEGATIVE,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="GatherElements (opset 13, axis = Axis); INT32 or INT64 indices (unsigned ones are not reachable)",
    to_onnx=to_onnx,
    source=page("DML_GATHER_ELEMENTS_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=index_type_level,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    index_bounds=index_bounds,
    integers=lambda params, dtype: None,
    notes=("The stored page's tables are 3_0 and 2_1: a later table (64-bit data, as GATHER's 4_1) was not read.",
           "The page says nothing of out-of-range indices: no case has one.",
           "IndicesType is no field of the struct: IndicesTensor's data type, chosen by the case."),
)
