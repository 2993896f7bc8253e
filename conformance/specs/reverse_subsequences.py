import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, Input, NotReachable, OnnxNode, OperatorSpec, Parameter,
                                    SupportTable, page)
from conformance.specs.families import DATA_MOVEMENT

STRUCT = "DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC"
# The page's address lacks "_operator" (page() would give ..._operator_desc, which does not exist)
PAGE = page(STRUCT).removesuffix("_operator_desc") + "_desc"
INPUTS = (Input("InputTensor", broadcast=False, aliases_output=False),
          Input("SequenceLengthsTensor", role="lengths", broadcast=False, aliases_output=False,
                dtype=lambda dtype: "uint32"))


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor has InputTensor's sizes."""
    return (tuple(input_shapes[0]),)


def shape_check(input_shapes, params) -> str | None:
    data, lengths = input_shapes
    axis = params["Axis"]
    if not 0 <= axis < len(data):
        return f"Axis {axis} must be less than InputTensor.DimensionCount {len(data)}"
    wanted = tuple(1 if d == axis else n for d, n in enumerate(data))
    if tuple(lengths) != wanted:
        return (f"SequenceLengthsTensor {list(lengths)} must have InputTensor's sizes with 1 along Axis {axis}: "
                f"{list(wanted)}")
    return None


def source_index(output_index, inputs, params) -> tuple:
    """Along Axis, o < L (L the subsequence's length, at most the dimension) comes from L - 1 - o, the
    rest from o; every other index is the output's."""
    data, lengths = (np.asarray(v) for v in inputs)
    axis = params["Axis"]
    index = tuple(np.asarray(o) for o in output_index)
    length = np.minimum(lengths[index[:axis] + (np.zeros_like(index[axis]),) + index[axis + 1:]].astype(np.int64),
                        data.shape[axis])
    along = np.where(index[axis] < length, length - 1 - index[axis], index[axis])
    return np.zeros(np.shape(along), dtype=np.intp), index[:axis] + (along,) + index[axis + 1:]


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    axis = params["Axis"]
    if axis > 1:
        raise NotReachable(f"Axis {axis}: ONNX's ReverseSequence reverses along dimension 0 or 1")
    # Alone: a shared graph's (1,) placeholder is no rank-2 input
    return OnnxNode("ReverseSequence", 10, {"time_axis": axis, "batch_axis": 1 - axis},
                    input_types=(dtype, "int64"), alone=True)


def _one_length_per_batch_entry(shape) -> bool:
    """ReverseSequence takes one length per batch entry: the dimensions after the first two share it."""
    return len(shape) >= 2 and all(n == 1 for n in shape[2:])


def onnx_for_shape(node: OnnxNode, shape) -> OnnxNode:
    if not _one_length_per_batch_entry(shape):
        raise NotReachable(f"ONNX's ReverseSequence needs a batch and a time dimension, any further one sharing "
                           f"their length (shape {list(shape)})")
    return node


def onnx_shapes(input_shapes, params) -> tuple:
    """ReverseSequence's sequence_lens: one per entry of the batch dimension (the other of 0 and 1)."""
    data, lengths = input_shapes
    if params["Axis"] > 1 or not _one_length_per_batch_entry(data):  # not reachable: as they are
        return tuple(data), tuple(lengths)
    return tuple(data), (data[1 - params["Axis"]],)


SPEC = OperatorSpec(
    name="REVERSE_SUBSEQUENCES",
    struct=STRUCT,
    formula="along Axis, OutputTensor[.., o, ..] = InputTensor[.., L - 1 - o, ..] where o < L = "
            "min(SequenceLengthsTensor[.., 0, ..], InputTensor.Sizes[Axis]), InputTensor[.., o, ..] elsewhere",
    summary="Reverses the elements of one or more subsequences of a tensor, chosen by Axis and the sequence "
            "lengths.",
    inputs=INPUTS,
    parameters=(Parameter("Axis", "uint", 0, "The index of the dimension to reverse elements over, less than "
                          "InputTensor.DimensionCount."),),
    introduced="2_1",
    tables=(SupportTable("4_0", tuple(range(1, 9)), FLOATS + INTEGERS_32),
            SupportTable("3_0", (4, 5), FLOATS + INTEGERS_32),
            SupportTable("2_1", (4,), FLOATS + INTEGERS_32)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType (and sizes); InputTensor, OutputTensor "
                "and SequenceLengthsTensor the same DimensionCount; SequenceLengthsTensor (UINT32) InputTensor's "
                "sizes with 1 along Axis.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route="ReverseSequence (opset 10, time_axis = Axis, batch_axis the other of 0 and 1) with INT64 "
               "lengths; Axis above 1 and lengths per element of a third dimension not reachable",
    to_onnx=to_onnx,
    onnx_for_shape=onnx_for_shape,
    onnx_shapes=onnx_shapes,
    source=PAGE,
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,  # a copy: no integer arithmetic to state
    notes=("The tables read are the stored page's (4_0, 3_0, 2_1); a later table, if the page has one, was not read.",
           "ONNX Runtime's ReverseSequence refuses a length beyond the time dimension, which DirectML clamps: "
           "such cases are kept to shapes ONNX cannot take."),
)
