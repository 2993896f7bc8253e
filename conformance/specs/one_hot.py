import numpy as np

from conformance.specs.base import Input, OnnxNode, OperatorSpec, Parameter, page
from conformance.specs.families import INDEX
from conformance.specs.gathering import INDICES_TYPE, index_tables, index_type_level

INDICES = Input("IndicesTensor", role="indices", broadcast=False, aliases_output=False, dtype=lambda dtype: "uint32")
VALUES = Input("ValuesTensor", broadcast=False, aliases_output=False)
OUTPUT_SIZES = Parameter("OutputSizes", "uint_array", None,
                         "No field: the output tensor's sizes, IndicesTensor's but along Axis, where the page allows "
                         "any size greater than 0 (the length of each sequence).", sizes_of="OutputTensor")
OUTSIDE = ("An index beyond the sequence (\"exceeds the number of elements along the Axis dimension\") is ignored: "
           "every element of its sequence is OffValue. From DML_FEATURE_LEVEL_3_0 a negative index of a signed type "
           "counts from the end of the sequence (-1 the last element).")


def output_shapes(input_shapes, params) -> tuple:
    return (tuple(params["OutputSizes"]),)


def shape_check(input_shapes, params) -> str | None:
    indices, values = input_shapes
    axis, sizes = params.get("Axis"), params.get("OutputSizes")
    if sizes is None:
        return "OutputSizes is required: the output's sizes (IndicesTensor's, with the sequence length along Axis)"
    if not len(indices) == len(values) == len(sizes):
        return (f"IndicesTensor, ValuesTensor and OutputTensor must have the same DimensionCount (here {len(indices)}, "
                f"{len(values)} and {len(sizes)})")
    if not 0 <= axis < len(indices):
        return f"Axis {axis} must be less than IndicesTensor.DimensionCount {len(indices)}"
    if indices[axis] != 1:
        return f"IndicesTensor.Sizes[Axis] is {indices[axis]}: the size of the Axis dimension must be 1"
    other = [d for d in range(len(indices)) if d != axis and indices[d] != sizes[d]]
    if other:
        return (f"OutputSizes {list(sizes)} must equal IndicesTensor.Sizes {list(indices)} except along Axis {axis} "
                f"(not in {other[0]})")
    if sizes[axis] < 1:
        return f"OutputSizes[Axis] {sizes[axis]}: the Axis dimension of OutputTensor may have any value greater than 0"
    if int(np.prod(values)) < 2:
        return f"ValuesTensor {list(values)} holds {int(np.prod(values))} element(s): it must contain at least two"
    return None


def on_value_index(values_shape) -> tuple:
    """The OnValue's place: the 1st element along the fastest-changing dimension of size > 1."""
    fastest = max(d for d, n in enumerate(values_shape) if n > 1)
    return tuple(1 if d == fastest else 0 for d in range(len(values_shape)))


def source_index(output_index, inputs, params) -> tuple:
    """Every element copies ValuesTensor's OffValue (its 0th element), the one at its sequence's index the
    OnValue."""
    indices, values = (np.asarray(v) for v in inputs)
    axis, length = params["Axis"], params["OutputSizes"][params["Axis"]]
    index = tuple(np.asarray(o) for o in output_index)
    at = index[:axis] + (np.zeros_like(index[axis]),) + index[axis + 1:]
    chosen = indices[at]
    chosen = np.minimum(chosen, length).astype(np.int64) if chosen.dtype.kind == "u" else chosen.astype(np.int64)
    on = index[axis] == np.where(chosen < 0, chosen + length, chosen)
    where = on_value_index(values.shape)
    source = tuple(np.where(on, k, 0) for k in where)
    return np.ones(np.shape(index[0]), dtype=np.intp), tuple(np.broadcast_to(s, np.shape(index[0])) for s in source)


def index_bounds(input_shapes, params):
    return np.int64(params["OutputSizes"][params["Axis"]])


# ONNX Runtime's CPU OneHot exists for these (indices, values) types, each with its depth's type
_CPU_DEPTH = {("int64", "float32"): "int64", ("int64", "int64"): "int64", ("int32", "float32"): "int32",
              ("int64", "int32"): "float32"}


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    indices = params.get("IndicesType") or "uint32"
    depth = np.array([params["OutputSizes"][params["Axis"]]], dtype=_CPU_DEPTH.get((indices, dtype), "int64"))
    # ONNX's inputs are (indices, depth, values): the depth initializer goes between the graph's two inputs
    return OnnxNode("OneHot", 11, attributes={"axis": int(params["Axis"])}, constant_inputs=(depth,),
                    input_order=(0, 2, 1), alone=True)


def onnx_shapes(input_shapes, params) -> tuple:
    """ONNX's indices lack the Axis dimension (OneHot inserts it); its values are [off, on]."""
    indices, values = input_shapes
    return tuple(n for d, n in enumerate(indices) if d != params["Axis"]), (int(np.prod(values)),)


def onnx_undefined(x, dtype: str, params: dict) -> str | None:
    values = np.asarray(x[1])
    if values.size != 2:
        return f"ONNX's OneHot takes values [off, on] of two elements; this ValuesTensor holds {values.size}"
    return None


SPEC = OperatorSpec(
    name="ONE_HOT",
    struct="DML_ONE_HOT_OPERATOR_DESC",
    formula="OutputTensor[..., j (along Axis), ...] = OnValue if j == IndicesTensor[..., 0, ...] (a negative index "
            "counted from the end) else OffValue; OffValue = ValuesTensor's 0th element, OnValue = its 1st element "
            "along the fastest-changing dimension of size > 1; an index beyond the sequence: every element OffValue",
    summary="Produces a tensor filled with one-hot encoded values: for all sequences along Axis, all but one element "
            "set to OffValue and the remaining single element set to OnValue.",
    inputs=(INDICES, VALUES),
    parameters=(Parameter("Axis", "uint", 0, "The index of the dimension to produce one-hot encoded sequences along; "
                          "less than IndicesTensor.DimensionCount."),
                INDICES_TYPE, OUTPUT_SIZES),
    introduced="2_0",
    tables=index_tables("2_0"),
    in_place=False,
    constraints="IndicesTensor, OutputTensor and ValuesTensor must have the same DimensionCount; OutputTensor and "
                "ValuesTensor the same DataType. IndicesTensor's sizes are OutputTensor's except along Axis, where "
                "it has size 1; ValuesTensor holds at least two elements. IndicesTensor: UINT32 (2_0, 2_1); INT64, "
                "INT32, UINT64, UINT32 (3_0 on). " + OUTSIDE,
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy of OffValue or OnValue: exact
    onnx_route="OneHot (opset 11, axis = Axis) on the indices without their Axis dimension, depth = OutputSizes[Axis] "
               "as an initializer, values [off, on] (a ValuesTensor of more than two elements is not reachable); "
               "ONNX Runtime's CPU provider has it for few type pairs",
    to_onnx=to_onnx,
    source=page("DML_ONE_HOT_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=index_type_level,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    index_bounds=index_bounds,
    indices_outside=OUTSIDE,
    onnx_shapes=onnx_shapes,
    onnx_undefined=onnx_undefined,
    integers=lambda params, dtype: None,  # a copy: no arithmetic on integers
    notes=("Tables transcribed from the page (MicrosoftDocs/sdk-api): 2_0, 2_1, 3_0, 4_1.",
           "IndicesType and OutputSizes are no fields of the struct: IndicesTensor's data type and OutputTensor's "
           "sizes, chosen by the case.",
           "The page says an index that exceeds the sequence's length is ignored; an index equal to the length is "
           "taken as beyond it too. It is silent on a negative index below minus the length: no case has one.",
           "The page does not say whether ValuesTensor's elements beyond the OnValue are read: the cases give "
           "ValuesTensors of two and of more elements.",
           "A case file cannot write a NaN payload as OffValue or OnValue (the specials put +0 and -0 there): "
           "the oracle's copy of payloads is tested in Python (tests/test_one_hot_nonzero.py)."),
)
