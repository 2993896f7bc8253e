import numpy as np

from conformance.specs.base import FLOATS, NotReachable, OnnxNode, OperatorSpec, Parameter, SupportTable, page
from oracle import element_wise_is_infinity

STRUCT = "DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC"
MODES = {"DML_IS_INFINITY_MODE_EITHER": 0, "DML_IS_INFINITY_MODE_POSITIVE": 1,
         "DML_IS_INFINITY_MODE_NEGATIVE": 2}  # DirectML.h, enum DML_IS_INFINITY_MODE


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """IsInf's detect_positive / detect_negative select the DirectML mode (the DirectML EP's
    DmlOperatorElementwiseIsInf)."""
    if dtype == "float16":
        raise NotReachable("onnxruntime-directml 1.24.4 has no float16 IsInf kernel (IsInf-20 with a float16 "
                           "input went to the CPU provider); dml-direct reaches it")
    mode = params["InfinityMode"]
    attributes = {"detect_positive": int(mode != "DML_IS_INFINITY_MODE_NEGATIVE"),
                  "detect_negative": int(mode != "DML_IS_INFINITY_MODE_POSITIVE")}
    return OnnxNode("IsInf", 10, attributes, output_type="bool")


def special_values(dtype: str, params: dict) -> list:
    """The largest finite values next to the infinities."""
    biggest = float(np.finfo(dtype).max)
    return [biggest, -biggest, float(np.nextafter(np.array(biggest, dtype), np.array(0, dtype)))]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_IS_INFINITY",
    struct=STRUCT,
    formula="f(x) = isinf(x) && ((x > 0 && InfinityMode == POSITIVE) || (x < 0 && InfinityMode == NEGATIVE) "
            "|| InfinityMode == EITHER), 1 for true and 0 for false",
    summary="Checks every element for IEEE 754 -inf, inf or either, into a UINT8 output tensor.",
    parameters=(Parameter("InfinityMode", "enum", "DML_IS_INFINITY_MODE_EITHER",
                          "The sign of the infinity to check for: EITHER (-inf or inf), POSITIVE (inf), "
                          "NEGATIVE (-inf).", choices=tuple(MODES), enum_values=MODES),),
    introduced="2_1",
    tables=(SupportTable("3_0", tuple(range(1, 9)), FLOATS),
            SupportTable("2_1", (4,), FLOATS)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DimensionCount and Sizes. InputTensor is "
                "FLOAT32 or FLOAT16; OutputTensor is UINT8.",
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="IsInf (opset 10; detect_positive, detect_negative from the mode), float32 only; its bool "
               "output is DirectML's UINT8 tensor",
    to_onnx=to_onnx,
    special_values=special_values,
    output_dtype=element_wise_is_infinity.output_dtype,
    source=page(STRUCT),
    notes=("The page does not allow in-place execution (the output's type differs from the input's).",
           "ONNX IsInf with both detect_positive and detect_negative 0 has no DirectML mode; the harness "
           "never asks for it."),
)
