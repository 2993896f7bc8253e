import math

import numpy as np

from conformance.specs.base import A_B, FLOATS, ONE_TO_EIGHT, OperatorSpec, SupportTable, neighbours, no_onnx, page
from conformance.specs.primitives import UNDEFINED, WGSL_ACCURACY, A, B, declared, eq, select

STRUCT = "DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC"
PI = float(np.nextafter(np.float32(math.pi), np.float32(4)))  # pi, rounded up to float32


def special_values(dtype: str, params: dict) -> list:
    """Crossed with each other these reach every quadrant and the axes: +-1 (atan2 = +-pi/4,
    +-3pi/4), 2 and -0.5 (away from the diagonal); the generic specials add the signed zeros,
    infinities and NaN (atan2(+-0, -x) = +-pi, atan2(+-inf, +-inf) = +-pi/4, +-3pi/4)."""
    return neighbours([1.0, -1.0], dtype) + [2.0, -2.0, 0.5, -0.5]


def d3d(params: dict):
    """No Direct3D figure for atan2; WGSL's: 4096 ULP (f32), 5 ULP (f16). At the origin the page
    leaves the result undefined: any value there."""
    atan2 = declared("atan2", (A, B), np.arctan2, WGSL_ACCURACY, ulp={"float32": 4096, "float16": 5},
                     bounds=(-PI, PI))
    return select(eq(A, 0.0), select(eq(B, 0.0), UNDEFINED, atan2), atan2)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_ATAN_YX",
    struct=STRUCT,
    formula="f(y, x) = atan2(y, x), y from ATensor and x from BTensor; undefined at the origin (the page)",
    summary="Computes the 2-argument arctangent of each pair of elements of ATensor (y) and BTensor (x).",
    parameters=(),
    inputs=A_B,
    introduced="3_1",
    tables=(SupportTable("3_1", ONE_TO_EIGHT, FLOATS),),
    in_place=True,
    constraints="ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes.",
    # No WebNN figure for atan2: OpenCL C 3.0's, 6 ULP single and 2 ULP half precision.
    tolerance_ulp={"float32": 6, "float16": 2},
    onnx_route="none: ONNX has no two-argument arctangent",
    to_onnx=no_onnx("ONNX has no atan2 (an Atan of a Div loses the quadrant and is another operator's test)"),
    special_values=special_values,
    d3d=d3d,
    source=page(STRUCT),
    notes=("Floats: C's atan2 in float64 (numpy.arctan2), rounded once: atan2(+-0, +0) = +-0, "
           "atan2(+-0, -0) = +-pi, atan2(+-0, -x) = +-pi, atan2(+-inf, +-inf) = +-pi/4 or +-3pi/4, NaN "
           "with NaN. The page leaves the origin (both inputs zero) undefined: the oracle keeps C's values "
           "there (the ULP model judges by them).",
           "The d3d model grants WGSL's atan2 accuracy (4096 ULP float32, 5 ULP float16) around the exact "
           "value, within [-pi, pi], and any value at the origin (the page's undefined; a float32 denormal "
           "pair may be flushed onto it). The ULP model keeps C's values there.",),
)
