from conformance.specs.base import ACTIVATION_TABLES, SAME_TENSORS, OnnxNode, OperatorSpec


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # ONNX Identity is a copy (or ELEMENT_WISE_IDENTITY) in the DirectML EP; Dropout in inference
    # is the one ONNX node it runs as DML_ACTIVATION_IDENTITY.
    return OnnxNode("Dropout", 7)


SPEC = OperatorSpec(
    name="ACTIVATION_IDENTITY",
    struct="DML_ACTIVATION_IDENTITY_OPERATOR_DESC",
    formula="f(x) = x",
    summary="Identity activation: copies every element.",
    parameters=(),
    introduced="1_0",
    tables=ACTIVATION_TABLES,
    in_place=True,
    constraints=SAME_TENSORS,
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route="Dropout-7 (inference, no mask output; the DirectML EP registers no later Dropout): it runs as "
               "DML_ACTIVATION_IDENTITY (ONNX Identity becomes a copy, never this operator)",
    to_onnx=to_onnx,
    source="https://learn.microsoft.com/en-us/windows/win32/api/directml/ns-directml-dml_activation_identity_operator_desc",
    notes=("The page's member descriptions are swapped (InputTensor is described as the output tensor).",
           "Every value, NaN and -0 included, must come back unchanged (tolerance 0, as WebNN's identity)."),
)
