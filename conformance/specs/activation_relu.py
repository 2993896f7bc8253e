from conformance.specs.primitives import X, maximum
from conformance.specs.base import (ACTIVATION_TABLES, FLOATS, ONE_TO_EIGHT, SAME_TENSORS, OnnxNode, OperatorSpec,
                                    SupportTable)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    return OnnxNode("Relu", 14)


def integers(params: dict, dtype: str):
    """max(0, x)."""
    return lambda x: max(0, x)


SPEC = OperatorSpec(
    name="ACTIVATION_RELU",
    struct="DML_ACTIVATION_RELU_OPERATOR_DESC",
    formula="f(x) = max(0, x)",
    summary="Rectified linear unit, element-wise.",
    parameters=(),
    introduced="1_0",
    tables=(SupportTable("5_1", ONE_TO_EIGHT, FLOATS + ("int32", "int16", "int8")),) + ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Relu (opset 14, which adds int8/int16/int32) (DirectML EP: DML_ACTIVATION_RELU)",
    to_onnx=to_onnx,
    d3d=lambda p: maximum(0.0, X),
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_relu_operator_desc",
    notes=("NaN: Direct3D max returns the non-NaN operand, so f(NaN) = 0; max(0, -0) = +0.",
           "Integer tensors (INT32, INT16, INT8, from 5_1) are exact: max(0, x) in the tensor type.",
           "Tolerance: WebNN's relu (0 ULP float32 and float16)."),
    integers=integers,
)
