import math

import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.primitives import X, declared, select

STRUCT = "DML_ELEMENT_WISE_SIN_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """Multiples of pi in the tensor type (sin is near 0 there, where absolute error shows), the
    edges of [-pi, pi] (the range the accuracy tables cover), tiny arguments (sin x = x) and large
    ones (argument reduction)."""
    pi = float(np.array(np.pi, dtype))
    values = [pi, pi / 2, pi / 4, 2 * pi, 3 * pi, 10 * pi, float(np.nextafter(np.array(pi, dtype), np.array(4, dtype))),
              1e-4, 100.0, 1000.0, 2.0 ** 11, float(np.finfo(dtype).max) / 2]
    return values + [-v for v in values]



PI = float(np.float32(np.pi))  # pi rounded to float32, just above pi
HALF_PI = float(np.float32(np.pi / 2))
TRIG_ACCURACY = ("WGSL 'Floating Point Accuracy' (sin, cos) and the WebGPU CTS (src/webgpu/util/"
                 "floating_point.ts, SinIntervalOp/CosIntervalOp): absolute error 2^-11 inside [-pi, pi] "
                 "(f32), nothing outside it but the range [-1, 1]")


def _accurate(name, reference, a, monotone):
    return declared(name, a, reference=reference, abs_error=2.0 ** -11, bounds=(-1.0, 1.0), monotone=monotone,
                    source=TRIG_ACCURACY)


def _in_range(name, reference, a, inside):
    """inside on [-pi, pi]; any value of [-1, 1] outside (argument reduction is not specified)."""
    anywhere = declared(f"{name}[|x|>pi]", a, reference=reference, abs_error=math.inf, bounds=(-1.0, 1.0),
                        source=TRIG_ACCURACY)
    return select(a < -PI, anywhere, select(a > PI, anywhere, inside))


def sin(a):
    """sin as the accuracy tables grant it; monotone pieces keep a flushed or ScaleBias-widened
    argument's interval narrow."""
    falling = _accurate("sin", np.sin, a, "decreasing")
    rising = _accurate("sin", np.sin, a, "increasing")
    return _in_range("sin", np.sin, a, select(a < -HALF_PI, falling, select(a > HALF_PI, falling, rising)))


def cos(a):
    return _in_range("cos", np.cos, a, select(a < 0.0, _accurate("cos", np.cos, a, "increasing"),
                                              _accurate("cos", np.cos, a, "decreasing")))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_SIN",
    struct=STRUCT,
    formula="f(x) = sin(x), x first mapped by ScaleBias if present",
    summary="The trigonometric sine of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=float_tables("1_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 4, "float16": 2},
    onnx_route="Sin (opset 7)",
    to_onnx=one_node("Sin", 7),
    special_values=special_values,
    d3d=lambda p: sin(X),
    output_range=lambda params, dtype: (-1.0, 1.0),
    source=page(STRUCT),
    notes=("WebNN judges sin by an absolute error (1/1024 float32, 1/512 float16), which a ULP tolerance "
           "cannot state; the ULP figures are OpenCL's (4 ULP float, 2 ULP half), which GPU sines do not "
           "meet far from zero. WGSL and the WebGPU CTS grant an absolute error of 2^-11 (f32) and 2^-7 "
           "(f16) inside [-pi, pi] and nothing outside.",),
)
