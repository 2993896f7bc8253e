import numpy as np

from conformance.specs.base import ONE_TO_EIGHT, PRESENT, Input, OnnxNode, OperatorSpec, Parameter, SupportTable, page, optional_tensor
from conformance.specs.shapes import broadcast_check
from oracle.element_wise_quantized_linear_add import QUANTIZED, SCALES, output_dtype

STRUCT = "DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC"
ZERO_POINTS = ("AZeroPointTensor", "BZeroPointTensor", "OutputZeroPointTensor")
FLOAT32 = lambda dtype: "float32"  # noqa: E731  every scale tensor's type (the page's table)


def shape_check(input_shapes, params) -> str | None:
    """The element-wise family's, and each scale and zero point one element (the page: "The expected
    number of elements in AScaleTensor is 1", and so for each of the six)."""
    problem = broadcast_check(input_shapes, params)
    if problem:
        return problem
    names = [i.short for i in SPEC.input_tensors(params)]
    many = [f"{n} {list(s)}" for n, s in zip(names, input_shapes) if n in SCALES and int(np.prod(s)) != 1]
    if many:
        return (f"{', '.join(many)}: each scale and zero point must have one element (broadcast it over every "
                "dimension)")
    return None


def onnx_shapes(input_shapes, params) -> tuple:
    """QLinearAdd takes each scale and zero point as a scalar (ONNX Runtime: a scalar or a 1-D tensor of
    one element)."""
    names = [i.short for i in SPEC.input_tensors(params)]
    return tuple(() if n in SCALES else s for n, s in zip(names, input_shapes))


def to_onnx(dtype: str, params: dict):
    """com.microsoft QLinearAdd: one type T for A, B, C and their zero points (UINT8 or INT8)."""
    from conformance.specs.base import NotReachable
    if {params.get("BType") or dtype, output_dtype(dtype, params.get("OutputType"))} != {dtype}:
        raise NotReachable("QLinearAdd (com.microsoft) types A, B and C alike: no case of mixed INT8 and UINT8")
    if any(params.get(name, PRESENT) != PRESENT for name in ZERO_POINTS):
        raise NotReachable("an absent zero point: the ONNX route binds every QLinearAdd input by position")
    return OnnxNode("QLinearAdd", 1, domain="com.microsoft", alone=True, output_type=dtype)


SPEC = OperatorSpec(
    name="ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
    struct=STRUCT,
    formula="AValue = (A - AZeroPoint) * AScale, BValue = (B - BZeroPoint) * BScale, OutputValue = AValue + BValue, "
            "OutputTensor = clamp(round(OutputValue / OutputScale) + OutputZeroPoint, Min, Max) "
            "(UINT8: 0, 255; INT8: -128, 127)",
    summary="Adds every element of ATensor to its element of BTensor, both dequantized, and requantizes the sum.",
    parameters=(Parameter("BType", "tensor_type", None,
                          "Not a field: the data type of BTensor and BZeroPointTensor, INT8 or UINT8 (unset: ATensor's).",
                          choices=("uint8", "int8"), unset=lambda dtype: dtype,
                          tensors=("BTensor", "BZeroPointTensor")),
                Parameter("OutputType", "tensor_type", None,
                          "Not a field: the data type of OutputZeroPointTensor and OutputTensor, INT8 or UINT8 "
                          "(unset: ATensor's).",
                          choices=("uint8", "int8"), unset=output_dtype,
                          tensors=("OutputZeroPointTensor", "OutputTensor")),
                *(optional_tensor(name, "_Maybenull_: absent, the zero point is 0 (the page).") for name in ZERO_POINTS)),
    inputs=(Input("ATensor"),
            Input("AScaleTensor", role="scale", aliases_output=False, dtype=FLOAT32),
            Input("AZeroPointTensor", role="zero_point", aliases_output=False, optional=True),
            Input("BTensor"),
            Input("BScaleTensor", role="scale", aliases_output=False, dtype=FLOAT32),
            Input("BZeroPointTensor", role="zero_point", aliases_output=False, optional=True),
            Input("OutputScaleTensor", role="scale", aliases_output=False, dtype=FLOAT32),
            Input("OutputZeroPointTensor", role="zero_point", aliases_output=False, dtype=output_dtype,
                  optional=True)),
    output_dtype=output_dtype,
    introduced="4_0",
    tables=(SupportTable("4_0", ONE_TO_EIGHT, QUANTIZED),),
    in_place=False,
    constraints="Every tensor has the same DimensionCount. ATensor and AZeroPointTensor, BTensor and BZeroPointTensor, "
                "OutputTensor and OutputZeroPointTensor have the same DataType (INT8 or UINT8); the scales are "
                "FLOAT32. Each scale and zero point has one element.",
    tolerance_ulp={},
    onnx_route="QLinearAdd (com.microsoft, opset 1) with every scale and zero point a scalar, where A, B and C are "
               "of one type",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    shape_check=shape_check,
    integers=lambda params, dtype: None,  # a float computation (the scales)
    source=page(STRUCT),
    notes=("The case's data type is ATensor's (and AZeroPointTensor's); BTensor's is BType and OutputTensor's "
           "OutputType where a case gives them (case ids: BType=int8), else ATensor's.",
           "Oracle: each dequantization with ELEMENT_WISE_DEQUANTIZE_LINEAR's rule (the difference exact, the "
           "product in float64), the sum in float64, requantized with ELEMENT_WISE_QUANTIZE_LINEAR's rule (ties to "
           "even, saturated); judged exactly, as that operator is. A device computing in float32 differs only where "
           "its roundings cross a tie of the quotient: the cases put exact ties where they show.",
           "The three zero points are _Maybenull_ (absent: 0): a case leaves one out by its optional_tensor parameter "
           "(AZeroPointTensor=absent). A scale of 0 is undefined (as for QUANTIZE_LINEAR): no case has one.",
           "The page's one table: 4_0, 1 to 8 dimensions, INT8 and UINT8 (scales FLOAT32). The page says nothing "
           "of in-place execution: none is asked for."),
)
