from conformance.specs.base import (FLOATS, INTEGERS_32, ONE_TO_EIGHT, Input, OperatorSpec, Parameter, SupportTable,
                                    cast_bound, neighbours, no_onnx, page)
from conformance.specs.primitives import X, input_, select
from oracle.clip import FLT_MAX

STRUCT = "DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC"
# CLIP_GRAD and CLIP_GRAD1: the feature tensor, then the incoming gradient; the output may alias the first.
GRAD_INPUTS = (Input("InputTensor"), Input("InputGradientTensor", role="gradient", aliases_output=False))
GRAD_CONSTRAINTS = ("InputGradientTensor, InputTensor, and OutputGradientTensor must have the same DataType, "
                    "DimensionCount, and Sizes.")
GRAD_ROUTE = ("not reachable: ONNX has no clip gradient operator (ONNX Runtime's training kernels are not "
              "taken by the DirectML provider)")


def gate(low, high):
    """0 where x <= Min or x >= Max, else the gradient (NaN x: both comparisons false, the gradient)."""
    return select(X <= low, 0.0, select(X >= high, 0.0, input_("InputGradient")))


def grad_integers(low: int, high: int):
    return lambda x, gradient: 0 if x <= low or x >= high else gradient


def special_values(dtype: str, params: dict) -> list:
    """Each bound and its neighbours (the gate's edges)."""
    import numpy as np
    if np.dtype(dtype).kind == "f":
        return neighbours([params["Min"], params["Max"]], dtype)
    return []


SPEC = OperatorSpec(
    name="ELEMENT_WISE_CLIP_GRAD",
    struct=STRUCT,
    formula="f(x, gradient) = 0 if x <= Min, 0 if x >= Max, else gradient",
    summary="Computes backpropagation gradients for ELEMENT_WISE_CLIP.",
    parameters=(Parameter("Min", "float", -FLT_MAX, "If x is at or below this value, the gradient result is 0 "
                          "(the page gives no default; CLIP's is taken)."),
                Parameter("Max", "float", FLT_MAX, "If x is at or above this value, the gradient result is 0 "
                          "(the page gives no default; CLIP's is taken).")),
    inputs=GRAD_INPUTS,
    introduced="3_1",
    tables=(SupportTable("3_1", ONE_TO_EIGHT, FLOATS + INTEGERS_32),),
    in_place=True,
    constraints=GRAD_CONSTRAINTS,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route=GRAD_ROUTE,
    to_onnx=no_onnx("ONNX has no operator that ONNX Runtime maps to ELEMENT_WISE_CLIP_GRAD"),
    d3d=lambda p: gate(p["Min"], p["Max"]),
    special_values=special_values,
    source=page(STRUCT),
    notes=("Min and Max are FLOAT fields; for integer tensors they are cast as CLIP's are (toward zero, "
           "saturating: the page is silent), for float16 rounded to half; the float16 cases use bounds "
           "that half holds exactly.",
           "NaN x: neither comparison holds, the gradient passes (the page's formula).",
           "The page: OutputGradientTensor may alias InputTensor in place."),
    integers=lambda params, dtype: grad_integers(cast_bound(params["Min"], dtype), cast_bound(params["Max"], dtype)),
)
