import numpy as np

from conformance.specs.primitives import X, maximum, minimum

from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, SCALE_BIAS,
                                    OnnxNode, OperatorSpec, Parameter, SupportTable,
                                    scale_bias_not_reachable)
from oracle.clip import FLT_MAX
from oracle.rounding import cast_bound_to_tensor_type


def special_values(dtype: str, params: dict) -> list:
    """Each bound after the cast to the tensor type, and its neighbours one ULP (or 1) away."""
    values = []
    for bound in (params["Min"], params["Max"]):
        cast = np.array(cast_bound_to_tensor_type(bound, dtype), dtype=dtype)
        if cast.dtype.kind == "f":
            values += [np.nextafter(cast, cast.dtype.type(-np.inf)), cast,
                       np.nextafter(cast, cast.dtype.type(np.inf))]
        else:
            info = np.iinfo(cast.dtype)
            values += [int(cast) + step for step in (-1, 0, 1) if info.min <= int(cast) + step <= info.max]
    return values


def output_range(params: dict, dtype: str) -> tuple:
    """CLIP's output lies within its bounds as cast to the tensor type (all Min where Min > Max)."""
    low, high = (float(cast_bound_to_tensor_type(params[b], dtype)) for b in ("Min", "Max"))
    return low, max(low, high)


def integers(params: dict, dtype: str):
    """max(Min, min(x, Max)) on Python ints, the FLOAT bounds cast as the page says: toward zero,
    a bound beyond the type saturating to it (NaN 0). None with ScaleBias (a float computation)."""
    if params.get("ScaleBias") is not None:
        return None
    info = np.iinfo(dtype)

    def cast(bound):
        value = float(np.float32(bound))
        whole = 0 if value != value else info.max if value == float("inf") else \
            info.min if value == float("-inf") else int(value)
        return min(max(whole, info.min), info.max)
    low, high = cast(params["Min"]), cast(params["Max"])
    return lambda x: max(low, min(x, high))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    scale_bias_not_reachable(params)
    # The bounds travel as initializers already cast to the tensor type, as the page says
    # DirectML casts them; ONNX Runtime's DirectML EP needs them constant.
    low = np.array(cast_bound_to_tensor_type(params["Min"], dtype), dtype=dtype)
    high = np.array(cast_bound_to_tensor_type(params["Max"], dtype), dtype=dtype)
    return OnnxNode("Clip", 13, {}, (low, high))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_CLIP",
    struct="DML_ELEMENT_WISE_CLIP_OPERATOR_DESC",
    formula="f(x) = max(Min, min(x, Max)), x first mapped by ScaleBias if present",
    summary="Clamps every element to the closed interval [Min, Max].",
    parameters=(SCALE_BIAS,
                Parameter("Min", "float", -FLT_MAX,
                          "The minimum; values below it become Min (no typical default)."),
                Parameter("Max", "float", FLT_MAX,
                          "The maximum; values above it become Max (no typical default).")),
    introduced="1_0",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, FLOATS + INTEGERS_64 + INTEGERS_32),
            SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_1", (4,), FLOATS + INTEGERS_32),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints="InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes. "
                "For non-float tensors Min and Max are cast to the tensor type before clipping "
                "(truncation toward zero for integers, round half to even for float16).",
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Clip (opset 13) with Min and Max as initializers of the tensor type "
               "(DirectML EP: DML_ELEMENT_WISE_CLIP1)",
    to_onnx=to_onnx,
    special_values=special_values,
    source=("https://learn.microsoft.com/windows/win32/api/directml/"
            "ns-directml-dml_element_wise_clip_operator_desc"),
    notes=("Min > Max: DirectML's formula returns Min; ONNX Clip returns Max.",
           "NaN: Direct3D min/max return the non-NaN operand, so NaN clips to Max (then Min).",
           "A bound outside an integer type's range saturates to it (the page is silent).",
           "ONNX Runtime maps Clip to CLIP1 (feature level 5_0), not CLIP itself."),
    d3d=lambda p: maximum(p["Min"], minimum(X, p["Max"])),
    output_range=output_range,
    integers=integers,
)
