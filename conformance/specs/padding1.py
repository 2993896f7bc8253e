from conformance.specs.base import ONE_TO_EIGHT, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import DATA_MOVEMENT
from conformance.specs.padding import (ALL_TYPES, FORMULA, PADDING_MODE, PADDINGS, onnx_for_shape, onnx_route,
                                       mode_level, output_shapes, shape_check, source_index)
from oracle.padding1 import typed_value

SPEC = OperatorSpec(
    name="PADDING1",
    struct="DML_PADDING1_OPERATOR_DESC",
    formula=FORMULA + "; PaddingValue of PaddingValueDataType (the output's type)",
    summary="Inflates the input tensor with constant or mirrored values on the edges, and writes the result to "
            "the output; the padding value is of the tensor's own type.",
    parameters=(PADDING_MODE,
                Parameter("PaddingValueDataType", "data_type", None,
                          "The data type of PaddingValue, which must match OutputTensor.DataType (unset: the "
                          "tensor's type).", unset=lambda dtype: dtype),
                Parameter("PaddingValue", "scalar", None,
                          "The value of CONSTANT's padding, of PaddingValueDataType (ignored by the other modes; "
                          "unset: 0).", typed_by="PaddingValueDataType", unset=lambda dtype: 0),
                *PADDINGS),
    introduced="5_0",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, ALL_TYPES),),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and DimensionCount. DimensionCount "
                "(the length of StartPadding and EndPadding) is InputTensor's. PaddingValueDataType must match "
                "OutputTensor.DataType.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Pad (opset 18; 19 for wrap) with the pads and the constant value as initializers; "
               "SYMMETRIC not reachable",
    to_onnx=onnx_route(lambda params, dtype: typed_value(params["PaddingValue"], dtype)),
    onnx_for_shape=onnx_for_shape,
    source=page("DML_PADDING1_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    parameter_level=mode_level("5_0"),
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,  # a copy: no integer arithmetic to state
    notes=("The page gives no default PaddingValue: unset, it is 0.",
           "DML_PADDING_MODE_WRAP (FL 6_4) is in DirectML.h and the DirectML 1.15 release notes, not on the page: "
           "its semantics here are ONNX Pad's wrap (periodic).",
           "REFLECTION of a dimension of one element copies that element (the page is silent).",
           "ONNX Runtime's Pad: no SYMMETRIC; reflect no wider than a dimension's size less one; no INT16 or UINT16 "
           "on the CPU provider."),
)
