import numpy as np

from conformance.specs import join_split as js
from conformance.specs.base import FLOATS, INTEGERS_32, Input, OnnxNode, OperatorSpec, SupportTable, page
from conformance.specs.depth_space import copies, nan_payloads
from conformance.specs.families import DATA_MOVEMENT

STRUCT = "DML_JOIN_OPERATOR_DESC"


def input_shapes(shape, params):
    """The case's shape is the joined one (OutputTensor's): each input is it, AxisSizes[k] along Axis."""
    return js.axis_problem(shape, params) or js.cut(shape, params)


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor.Sizes: the inputs' sizes, the sum of their sizes along Axis there."""
    axis = params["Axis"]
    return (tuple(sum(s[axis] for s in input_shapes) if d == axis else n for d, n in enumerate(input_shapes[0])),)


def shape_check(input_shapes, params) -> str | None:
    """The page's pseudocode: every input of the output's DimensionCount, sizes equal but along Axis."""
    first = input_shapes[0]
    axis = params.get("Axis")
    if axis is None or not 0 <= axis < len(first):
        return f"Axis {axis} must be in [0, {len(first) - 1}] for {len(first)} dimensions"
    for k, shape in enumerate(input_shapes):
        if len(shape) != len(first) or any(a != b for d, (a, b) in enumerate(zip(shape, first)) if d != axis):
            return f"InputTensors[{k}] {list(shape)} differs from InputTensors[0] {list(first)} off Axis {axis}"
        if shape[axis] == 0:
            return f"InputTensors[{k}] has size 0 along Axis {axis}: the page allows any non-zero size"
    return None


def source_index(output_index, inputs, params) -> tuple:
    """The input an output element copies (the one whose stretch of Axis holds it) and its index there."""
    axis = params["Axis"]
    begins = js.starts({"AxisSizes": [np.shape(x)[axis] for x in inputs]})
    along = np.asarray(output_index[axis])
    which = np.searchsorted(begins, along, side="right") - 1
    return which, tuple(along - begins[which] if d == axis else np.asarray(o) for d, o in enumerate(output_index))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # Alone: a shared graph's (1,) placeholders are refused by a Concat along an axis above 0
    return OnnxNode("Concat", 13, attributes={"axis": params["Axis"]}, alone=True)


SPEC = OperatorSpec(
    name="JOIN",
    struct=STRUCT,
    formula="OutputTensor[..., o, ...] = InputTensors[i][..., o - (InputTensors[0..i-1].Sizes[Axis] summed), ...] "
            "along Axis; OutputTensor.Sizes[Axis] = the sum of InputTensors[i].Sizes[Axis]",
    summary="Concatenates an array of input tensors along a specified axis.",
    inputs=(Input("InputTensors", count="InputCount"),),
    parameters=(js.AXIS, js.axis_sizes("InputCount", "InputTensors", "the joined tensor is the case's shape")),
    introduced="1_0",
    # The page's four tables; its 3_0 table reads 4 to 5 dimensions where SPLIT's reads 1 to 8
    tables=(js.TABLE_4_1, SupportTable("3_0", (4, 5), FLOATS + INTEGERS_32), js.TABLE_2_1, js.TABLE_1_0),
    in_place=False,
    constraints="InputTensors and OutputTensor must have the same DataType and DimensionCount. InputCount > 0; "
                "every input's Sizes equal the output's except along Axis, where they sum to the output's; "
                "Axis in [0, OutputTensor.DimensionCount - 1].",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Concat (opset 13) with axis Axis, one graph input per joined tensor, kept alone",
    to_onnx=to_onnx,
    source=page(STRUCT),
    family=DATA_MOVEMENT,
    input_shapes_rule=input_shapes,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    special_values=nan_payloads,
    integers=copies,
    notes=js.NOTES + ("A case's shape is the joined tensor's (OutputTensor's); AxisSizes cuts it into the inputs "
                      "(InputTensors[k] has AxisSizes[k] along Axis) and must sum to its size along Axis.",
                      "The page's 3_0 table allows 4 to 5 dimensions, its 4_1 table 1 to 8 (SPLIT's 3_0 table: 1 to "
                      "8): ranks 1 to 3 and 6 to 8 are required from 4_1 on, as transcribed."),
)
