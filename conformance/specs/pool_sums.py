"""What AVERAGE_POOLING, AVERAGE_POOLING1, LP_POOLING and LP_POOLING1 share (QUANTIZED_LINEAR_AVERAGE_POOLING
its window sums): each output a sum over a window of the input (oracle/windows.window_sums, the windows of
conformance/specs/pooling.py), judged by the sound interval of that sum (conformance/judge/accumulated.py),
then the page's step after it (AVERAGE's division, LP's root); WebNN's tolerance for the `ulp` model; the
ONNX routes (AveragePool, LpPool)."""
import math

import numpy as np

from conformance.specs.accumulation import Sum, Then, count_of
from conformance.specs.base import FLOATS, OnnxNode, Parameter, SupportTable
from conformance.specs.pooling import shape_check as window_check
from conformance.specs.primitives import X, abs_, input_, pow_, rounded_constant, sqrt
from oracle.windows import window_sums

TABLES_1_0 = (SupportTable("1_0", (4, 5), FLOATS),)  # AVERAGE_POOLING, LP_POOLING
TABLES_6_2 = (SupportTable("6_2", (4, 5), FLOATS),)  # AVERAGE_POOLING1, LP_POOLING1
CONSTRAINTS = ("InputTensor and OutputTensor must have the same DataType and DimensionCount (4 or 5); DimensionCount "
               "is InputTensor's less 2.")
DILATED_NOTE = ("The page's output size formula subtracts WindowSize[i], not the dilated window's extent: "
                "(WindowSize[i] - 1) * Dilations[i] + 1 is used, as for MAX_POOLING2 (docs/findings/issue25-window.md).")
INCLUDE_PADDING = Parameter("IncludePadding", "int", None,
                            "A BOOL: whether the padding elements around the spatial edges count in the divisor of "
                            "the average (as zeros); FALSE: the divisor is the window's positions inside the input.")
P = Parameter("P", "uint", None, "The P of Y = (X1^P + X2^P + ... + Xn^P) ^ (1/P) over the window's values; "
              "typically 1 or 2 (L1, L2).")
S = input_("S")
LARGEST_MULTIPLIED_P = 4  # up to this P a device may form |x|^P by multiplying, beside pow


def sums(params):
    """A Sum step's reduce: the input-shaped terms summed over each window (overlapping windows)."""
    return window_sums(params)


def average_accumulation(params) -> tuple:
    """The window's sum, divided by prod(WindowSize) (IncludePadding) or by its terms' count. With
    IncludePadding the divisor is one constant, which a device may also multiply each tap by before
    summing (1/size rounded to float32): the union of both."""
    if params.get("IncludePadding"):
        size = float(np.prod(params["WindowSize"]))
        return ((Sum("S", X, sums), Then("Output", S / size)),
                (Sum("Output", X * rounded_constant(1.0 / size), sums),))
    return ((Sum("S", X, sums), Then("Output", S / count_of("S"))),)


def lp_accumulation(params) -> tuple:
    """(|x1|^P + ... + |xn|^P)^(1/P), |x|^P multiplied out (P <= 4) with the root sqrt for P = 2, or both
    as pow (HLSL's exp2(y * log2(x))): either is the page's formula; the interval is their union."""
    p = int(params["P"])
    powered = ((Sum("S", pow_(abs_(X), float(p)), sums), Then("Output", pow_(S, rounded_constant(1.0 / p)))),)
    if p > LARGEST_MULTIPLIED_P:
        return powered
    term = abs_(X)
    for _ in range(p - 1):
        term = term * abs_(X)
    root = S if p == 1 else sqrt(S) if p == 2 else pow_(S, rounded_constant(1.0 / p))
    return ((Sum("S", term, sums), Then("Output", root)),) + powered


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """WebNN's averagePool2d and l2Pool2d: the window's elements + 2 ULP (3-D windows and P other
    than 2 extrapolated)."""
    return int(np.prod(params["WindowSize"])) + 2


def lp_check(input_shapes, params) -> str | None:
    if params.get("P") is not None and int(params["P"]) < 1:
        return f"P {params['P']}: 1/P must exist (P >= 1)"
    return window_check(input_shapes, params)


def _attributes(params) -> dict:
    """The window's attributes; ExecutionFlags are the backends' to reach or not."""
    attributes = {"kernel_shape": list(params["WindowSize"]), "strides": list(params["Strides"]),
                  "pads": list(params["StartPadding"]) + list(params["EndPadding"])}
    if params.get("Dilations"):
        attributes["dilations"] = list(params["Dilations"])
    return attributes


def average_onnx(dtype: str, params: dict) -> OnnxNode:
    """AveragePool (opset 19: dilations), count_include_pad = IncludePadding."""
    attributes = _attributes(params) | {"count_include_pad": int(bool(params.get("IncludePadding")))}
    return OnnxNode("AveragePool", 19, attributes=attributes, alone=True)


def lp_onnx(dtype: str, params: dict) -> OnnxNode:
    """LpPool (opset 18: dilations), p = P."""
    return OnnxNode("LpPool", 18, attributes=_attributes(params) | {"p": int(params["P"])}, alone=True)


AVERAGE_FORMULA = ("y = (x1 + ... + xn) / divisor over each window's positions inside the input; divisor "
                   "prod(WindowSize) where IncludePadding, else n")
LP_FORMULA = "Y = (|X1|^P + ... + |Xn|^P) ^ (1/P) over each window's positions inside the input"
SIZE_FORMULA = ("OutputTensor.Sizes[i + 2] = (InputTensor.Sizes[i + 2] + StartPadding[i] + EndPadding[i] - "
                "WindowSize[i]) / Strides[i] + 1")
DILATED_SIZE_FORMULA = ("OutputTensor.Sizes[i + 2] = (PaddedSize - ((WindowSize[i] - 1) * Dilations[i] + 1)) / "
                        "Strides[i] + 1")
BOUND_NOTE = ("Judged by the sound interval of the window's sum (conformance specs shows the steps): gamma(n - 1) * "
              "sum |x_i| for any order of summation, then the page's step after it with Direct3D's accuracy; "
              "float16 summed in float32 unless ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION.")
ULP_NOTE = "The `ulp` model: WebNN's averagePool2d and l2Pool2d tolerance, prod(WindowSize) + 2 ULP."
LP_NOTE = ("The page writes X^P without |X|: |X|^P is used, as ONNX's LpPool does and DirectML 1.15.4 computes "
           "(docs/findings/issue26-pooling.md; for odd P a negative sum would have no real root). Integer P up to 4 "
           "may be multiplied out or taken by pow: the union of both intervals.")
AVERAGE_NOTE = ("A window wholly in the padding is refused (with IncludePadding FALSE it has no divisor). "
                "IncludePadding TRUE divides by prod(WindowSize), the window's positions, not its dilated extent.")
