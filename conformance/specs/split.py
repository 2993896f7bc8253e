import numpy as np

from conformance.specs import join_split as js
from conformance.specs.base import FLOATS, INTEGERS_32, ONE_TO_EIGHT, OnnxNode, OperatorSpec, Output, SupportTable, page
from conformance.specs.depth_space import copies, nan_payloads
from conformance.specs.families import DATA_MOVEMENT

STRUCT = "DML_SPLIT_OPERATOR_DESC"


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensors[k].Sizes: the input's, AxisSizes[k] along Axis."""
    return js.cut(input_shapes[0], params)


def shape_check(input_shapes, params) -> str | None:
    """The page's pseudocode: the outputs' sizes along Axis sum to the input's."""
    return js.axis_problem(input_shapes[0], params)


def source_index(output_index, inputs, params, output=0) -> tuple:
    """OutputTensors[output]'s element: the input's, moved along Axis by the outputs before it."""
    axis, begin = params["Axis"], js.starts(params)[output]
    which = np.zeros(np.shape(output_index[0]), dtype=np.intp)
    return which, tuple(np.asarray(o) + begin if d == axis else np.asarray(o) for d, o in enumerate(output_index))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # Alone: a shared graph's (1,) placeholder is refused by a Split into these sizes
    sizes = params["AxisSizes"]
    return OnnxNode("Split", 13, attributes={"axis": params["Axis"]},
                    constant_inputs=(np.array(sizes, dtype=np.int64),), alone=True, outputs=len(sizes),
                    tuple_outputs=True)


SPEC = OperatorSpec(
    name="SPLIT",
    struct=STRUCT,
    formula="OutputTensors[i][..., o, ...] = InputTensor[..., o + (OutputTensors[0..i-1].Sizes[Axis] summed), ...] "
            "along Axis; the OutputTensors' Sizes[Axis] sum to InputTensor.Sizes[Axis]",
    summary="Splits an input tensor along an axis into multiple output tensors.",
    outputs=(Output("OutputTensors", count="OutputCount"),),
    parameters=(js.AXIS, js.axis_sizes("OutputCount", "OutputTensors", "the split tensor is the case's shape")),
    introduced="1_0",
    tables=(js.TABLE_4_1, SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32), js.TABLE_2_1, js.TABLE_1_0),
    in_place=False,
    constraints="InputTensor and OutputTensors must have the same DataType and DimensionCount. OutputCount > 0; "
                "every output's Sizes equal the input's except along Axis, where they sum to the input's; "
                "Axis in [0, InputTensor.DimensionCount - 1].",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Split (opset 13) with axis Axis and the sizes as an int64 initializer, one graph output per "
               "split tensor, kept alone",
    to_onnx=to_onnx,
    source=page(STRUCT),
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    special_values=nan_payloads,
    integers=copies,
    notes=js.NOTES + ("The case's shape is InputTensor's; AxisSizes gives each output's size along Axis and "
                      "must sum to the input's.",),
)
