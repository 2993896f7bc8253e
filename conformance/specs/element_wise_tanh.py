import numpy as np

from conformance.specs.base import SAME_TYPE_AND_SHAPE, SCALE_BIAS, OperatorSpec, float_tables, one_node, page
from conformance.specs.primitives import X, exp, select

STRUCT = "DML_ELEMENT_WISE_TANH_OPERATOR_DESC"


def special_values(dtype: str, params: dict) -> list:
    """Where tanh rounds to +-1 in the tensor type and either side of it, where exp(2x) overflows
    (a formula in exp must not give inf / inf there), and small arguments (tanh x = x)."""
    one = np.array(1.0, dtype)
    saturation = float(np.arctanh(np.float64(np.nextafter(one, one - 1))))
    overflow = float(np.log(float(np.finfo(dtype).max))) / 2
    values = [saturation * 0.99, saturation, saturation * 1.01, overflow * 0.999, overflow * 1.001, 1e-4, 0.5,
              2.0]
    return values + [-v for v in values]



def positive_tanh(y):
    """tanh(y) for y >= 0 as the ACTIVATION_TANH page writes it, (1 - exp(-2y)) / (1 + exp(-2y)):
    exp(-2y) stays in (0, 1], so nothing overflows (sinh / cosh gives inf / inf from |x| > 44)."""
    e = exp(-2.0 * y)
    return (1.0 - e) / (1.0 + e)

SPEC = OperatorSpec(
    name="ELEMENT_WISE_TANH",
    struct=STRUCT,
    formula="f(x) = tanh(x), x first mapped by ScaleBias if present",
    summary="The hyperbolic tangent of every element.",
    parameters=(SCALE_BIAS,),
    introduced="2_0",
    tables=float_tables("2_0"),
    in_place=True,
    constraints=SAME_TYPE_AND_SHAPE,
    tolerance_ulp={"float32": 5, "float16": 2},
    onnx_route="Tanh (opset 13), which ONNX Runtime's DirectML EP maps to DML_ACTIVATION_TANH, "
               "not this operator",
    to_onnx=one_node("Tanh", 13),
    special_values=special_values,
    d3d=lambda p: select(X < 0.0, -positive_tanh(-X), positive_tanh(X)),
    source=page(STRUCT),
    notes=("WebNN judges tanh by an absolute error (1/1024 float32, 1/512 float16), which a ULP tolerance "
           "cannot state; the ULP figures are OpenCL's (5 ULP float, 2 ULP half).",
           "Through ONNX Runtime the cases exercise DML_ACTIVATION_TANH (as CLIP's reach CLIP1); "
           "only dml-direct runs ELEMENT_WISE_TANH itself.",
           "No range rule: the formula's rcp may give 1 + 2^-21, so a result just beyond +-1 is within "
           "the Direct3D rules (ONNX Runtime's CPU tanh gives -1.0000001 at x = -8.99; the ULP model "
           "reports it)."),
)
