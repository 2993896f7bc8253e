import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, ONE_TO_EIGHT, SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec,
                                    Parameter, SupportTable, cast_bound, no_onnx, page)
from conformance.specs.primitives import X, maximum
from oracle.clip import FLT_MAX
from oracle.rounding import cast_bound_to_tensor_type

STRUCT = "DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """Min as the tensor type holds it, and its neighbours one ULP (or 1) either side."""
    low = np.array(cast_bound_to_tensor_type(params["Min"], dtype), dtype=dtype)
    if low.dtype.kind == "f":
        return [np.nextafter(low, low.dtype.type(-np.inf)), low, np.nextafter(low, low.dtype.type(np.inf))]
    info = np.iinfo(low.dtype)
    return [int(low) + step for step in (-1, 0, 1) if info.min <= int(low) + step <= info.max]


def integers(params: dict, dtype: str):
    """max(x, Min), Min cast toward zero and saturated; None with ScaleBias (a float computation)."""
    if params.get("ScaleBias") is not None:
        return None
    low = cast_bound(params["Min"], dtype)
    return lambda x: max(x, low)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_THRESHOLD",
    struct=STRUCT,
    formula="f(x) = max(x, Min), x first mapped by ScaleBias if present",
    summary="Replaces every element below Min with Min.",
    parameters=(SCALE_BIAS,
                Parameter("Min", "float", -FLT_MAX,
                          "The threshold; values below it become Min (no typical default).")),
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_1", (4,), FLOATS + INTEGERS_32),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="not reachable: ONNX has no threshold (Max and Clip reach ELEMENT_WISE_MAX and CLIP1)",
    to_onnx=no_onnx("ONNX has no threshold operator: Max with a constant reaches DML_ELEMENT_WISE_MAX "
                    "and Clip reaches DML_ELEMENT_WISE_CLIP1, not THRESHOLD"),
    special_values=special_values,
    d3d=lambda p: maximum(X, p["Min"]),
    output_range=lambda params, dtype: (float(cast_bound_to_tensor_type(params["Min"], dtype)), np.inf),
    source=page(STRUCT),
    notes=("NaN: Direct3D's max returns the non-NaN operand, so THRESHOLD(NaN) = Min.",
           "Integer tensors: the page does not say how the FLOAT Min meets them; the harness casts Min "
           "as CLIP's page says for its bounds (truncation toward zero, saturation at the type's range), "
           "so THRESHOLD(3, Min=3.7) is 3 in INT32. With ScaleBias the result is truncated likewise.",
           "The page gives no typical Min; the harness's default, -FLT_MAX, thresholds nothing finite."),
    integers=integers,
)
