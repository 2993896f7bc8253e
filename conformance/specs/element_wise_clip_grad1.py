from conformance.specs.base import ALL_TYPES, ONE_TO_EIGHT, OperatorSpec, SupportTable, no_onnx, page
from conformance.specs.element_wise_clip1 import SPEC as CLIP1
from conformance.specs.element_wise_clip1 import bounds
from conformance.specs.element_wise_clip_grad import (GRAD_CONSTRAINTS, GRAD_INPUTS, GRAD_ROUTE, gate, grad_integers,
                                                      special_values)

STRUCT = "DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC"

SPEC = OperatorSpec(
    name="ELEMENT_WISE_CLIP_GRAD1",
    struct=STRUCT,
    formula="f(x, gradient) = 0 if x <= Min, 0 if x >= Max, else gradient; Min and Max of MinMaxDataType",
    summary="Computes backpropagation gradients for ELEMENT_WISE_CLIP1.",
    parameters=tuple(p for p in CLIP1.parameters if p.name != "ScaleBias"),  # MinMaxDataType, Min, Max
    inputs=GRAD_INPUTS,
    introduced="5_0",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, ALL_TYPES),),
    in_place=True,
    constraints=GRAD_CONSTRAINTS + " MinMaxDataType must match OutputTensor.DataType.",
    tolerance_ulp={"float32": 0, "float16": 0},
    onnx_route=GRAD_ROUTE,
    to_onnx=no_onnx("ONNX has no operator that ONNX Runtime maps to ELEMENT_WISE_CLIP_GRAD1"),
    d3d=lambda p: gate(*bounds(p, p["MinMaxDataType"] or "float32")),
    special_values=lambda dtype, params: special_values(dtype, dict(zip(("Min", "Max"), bounds(params, dtype)))),
    source="https://learn.microsoft.com/windows/ai/directml/api/ns-directml-dml_element_wise_clip_grad1_operator_desc",
    notes=("Min and Max are DML_SCALAR_UNIONs of the tensor's type (unset: the type's lowest and highest "
           "finite values, as CLIP1's): an int64 bound is exact.",
           "NaN x: neither comparison holds, the gradient passes (the page's formula).",
           "The page: OutputGradientTensor may alias InputTensor in place."),
    integers=lambda params, dtype: grad_integers(*bounds(params, dtype)),
)
