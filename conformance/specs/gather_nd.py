import numpy as np

from conformance.specs.base import OnnxNode, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import INDEX
from conformance.specs.gathering import (DATA_3_0, INDICES_TYPE, INPUT_AND_INDICES, NEGATIVE, aligned, crop_problem,
                                         index_type_level, leading_ones_problem, onnx_index_type, unaligned, wrapped)


def _counts(params) -> tuple:
    """(InputDimensionCount, IndicesDimensionCount, BatchDimensionCount: 0 for GATHER_ND)."""
    return params["InputDimensionCount"], params["IndicesDimensionCount"], params.get("BatchDimensionCount", 0)


def _relevant(input_shape, indices_shape, params) -> tuple:
    """The meaningful indices' sizes but the tuple's, then the input's sizes after the batch and the
    dimensions an index tuple addresses."""
    inputs, indices, batch = _counts(params)
    data, tuples = input_shape[len(input_shape) - inputs:], indices_shape[len(indices_shape) - indices:]
    return tuple(tuples[:-1]) + tuple(data[batch + tuples[-1]:])


def output_shapes(input_shapes, params) -> tuple:
    return (aligned(_relevant(*input_shapes, params), len(input_shapes[0])),)


def shape_check(input_shapes, params) -> str | None:
    data, indices = input_shapes
    inputs, count, batch = _counts(params)
    if len(indices) != len(data):
        return f"IndicesTensor has {len(indices)} dimensions, InputTensor {len(data)}: they must have the same"
    if not 1 <= inputs <= len(data):
        return f"InputDimensionCount {inputs} must be in [1, InputTensor.DimensionCount {len(data)}]"
    if not 1 <= count <= len(indices):
        return f"IndicesDimensionCount {count} must be in [1, IndicesTensor.DimensionCount {len(indices)}]"
    if not (batch < min(inputs, count) or batch == 0):
        return f"BatchDimensionCount {batch} must be below InputDimensionCount and IndicesDimensionCount"
    tuple_size = indices[-1]
    if not 1 <= tuple_size <= inputs - batch:
        return (f"an index tuple of {tuple_size} coordinates (IndicesTensor's last size) must address 1 to "
                f"{inputs - batch} dimensions (InputDimensionCount less BatchDimensionCount)")
    meaningful_data, meaningful_indices = data[len(data) - inputs:], indices[len(indices) - count:]
    if tuple(meaningful_data[:batch]) != tuple(meaningful_indices[:batch]):
        return (f"the batch sizes {list(meaningful_indices[:batch])} of IndicesTensor must be InputTensor's "
                f"{list(meaningful_data[:batch])}")
    if 0 in meaningful_data[batch:batch + tuple_size]:
        return "a dimension an index tuple addresses has no element"
    return (leading_ones_problem(data, inputs, "InputTensor") or leading_ones_problem(indices, count, "IndicesTensor")
            or crop_problem(_relevant(data, indices, params), len(data), "the output"))


def index_bounds(input_shapes, params):
    """Coordinate j of an index tuple addresses the input's meaningful dimension batch + j."""
    data, indices = input_shapes[:2]  # SCATTER_ND's updates after them
    inputs, _, batch = _counts(params)
    meaningful = data[len(data) - inputs:]
    return np.array(meaningful[batch:batch + indices[-1]], dtype=np.int64)


def source_index(output_index, inputs, params) -> tuple:
    """output[batch, i, after] = input[batch, indices[batch, i, :], after]."""
    data, indices = (np.asarray(v) for v in inputs)
    count_in, count, batch = _counts(params)
    meaningful = data.shape[data.ndim - count_in:]
    tuples = indices.reshape(indices.shape[indices.ndim - count:])
    index = unaligned(output_index, len(_relevant(data.shape, indices.shape, params)))
    where = index[:count - 1]
    coordinates = tuple(wrapped(tuples[where + (j,)], meaningful[batch + j]) for j in range(tuples.shape[-1]))
    source = where[:batch] + coordinates + index[count - 1:]
    zero = np.zeros_like(np.asarray(source[0]))
    source = (zero,) * (data.ndim - count_in) + tuple(source)
    return np.zeros(np.shape(source[0]), dtype=np.intp), source


def onnx_shapes(input_shapes, params) -> tuple:
    """GatherND takes each tensor's meaningful dimensions alone; one index tuple (IndicesDimensionCount
    1) keeps a leading 1, as ONNX Runtime's DirectML provider refuses GatherND's 0-D output
    (docs/findings/issue25-gather.md)."""
    data, indices = input_shapes
    inputs, count, _ = _counts(params)
    return tuple(data[len(data) - inputs:]), at_least_two(indices[len(indices) - count:])


def at_least_two(sizes) -> tuple:
    """Index tuples as ONNX takes them: a leading 1 where there is one tuple alone (no position)."""
    return (1,) * (2 - len(sizes)) + tuple(sizes)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    onnx_index_type(params, allowed=("int64",))  # ONNX's GatherND takes INT64 indices alone
    return OnnxNode("GatherND", 13, attributes={"batch_dims": int(params.get("BatchDimensionCount", 0))},
                    alone=True)  # its (1,) placeholder indices address no dimension


FIELDS = (Parameter("InputDimensionCount", "uint", 1, "The number of actual input dimensions within InputTensor "
                    "after ignoring any irrelevant leading ones, in [1, InputTensor.DimensionCount]."),
          Parameter("IndicesDimensionCount", "uint", 1, "The number of actual index dimensions within IndicesTensor "
                    "after ignoring any irrelevant leading ones, in [1, IndicesTensor.DimensionCount]."))
CONSTRAINTS = ("IndicesTensor, InputTensor and OutputTensor must have the same DimensionCount; InputTensor and "
               "OutputTensor the same DataType. IndicesTensor's last dimension is the number of coordinates per index "
               "tuple. IndicesTensor: UINT32 (2_1); INT64, INT32, UINT64, UINT32 (3_0). " + NEGATIVE)
SIZES_NOTE = ("The page's OutputTensor.Sizes formula takes InputTensor.Sizes[(DimensionCount - indexTupleSize)..], "
              "which its own example contradicts (Input {3,4,5,6,7}, tuples of 3: output {1,1,2,6,7}, 'the {6,7} "
              "comes from input tensor, ignoring the first 3 dimensions'): the shape rule follows the example, the "
              "input's sizes after the batch and the dimensions a tuple addresses.")

SPEC = OperatorSpec(
    name="GATHER_ND",
    struct="DML_GATHER_ND_OPERATOR_DESC",
    formula="output[...] = input[indices[...]]: each index tuple (IndicesTensor's last dimension) addresses the "
            "leading meaningful dimensions of InputTensor; OutputTensor.Sizes = {IndicesTensor's meaningful sizes "
            "but the last, InputTensor's sizes after those the tuple addresses}, right-aligned",
    summary="Gathers elements from the input tensor, using the indices tensor to remap indices to entire "
            "subblocks of the input.",
    inputs=INPUT_AND_INDICES,
    parameters=FIELDS + (INDICES_TYPE,),
    introduced="2_1",
    tables=(SupportTable("3_0", tuple(range(1, 9)), DATA_3_0),
            SupportTable("2_1", (4,), DATA_3_0)),
    in_place=False,
    constraints=CONSTRAINTS,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="GatherND (opset 13, batch_dims 0) on each tensor's meaningful dimensions; INT64 indices alone "
               "(ONNX's GatherND takes no other)",
    to_onnx=to_onnx,
    source=page("DML_GATHER_ND_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=index_type_level,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    index_bounds=index_bounds,
    onnx_shapes=onnx_shapes,
    integers=lambda params, dtype: None,
    notes=(SIZES_NOTE,
           "The stored page's tables are 3_0 and 2_1: a later table (64-bit data) was not read.",
           "The page says nothing of out-of-range indices: no case has one.",
           "IndicesType is no field of the struct: IndicesTensor's data type, chosen by the case."),
)
