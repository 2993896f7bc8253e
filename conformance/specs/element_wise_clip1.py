import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, SCALE_BIAS, OnnxNode,
                                    OperatorSpec, Parameter, SupportTable, neighbours, page,
                                    scale_bias_not_reachable)
from conformance.specs.primitives import X, maximum, minimum
from oracle.element_wise_clip1 import typed_bound

STRUCT = "DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC"


def bounds(params: dict, dtype: str) -> tuple:
    return typed_bound(params["Min"], dtype, False), typed_bound(params["Max"], dtype, True)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """Clip with min and max initializers of the tensor type: the DirectML EP copies their bytes into
    the DML_SCALAR_UNIONs, MinMaxDataType the tensor's type (DmlOperatorElementwiseClip11)."""
    scale_bias_not_reachable(params)
    low, high = bounds(params, dtype)
    return OnnxNode("Clip", 13, {}, (np.array(low, dtype=dtype), np.array(high, dtype=dtype)))


def special_values(dtype: str, params: dict) -> list:
    """Each bound and its neighbours one step (or 1) away, where they exist."""
    low, high = bounds(params, dtype)
    if np.dtype(dtype).kind == "f":
        return neighbours([low, high], dtype)
    info = np.iinfo(dtype)
    return [v + step for v in (low, high) for step in (-1, 0, 1) if info.min <= v + step <= info.max]


def output_range(params: dict, dtype: str) -> tuple:
    """Within the bounds (all Min where Min > Max)."""
    low, high = bounds(params, dtype)
    return low, max(low, high)


def d3d(params: dict):
    """Exact but for ScaleBias's mad. MinMaxDataType is the tensor's type (the case loader fills it)."""
    low, high = bounds(params, params["MinMaxDataType"] or "float32")
    return maximum(low, minimum(X, high))


def integers(params: dict, dtype: str):
    """max(Min, min(x, Max)) with the typed bounds (unset: the type's limits); None with ScaleBias."""
    if params.get("ScaleBias") is not None:
        return None
    info = np.iinfo(dtype)
    low = info.min if params.get("Min") is None else int(params["Min"])
    high = info.max if params.get("Max") is None else int(params["Max"])
    return lambda x: max(low, min(x, high))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_CLIP1",
    struct=STRUCT,
    formula="f(x) = max(Min, min(x, Max)), x first mapped by ScaleBias if present; Min and Max of "
            "MinMaxDataType (the output's type)",
    summary="Clamps every element to the closed interval [Min, Max], bounds of the tensor's own type.",
    parameters=(SCALE_BIAS,
                Parameter("MinMaxDataType", "data_type", None,
                          "The data type of Min and Max, which must match OutputTensor.DataType "
                          "(unset: the tensor's type).", unset=lambda dtype: dtype),
                Parameter("Min", "scalar", None, "The minimum; values below it become Min (unset: the "
                          "type's lowest finite value).", typed_by="MinMaxDataType",
                          unset=lambda dtype: typed_bound(None, dtype, False)),
                Parameter("Max", "scalar", None, "The maximum; values above it become Max (unset: the "
                          "type's highest finite value).", typed_by="MinMaxDataType",
                          unset=lambda dtype: typed_bound(None, dtype, True))),
    introduced="5_0",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, FLOATS + ("int64", "int32", "int16", "int8", "uint64", "uint32",
                                                        "uint16", "uint8")),),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE + " MinMaxDataType must match OutputTensor.DataType.",
    tolerance_ulp={"float32": 0, "float16": 0},  # WebNN: clamp 0 / 0
    onnx_route="Clip (opset 13) with min and max initializers of the tensor type",
    to_onnx=to_onnx,
    special_values=special_values,
    d3d=d3d,
    output_range=output_range,
    source=page(STRUCT),
    notes=("Min > Max: DirectML's formula returns Min; ONNX Clip returns Max.",
           "NaN: Direct3D min/max return the non-NaN operand, so NaN clips to Max (then Min).",
           "The page gives no typical bounds; unset, they are the type's lowest and highest finite values "
           "(ONNX Runtime's Clip without min or max), so -inf clips to the lowest finite float.",
           "Unlike CLIP's FLOAT fields, the bounds are the tensor's type: an int64 bound is exact."),
    integers=integers,
)
