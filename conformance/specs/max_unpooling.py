import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, Input, NotReachable, OnnxNode, OperatorSpec,
                                    Parameter, SupportTable, page)
from conformance.specs.depth_space import nan_payloads
from conformance.specs.families import INDEX

INDICES_TYPE = Parameter("IndicesType", "tensor_type", None,
                         "No field: IndicesTensor's data type (UINT32 where the case gives none; UINT64 from "
                         "DML_FEATURE_LEVEL_5_0).", choices=("uint32", "uint64"), unset=lambda dtype: "uint32",
                         tensors=("IndicesTensor",))
OUTPUT_SIZES = Parameter("OutputSizes", "uint_array", None,
                         "No field: OutputTensor's sizes (4 dimensions, as the input's), which the page leaves to the "
                         "caller; required.", sizes_of="OutputTensor")
COLLIDING = ("The page does not say which value an output element holds where several indices name it: any of "
             "those input values is accepted.")


def output_shapes(input_shapes, params) -> tuple:
    return (tuple(params["OutputSizes"]),)


def shape_check(input_shapes, params) -> str | None:
    data, indices = input_shapes
    sizes = params.get("OutputSizes")
    if sizes is None:
        return "OutputSizes is required: the page leaves OutputTensor's sizes to the caller"
    if tuple(indices) != tuple(data):
        return f"IndicesTensor.Sizes {list(indices)} must be InputTensor.Sizes {list(data)}"
    if len(sizes) != len(data):
        return f"OutputSizes {list(sizes)}: OutputTensor has the input's number of dimensions, {len(data)}"
    if int(np.prod(sizes)) == 0:
        return f"OutputSizes {list(sizes)}: an output of no element has no place to write to"
    return None


def index_bounds(input_shapes, params):
    """Each index is a place in the output taken as a contiguous one-dimensional array."""
    return np.int64(np.prod(params["OutputSizes"], dtype=np.int64))


def _writers(output_index, inputs, params):
    """Per output element (flat), the flat positions in the input of the elements written there, in order."""
    indices = np.asarray(inputs[1]).reshape(-1).astype(np.int64)
    here = np.ravel_multi_index(tuple(np.asarray(o) for o in output_index), tuple(params["OutputSizes"])).reshape(-1)
    order = np.argsort(indices, kind="stable")
    starts = np.searchsorted(indices[order], here, side="left")
    ends = np.searchsorted(indices[order], here, side="right")
    return [order[a:b] for a, b in zip(starts, ends)]


def _sources(output_index, inputs, params, pick) -> tuple:
    shape = np.shape(inputs[0])
    writers = _writers(output_index, inputs, params)
    which = np.full(len(writers), -1, dtype=np.intp)  # -1: untouched, the page's zero
    source = np.zeros((len(shape), len(writers)), dtype=np.int64)
    for k, chosen in enumerate(writers):
        if len(chosen):
            which[k] = 0
            source[:, k] = np.unravel_index(pick(chosen), shape)
    out = np.shape(output_index[0])
    return which.reshape(out), tuple(s.reshape(out) for s in source)


def source_index(output_index, inputs, params) -> tuple:
    """The input element whose index names this output element (the last in order where several do: the
    oracle's choice; moved.py accepts any), else -1: left zero."""
    return _sources(output_index, inputs, params, lambda chosen: chosen[-1])


def source_alternatives(output_index, inputs, params) -> list:
    writers = _writers(output_index, inputs, params)
    most = max((len(w) for w in writers), default=0)
    return [_sources(output_index, inputs, params, lambda chosen, n=n: chosen[min(n, len(chosen) - 1)])
            for n in range(most)]


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    if dtype not in FLOATS:
        raise NotReachable(f"ONNX's MaxUnpool takes float tensors, not {dtype.upper()}")
    # kernel 1x1: the output's sizes come from the output_shape initializer alone
    return OnnxNode("MaxUnpool", 11, attributes={"kernel_shape": [1, 1]},
                    constant_inputs=(np.array(params["OutputSizes"], dtype=np.int64),),
                    input_types=(dtype, "int64"), alone=True)


def onnx_undefined(x, dtype: str, params: dict) -> str | None:
    if tuple(params["OutputSizes"][:2]) != np.shape(x[0])[:2]:
        return "ONNX's MaxUnpool keeps the input's batch and channel sizes; OutputSizes changes them"
    return None


SPEC = OperatorSpec(
    name="MAX_UNPOOLING",
    struct="DML_MAX_UNPOOLING_OPERATOR_DESC",
    formula="OutputTensor = 0; OutputTensor[IndicesTensor[i] (a flat index into OutputTensor taken as a contiguous "
            "one-dimensional array)] = InputTensor[i] for every element i",
    summary="Inverts a max-pooling operation: fills the output with the input's values at the places the indices "
            "give (as a max pooling's OutputIndicesTensor); the elements untouched are left zero.",
    inputs=(Input("InputTensor", broadcast=False, aliases_output=False),
            Input("IndicesTensor", role="indices", broadcast=False, aliases_output=False,
                  dtype=lambda dtype: "uint32")),
    parameters=(INDICES_TYPE, OUTPUT_SIZES),
    introduced="3_0",
    tables=(SupportTable("5_0", (4,), FLOATS + INTEGERS_64 + INTEGERS_32),
            SupportTable("3_0", (4,), FLOATS)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType; InputTensor and IndicesTensor have the "
                "same sizes; OutputTensor has the input's number of dimensions. IndicesTensor: UINT32 (3_0); "
                "UINT64, UINT32 (5_0). " + COLLIDING,
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route="MaxUnpool (opset 11, kernel 1x1) with OutputSizes as its output_shape initializer, the indices "
               "as INT64; float tensors alone, the batch and channel sizes kept",
    to_onnx=to_onnx,
    onnx_undefined=onnx_undefined,
    source=page("DML_MAX_UNPOOLING_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=lambda params: "5_0" if params.get("IndicesType") == "uint64" else None,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    source_alternatives=source_alternatives,
    index_bounds=index_bounds,
    special_values=nan_payloads,  # a copy keeps a NaN's sign and payload
    integers=lambda params, dtype: None,  # a copy: no arithmetic on integers
    notes=("Tables transcribed from the page (MicrosoftDocs/sdk-api): 3_0 and 5_0.",
           "IndicesType and OutputSizes are no fields of the struct: IndicesTensor's data type and OutputTensor's "
           "sizes, chosen by the case.",
           COLLIDING,
           "The page says nothing of an index beyond the output: no case has one."),
)
