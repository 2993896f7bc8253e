import numpy as np

from conformance.specs.base import Input, OnnxNode, OperatorSpec, SupportTable, page
from conformance.specs.families import INDEX
from conformance.specs.gather_nd import FIELDS, _counts, at_least_two, index_bounds
from conformance.specs.gathering import (DATA_3_0, INDICES_TYPE, INPUT_AND_INDICES, NEGATIVE, aligned, crop_problem,
                                         index_type_level, leading_ones_problem, onnx_index_type, wrapped)

UPDATES = Input("UpdatesTensor", broadcast=False, aliases_output=False)


def _updates_relevant(input_shape, indices_shape, params) -> tuple:
    """UpdatesTensor's sizes: the indices' meaningful sizes but the tuple's, then the input's sizes
    after the dimensions a tuple addresses."""
    inputs, count, _ = _counts(params)
    data, tuples = input_shape[len(input_shape) - inputs:], indices_shape[len(indices_shape) - count:]
    return tuple(tuples[:-1]) + tuple(data[tuples[-1]:])


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor.Sizes = InputTensor.Sizes."""
    return (tuple(input_shapes[0]),)


def shape_check(input_shapes, params) -> str | None:
    data, indices, updates = input_shapes
    inputs, count, _ = _counts(params)
    if not len(data) == len(indices) == len(updates):
        return (f"InputTensor, IndicesTensor and UpdatesTensor have {len(data)}, {len(indices)} and {len(updates)} "
                "dimensions: they must have the same")
    if not 1 <= inputs <= len(data):
        return f"InputDimensionCount {inputs} must be in [1, InputTensor.DimensionCount {len(data)}]"
    if not 1 <= count <= len(indices):
        return f"IndicesDimensionCount {count} must be in [1, IndicesTensor.DimensionCount {len(indices)}]"
    if not 1 <= indices[-1] <= inputs:
        return (f"an index tuple of {indices[-1]} coordinates (IndicesTensor's last size) must address 1 to "
                f"{inputs} dimensions (InputDimensionCount)")
    if 0 in data[len(data) - inputs:][:indices[-1]]:
        return "a dimension an index tuple addresses has no element"
    problem = (leading_ones_problem(data, inputs, "InputTensor") or leading_ones_problem(indices, count, "IndicesTensor")
               or crop_problem(_updates_relevant(data, indices, params), len(data), "UpdatesTensor"))
    wanted = aligned(_updates_relevant(data, indices, params), len(data))
    if problem is None and tuple(updates) != wanted:
        return f"UpdatesTensor.Sizes {list(updates)} must be {list(wanted)} (the indices' and the input's)"
    return problem


def _written(inputs, params):
    """For each index tuple (in order) the meaningful input index it writes: (positions, coordinates)."""
    data, indices = (np.asarray(v) for v in inputs[:2])
    count_in, count, _ = _counts(params)
    meaningful = data.shape[data.ndim - count_in:]
    tuples = indices.reshape(indices.shape[indices.ndim - count:])
    coordinates = tuple(wrapped(tuples[..., j], meaningful[j]) for j in range(tuples.shape[-1]))
    return tuples.shape[:-1], coordinates, meaningful


def _writers(output_index, inputs, params):
    """Per output element, the flat positions of the index tuples that write it (a list per element)."""
    data = np.asarray(inputs[0])
    positions, coordinates, meaningful = _written(inputs, params)
    lead = data.ndim - len(meaningful)
    addressed = np.ravel_multi_index(coordinates, meaningful[:len(coordinates)]).reshape(-1) if coordinates[0].size \
        else np.zeros(0, dtype=np.intp)
    index = tuple(np.asarray(o) for o in output_index)
    here = np.ravel_multi_index(index[lead:lead + len(coordinates)], meaningful[:len(coordinates)])
    return [np.flatnonzero(addressed == h) for h in np.ravel(here)], index, lead, len(coordinates), positions


def _sources(output_index, inputs, params, pick) -> tuple:
    writers, index, lead, width, positions = _writers(output_index, inputs, params)
    updates = np.asarray(inputs[2])
    shape = np.shape(index[0])
    which = np.zeros(len(writers), dtype=np.intp)
    flat_index = [np.ravel(i).copy() for i in index]
    source = [np.zeros(len(writers), dtype=np.intp) for _ in range(updates.ndim)]
    trailing = updates.ndim - len(positions) - (len(index) - lead - width)
    for k, chosen in enumerate(writers):
        if not len(chosen):
            continue
        which[k] = 2
        at = (0,) * max(trailing, 0) + np.unravel_index(pick(chosen), positions) + \
            tuple(int(i[k]) for i in flat_index[lead + width:])
        for d, value in enumerate(at[len(at) - updates.ndim:]):
            source[d][k] = value
    inputs_source = [np.where(which == 2, s, i) if d < len(flat_index) else s
                     for d, (s, i) in enumerate(zip(source, flat_index))]
    return which.reshape(shape), tuple(s.reshape(shape) for s in inputs_source)


def source_index(output_index, inputs, params) -> tuple:
    """An element no tuple addresses is the input's; one a tuple addresses, that update's (the last
    tuple in order where several collide: the oracle's choice, moved.py accepts any of them)."""
    return _sources(output_index, inputs, params, lambda chosen: chosen[-1])


def source_alternatives(output_index, inputs, params) -> list:
    """Every colliding write: the page gives no guarantee of which last write wins."""
    writers = _writers(output_index, inputs, params)[0]
    most = max((len(w) for w in writers), default=0)
    return [_sources(output_index, inputs, params, lambda chosen, n=n: chosen[min(n, len(chosen) - 1)])
            for n in range(most)]


def onnx_shapes(input_shapes, params) -> tuple:
    """ScatterND takes each tensor's meaningful dimensions alone (the updates': the indices' but the
    tuple's, then the input's after those it addresses)."""
    data, indices, _ = input_shapes
    inputs, count, _ = _counts(params)
    meaningful_data, meaningful_indices = data[len(data) - inputs:], at_least_two(indices[len(indices) - count:])
    return (tuple(meaningful_data), tuple(meaningful_indices),
            tuple(meaningful_indices[:-1]) + tuple(meaningful_data[meaningful_indices[-1]:]))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    onnx_index_type(params, allowed=("int64",))  # ONNX's ScatterND takes INT64 indices alone
    return OnnxNode("ScatterND", 13, alone=True)  # its (1,) placeholder indices address no dimension


SPEC = OperatorSpec(
    name="SCATTER_ND",
    struct="DML_SCATTER_ND_OPERATOR_DESC",
    formula="output = input; output[indices[...]] = updates[...]: each index tuple (IndicesTensor's last "
            "dimension) addresses InputTensor's first meaningful dimensions; UpdatesTensor.Sizes = {IndicesTensor's "
            "meaningful sizes but the last, InputTensor's sizes after those the tuple addresses}, right-aligned",
    summary="Copies the whole input tensor to the output, then overwrites selected indices with corresponding "
            "values from the updates tensor.",
    inputs=INPUT_AND_INDICES + (UPDATES,),
    parameters=FIELDS + (INDICES_TYPE,),
    introduced="2_1",
    tables=(SupportTable("3_0", tuple(range(1, 9)), DATA_3_0),
            SupportTable("2_1", (4,), DATA_3_0)),
    in_place=False,
    constraints="IndicesTensor, InputTensor, OutputTensor and UpdatesTensor must have the same DimensionCount; "
                "InputTensor, OutputTensor and UpdatesTensor the same DataType; OutputTensor has InputTensor's "
                "Sizes. IndicesTensor: UINT32 (2_1); INT64, INT32, UINT64, UINT32 (3_0). " + NEGATIVE +
                " If two output element indices overlap (invalid), there is no guarantee of which last write wins.",
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="ScatterND (opset 13) on each tensor's meaningful dimensions; INT64 indices alone",
    to_onnx=to_onnx,
    source=page("DML_SCATTER_ND_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=index_type_level,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    source_alternatives=source_alternatives,
    index_bounds=index_bounds,
    onnx_shapes=onnx_shapes,
    integers=lambda params, dtype: None,
    notes=("The page's UpdatesTensor.Sizes formula takes InputTensor.Sizes[(DimensionCount - indexTupleSize)..], "
           "which its own example contradicts (Input [3,4,5,6,7], tuples of 3: updates [1,1,2,6,7], 'ignoring the "
           "first 3 dimensions'): the shape check follows the example, the input's sizes after those a tuple addresses.",
           "The page gives InputDimensionCount and IndicesDimensionCount the range [1, DimensionCount); the check "
           "takes [1, DimensionCount], as GATHER_ND's page does.",
           "The page's example (Input {8}, Indices {4,1} of FLOAT32, Updates {4}) breaks its own constraints (one "
           "DimensionCount, integer indices): the case file runs it as Input {1,8}, Indices {4,1}, Updates {1,4}.",
           "Colliding writes: any of the colliding updates is accepted (source_alternatives), as the page says.",
           "The page says nothing of out-of-range indices: no case has one.",
           "IndicesType is no field of the struct: IndicesTensor's data type, chosen by the case."),
)
