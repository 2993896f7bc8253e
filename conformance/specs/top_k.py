import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, OnnxNode, OperatorSpec, Output,
                                    Parameter, SupportTable, page)
from conformance.specs.families import REDUCTION
from conformance.specs.indices import AXIS_DIRECTIONS, DECREASING  # noqa: F401 (AXIS_DIRECTIONS: top_k1.py)

VALUES, INDICES = "OutputValueTensor", "OutputIndexTensor"
# Both pages' tables (TOP_K from 2_0, TOP_K1 from 2_1): InputTensor and OutputValueTensor of these types,
# OutputIndexTensor UINT32 (UINT64 too from 5_0)
TYPES_2_1 = FLOATS + INTEGERS_32
TABLES_FROM_2_1 = (SupportTable("5_0", ONE_TO_EIGHT, FLOATS + INTEGERS_64 + INTEGERS_32),
                   SupportTable("3_1", ONE_TO_EIGHT, TYPES_2_1),
                   SupportTable("2_1", (4,), TYPES_2_1))
NAN_NOTE = ("Neither page says where NaN sorts: the oracle puts NaN above every number, and the judge accepts "
            "for each element the index (and its value) of that order or of NaN below every number.")


NOTES = (NAN_NOTE,
         "The tables list InputTensor's types; OutputValueTensor has InputTensor's, OutputIndexTensor is UINT32, "
         "or UINT64 from 5_0 (IndexType: no field, it chooses OutputIndexTensor's type).")


def direction(params) -> str:
    return params.get("AxisDirection") or DECREASING


def output_shapes(input_shapes, params) -> tuple:
    """Both outputs: InputTensor's sizes with Sizes[Axis] = K."""
    shape = list(input_shapes[0])
    shape[params["Axis"]] = params["K"]
    return (tuple(shape), tuple(shape))


def shape_check(input_shapes, params) -> str | None:
    axis, k, rank = params.get("Axis"), params.get("K"), len(input_shapes[0])
    if axis is None or k is None:
        return "Axis and K are required"
    if not 0 <= axis < rank:
        return f"Axis {axis} must be less than InputTensor.DimensionCount {rank}"
    if not 0 < k < input_shapes[0][axis]:
        return (f"K {k} must be greater than 0 and less than InputTensor.Sizes[Axis] {input_shapes[0][axis]} "
                "(the pages: \"less than the number of elements ... along the dimension\")")
    return None


def order(x: np.ndarray, axis: int, decreasing: bool, nan_above: bool = True) -> np.ndarray:
    """The indices along axis of each sequence's elements, best first; equal values (+0 and -0 too)
    by ascending index, as both pages require; NaN above (or below) every number."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    position = np.broadcast_to(np.arange(x.shape[-1]), x.shape)
    floats = x.dtype.kind == "f"
    nan = np.isnan(x) if floats else np.zeros(x.shape, dtype=bool)
    value = np.where(nan, 0, x).astype(np.float64) if floats else x
    if decreasing:
        value = -value if floats else ~value  # ~v reverses an integer type's order without overflow
    # np.lexsort's last key is the primary one: NaN first or last, then the value, then the position
    nan_last = nan if nan_above != decreasing else ~nan
    return np.moveaxis(np.lexsort((position, value, nan_last), axis=-1), -1, axis)


def _selected(inputs, params, nan_above=True) -> np.ndarray:
    x = np.asarray(inputs[0])
    best = order(x, params["Axis"], direction(params) == DECREASING, nan_above)
    return np.take(best, np.arange(params["K"]), axis=params["Axis"])


def source_index(output_index, inputs, params) -> tuple:
    """OutputValueTensor[o] is InputTensor at o, its Axis coordinate the selected element's."""
    chosen = _selected(inputs, params)[tuple(output_index)]
    index = list(output_index)
    index[params["Axis"]] = chosen
    return np.zeros(np.shape(chosen), dtype=np.intp), tuple(index)


def allowed(inputs, params) -> np.ndarray:
    """The indices the pages allow at each OutputIndexTensor element: the one their order gives (ties
    by ascending index), and where a sequence holds NaN, the one of NaN below every number too."""
    x = np.asarray(inputs[0])
    axis, n = params["Axis"], x.shape[params["Axis"]]
    mask = np.zeros(output_shapes((x.shape,), params)[1] + (n,), dtype=bool)
    for nan_above in (True, False):
        chosen = _selected(inputs, params, nan_above)
        np.put_along_axis(mask, chosen[..., None], True, axis=-1)
    return mask


def gather(inputs, indices, params) -> np.ndarray:
    """The values the indices select along Axis."""
    return np.take_along_axis(np.asarray(inputs[0]), np.asarray(indices, dtype=np.intp), axis=params["Axis"])


OUTPUTS = (Output(VALUES, indices_from=INDICES, gather=gather),
           Output(INDICES, dtype=lambda dtype: "uint32", allowed=allowed))
INDEX_TYPE = Parameter("IndexType", "tensor_type", None,
                       "Not a field: OutputIndexTensor's data type, UINT32 or (from 5_0) UINT64.",
                       choices=("uint32", "uint64"), unset=lambda dtype: "uint32", tensors=(INDICES,))
AXIS = Parameter("Axis", "uint", None, "The index of the dimension to select elements across; less than "
                 "InputTensor's DimensionCount.")
K = Parameter("K", "uint", None, "The number of elements to select: greater than 0, less than InputTensor's "
              "size along Axis.")


def parameter_level(params) -> str | None:
    return "5_0" if params.get("IndexType") == "uint64" else None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # Alone: a shared graph's (1,) placeholder is refused by a TopK whose K is above 1 or Axis above 0
    return OnnxNode("TopK", 11, attributes={"axis": params["Axis"], "largest": int(direction(params) == DECREASING),
                                            "sorted": 1},
                    constant_inputs=(np.array([params["K"]], dtype=np.int64),), alone=True, outputs=2,
                    directml_types=(None, params.get("IndexType") or "uint32"))


SPEC = OperatorSpec(
    name="TOP_K",
    struct="DML_TOP_K_OPERATOR_DESC",
    formula="the K largest elements of each sequence along Axis, largest first (equal values by ascending "
            "index): OutputValueTensor their values, OutputIndexTensor their indices in the sequence",
    summary="Selects the largest K elements from each sequence along an axis of the InputTensor, and returns "
            "the values and indices of those elements in the OutputValueTensor and OutputIndexTensor.",
    parameters=(AXIS, K, INDEX_TYPE),
    introduced="2_0",
    tables=TABLES_FROM_2_1 + (SupportTable("2_0", (4,), FLOATS),),
    in_place=False,
    constraints="InputTensor, OutputIndexTensor and OutputValueTensor must have the same DimensionCount; "
                "InputTensor and OutputValueTensor the same DataType. Both outputs have InputTensor's sizes "
                "but K along Axis.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a selection: exact
    onnx_route="TopK (opset 11, largest=1, sorted=1) with K as an int64 initializer; its int64 indices "
               "read as OutputIndexTensor's type",
    to_onnx=to_onnx,
    source=page("DML_TOP_K_OPERATOR_DESC"),
    family=REDUCTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    outputs=OUTPUTS,
    parameter_level=parameter_level,
    integers=lambda params, dtype: None,  # a selection: no integer arithmetic to state
    notes=NOTES + ("The page's support tables were read whole (5_0, 3_1, 2_1, 2_0).",),
)
