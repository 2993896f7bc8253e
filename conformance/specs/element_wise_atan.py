import math

import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TYPE_AND_SIZES, SCALE_BIAS, OperatorSpec,
                                    SupportTable, neighbours, onnx_same_input)
from conformance.specs.primitives import X, declared


def special_values(dtype: str, params: dict) -> list:
    """atan(+-1) = +-pi/4, and arguments large enough that atan is pi/2 in the tensor type."""
    big = [v for v in (1e4, 1e8, 1e30) if v <= float(np.finfo(dtype).max)]
    return neighbours([1.0, -1.0], dtype) + big + [-v for v in big]


HALF_PI = float(np.nextafter(np.float32(math.pi / 2), np.float32(4)))  # pi / 2, rounded up to float32
WGSL = "WGSL, Accuracy of Concrete Floating Point Expressions (gpuweb/gpuweb wgsl/index.bs, #concrete-float-accuracy)"


def d3d(params: dict):
    """No Direct3D figure exists for atan; WGSL's: 4096 ULP (f32), 5 ULP (f16)."""
    return declared("atan", X, np.arctan, WGSL, ulp={"float32": 4096, "float16": 5}, monotone="increasing",
                    bounds=(-HALF_PI, HALF_PI))


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ATAN",
    struct="DML_ELEMENT_WISE_ATAN_OPERATOR_DESC",
    formula="f(x) = atan(x), x first mapped by ScaleBias if present",
    summary="Computes the arctangent of every element.",
    parameters=(SCALE_BIAS,),
    introduced="1_0",
    tables=(SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
            SupportTable("1_0", (4,), FLOATS)),
    in_place=True,
    constraints=SAME_TYPE_AND_SIZES,
    # No WebNN ULP tolerance for atan: the OpenCL C 3.0, Relative Error as ULPs figures.
    tolerance_ulp={"float32": 5, "float16": 2},
    onnx_route="Atan (opset 7)",
    to_onnx=onnx_same_input("Atan", 7),
    special_values=special_values,
    d3d=d3d,
    keeps_sign=True,
    output_range=lambda params, dtype: (-HALF_PI, HALF_PI),
    source="https://learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_element_wise_atan_operator_desc",
)
