import numpy as np

from conformance.specs import gather_elements
from conformance.specs.base import OnnxNode, OperatorSpec, Parameter, page
from conformance.specs.families import INDEX
from conformance.specs.gathering import (INDICES_TYPE, INPUT_AND_INDICES, NEGATIVE, index_tables, index_type_level,
                                         onnx_index_type, wrapped)
from conformance.specs.scatter_nd import UPDATES


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor.Sizes = InputTensor.Sizes."""
    return (tuple(input_shapes[0]),)


def shape_check(input_shapes, params) -> str | None:
    data, indices, updates = input_shapes
    if len(updates) != len(data):
        return f"UpdatesTensor has {len(updates)} dimensions, InputTensor {len(data)}: they must have the same"
    if tuple(updates) != tuple(indices):
        return f"UpdatesTensor.Sizes {list(updates)} must match IndicesTensor.Sizes {list(indices)}"
    return gather_elements.shape_check((data, indices), params)


def _writers(output_index, inputs, params):
    """Per output element, the flat positions (in the indices) of the index elements that write it."""
    data, indices = (np.asarray(v) for v in inputs[:2])
    axis = params["Axis"]
    place = list(np.indices(indices.shape, sparse=False))
    place[axis] = wrapped(indices, data.shape[axis])
    written = np.ravel_multi_index(tuple(place), data.shape).reshape(-1)
    here = np.ravel_multi_index(tuple(np.asarray(o) for o in output_index), data.shape).reshape(-1)
    order = np.argsort(written, kind="stable")
    starts = np.searchsorted(written[order], here, side="left")
    ends = np.searchsorted(written[order], here, side="right")
    return [order[a:b] for a, b in zip(starts, ends)], indices.shape


def _sources(output_index, inputs, params, pick) -> tuple:
    writers, shape = _writers(output_index, inputs, params)
    index = [np.ravel(np.asarray(o)).copy() for o in output_index]
    which = np.zeros(len(writers), dtype=np.intp)
    for k, chosen in enumerate(writers):
        if len(chosen):
            which[k] = 2
            for d, value in enumerate(np.unravel_index(pick(chosen), shape)):
                index[d][k] = value
    out_shape = np.shape(output_index[0])
    return which.reshape(out_shape), tuple(i.reshape(out_shape) for i in index)


def source_index(output_index, inputs, params) -> tuple:
    """An element no index addresses is the input's; one an index addresses, that update's (the last in
    order where several collide: the oracle's choice; moved.py accepts any of them)."""
    return _sources(output_index, inputs, params, lambda chosen: chosen[-1])


def source_alternatives(output_index, inputs, params) -> list:
    """Every colliding write: the page gives no guarantee of which last write wins."""
    writers = _writers(output_index, inputs, params)[0]
    most = max((len(w) for w in writers), default=0)
    return [_sources(output_index, inputs, params, lambda chosen, n=n: chosen[min(n, len(chosen) - 1)])
            for n in range(most)]


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    onnx_index_type(params)
    return OnnxNode("ScatterElements", 13, attributes={"axis": int(params["Axis"])}, alone=True)  # as Gather


SPEC = OperatorSpec(
    name="SCATTER",
    struct="DML_SCATTER_OPERATOR_DESC",
    formula="output = input; output[i, index[i, j, k, ...], k, ...] = updates[i, j, k, ...] (Axis 1: the index "
            "replaces the Axis coordinate); UpdatesTensor.Sizes = IndicesTensor.Sizes, OutputTensor.Sizes = "
            "InputTensor.Sizes",
    summary="Copies the whole input tensor to the output, then overwrites selected indices with corresponding "
            "values from the updates tensor (SCATTER_ELEMENTS, the counterpart of GATHER_ELEMENTS).",
    inputs=INPUT_AND_INDICES + (UPDATES,),
    parameters=(Parameter("Axis", "uint", 0, "The axis dimension to use for indexing in OutputTensor, in "
                          "[0, OutputTensor.DimensionCount)."),
                INDICES_TYPE),
    introduced="1_0",
    tables=index_tables("1_0"),
    in_place=False,
    constraints="IndicesTensor, InputTensor, OutputTensor and UpdatesTensor must have the same DimensionCount; "
                "InputTensor, OutputTensor and UpdatesTensor the same DataType; IndicesTensor.Sizes match "
                "InputTensor.Sizes but in Axis, UpdatesTensor.Sizes are IndicesTensor.Sizes, OutputTensor's are "
                "InputTensor's. IndicesTensor: UINT32 (1_0, 2_1); INT64, INT32, UINT64, UINT32 (3_0 on). " + NEGATIVE +
                " If two output element indices overlap (invalid), there is no guarantee of which last write wins.",
    tolerance_ulp={"float32": 0, "float16": 0, "float64": 0},
    onnx_route="ScatterElements (opset 13, axis = Axis); INT32 or INT64 indices (unsigned ones are not reachable)",
    to_onnx=to_onnx,
    source=page("DML_SCATTER_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=index_type_level,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    source_alternatives=source_alternatives,
    index_bounds=gather_elements.index_bounds,
    index_axis=lambda params: params["Axis"],
    integers=lambda params, dtype: None,
    notes=("DML_OPERATOR_SCATTER is aliased DML_OPERATOR_SCATTER_ELEMENTS (the page's remarks); the spec takes the "
           "struct's name, DML_SCATTER_OPERATOR_DESC.",
           "The page's example 2 gives InputTensor Sizes {2,3} but three rows of values and a {3,3} output: the "
           "case file runs it with Input {3,3}.",
           "Colliding writes: any of the colliding updates is accepted (source_alternatives), as the page says.",
           "The page says nothing of out-of-range indices: no case has one.",
           "IndicesType is no field of the struct: IndicesTensor's data type, chosen by the case."),
)
