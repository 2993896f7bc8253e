from conformance.specs.activation_hard_sigmoid import hard_sigmoid, kinks
from conformance.specs.primitives import X
from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TENSORS, NotReachable, OperatorSpec, Parameter,
                                    SupportTable)


def to_onnx(dtype: str, params: dict):
    raise NotReachable("ONNX Runtime's DirectML EP registers no HardSwish kernel (onnxruntime-directml 1.24.4 "
                       "placed ONNX HardSwish-14 on the CPU), so no ONNX node reaches DML_ACTIVATION_HARD_SWISH")


SPEC = OperatorSpec(
    name="ACTIVATION_HARD_SWISH",
    struct="DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC",
    formula="f(x) = x * HardSigmoid(x, Alpha, Beta) = x * max(0, min(Alpha * x + Beta, 1))",
    summary="Hard swish, element-wise.",
    parameters=(Parameter("Alpha", "float", 1 / 6, "The scale coefficient; typical default 0.166667 (1/6)."),
                Parameter("Beta", "float", 0.5, "The bias coefficient; typical default 0.5.")),
    introduced="6_2",
    tables=(SupportTable("6_2", ONE_TO_EIGHT, FLOATS),),
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 4, "float16": 4},
    onnx_route="none: ONNX HardSwish (opset 14, alpha 1/6 and beta 0.5 fixed) runs on the CPU, the DirectML EP "
               "has no kernel for it (reached by dml-direct only)",
    to_onnx=to_onnx,
    special_values=kinks,
    d3d=lambda p: X * hard_sigmoid(p["Alpha"], p["Beta"]),
    keeps_sign=True,
    source="https://learn.microsoft.com/en-us/windows/ai/directml/api/ns-directml-dml_activation_hard_swish_operator_desc",
    notes=("The page has one table (no per-level history): feature level 6_2, 1 to 8 dimensions.",
           "The English page gives Alpha's typical default as 0.166667 (1/6), the other languages' pages "
           "as 0.2; the harness takes 1/6 (the float32 nearest 1/6 in the field).",
           "At x = -inf: -inf * HardSigmoid(-inf) = -inf * 0 = NaN (IEEE), as written; "
           "f(NaN) = NaN * 1 = NaN.",
           "Tolerance: WebNN's hardSwish (4 ULP float32 and float16)."),
)
