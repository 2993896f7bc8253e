import numpy as np

from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, NotReachable, OnnxNode, OperatorSpec, Output, Parameter,
                                    SupportTable, page)
from conformance.specs.families import NORMALIZATION
from oracle.dynamic_quantize_linear import output_dtype, quantize, zero_point

STRUCT = "DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC"
# Direct3D's float32 division is within 2.5 ULP (the subtraction correctly rounded, within 0.5 ULP)
DIVISION_ULP = 2.5


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor: the input's sizes; OutputScaleTensor and OutputZeroPointTensor: one element in the
    input's DimensionCount."""
    ones = (1,) * len(input_shapes[0])
    return tuple(input_shapes[0]), ones, ones


def shape_check(input_shapes, params) -> str | None:
    if not all(input_shapes[0]):
        return (f"InputTensor {list(input_shapes[0])}: Max(InputTensor) and Min(InputTensor) of no element "
                "are undefined (the page)")
    return None


def _target(params) -> str:
    return output_dtype("float32", params.get("OutputType"))[0]


def scale_bounds(inputs, params):
    """OutputScale within Direct3D's float32 arithmetic: InputMax - InputMin rounded to float32, divided
    within 2.5 ULP (float32 values only)."""
    x = np.asarray(inputs[0], dtype=np.float64)
    difference = float(np.float32(x.max() - x.min()))
    bounds = np.iinfo(_target(params))
    quotient = difference / (int(bounds.max) - int(bounds.min))
    step = float(np.spacing(np.float32(quotient)))
    lo, hi = np.float32(quotient - DIVISION_ULP * step), np.float32(quotient + DIVISION_ULP * step)
    lo = lo if lo >= quotient - DIVISION_ULP * step else np.nextafter(lo, np.float32(np.inf))
    hi = hi if hi <= quotient + DIVISION_ULP * step else np.nextafter(hi, np.float32(-np.inf))
    ones = (1,) * x.ndim
    return np.full(ones, lo, dtype=np.float32), np.full(ones, hi, dtype=np.float32)


def zero_point_from_scale(inputs, given, params):
    """The zero point the device's own scale gives."""
    return zero_point(inputs[0], given["OutputScaleTensor"], _target(params)).reshape(
        given["OutputScaleTensor"].shape)


def output_from_scale(inputs, given, params):
    """OutputTensor as the device's own scale and zero point give it."""
    return quantize(inputs[0], given["OutputScaleTensor"], given["OutputZeroPointTensor"], _target(params))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """DynamicQuantizeLinear (opset 11): FLOAT32 in, UINT8 out; its range holds 0 (ONNX), the page's does not."""
    if dtype != "float32" or _target(params) != "uint8":
        raise NotReachable("DynamicQuantizeLinear (ONNX) takes FLOAT32 input and gives UINT8 only")
    return OnnxNode("DynamicQuantizeLinear", 11, outputs=3, output_type="uint8", alone=True)


SPEC = OperatorSpec(
    name="DYNAMIC_QUANTIZE_LINEAR",
    struct=STRUCT,
    formula="InputMax = Max(InputTensor), InputMin = Min(InputTensor), OutputScale = (InputMax - InputMin) / "
            "(Max - Min), OutputZeroPoint = Min - InputMin / OutputScale, OutputTensor = clamp(round(InputValue / "
            "OutputScale) + OutputZeroPoint, Min, Max) (UINT8: 0, 255; INT8: -128, 127)",
    summary="Calculates the quantization scale and zero point that quantize InputTensor, then quantizes it.",
    parameters=(Parameter("OutputType", "tensor_type", None,
                          "Not a field: the data type of OutputTensor and OutputZeroPointTensor, UINT8 or INT8.",
                          choices=("uint8", "int8"), unset=lambda dtype: "uint8",
                          tensors=("OutputTensor", "OutputZeroPointTensor")),),
    outputs=(Output("OutputTensor", derived_from=("OutputScaleTensor", "OutputZeroPointTensor"),
                    derived=output_from_scale),
             Output("OutputScaleTensor", dtype=lambda dtype: "float32", bounds=scale_bounds),
             Output("OutputZeroPointTensor", dtype=lambda dtype: "uint8", derived_from=("OutputScaleTensor",),
                    derived=zero_point_from_scale)),
    output_dtype=lambda dtype: "uint8",
    introduced="4_0",
    tables=(SupportTable("4_0", ONE_TO_EIGHT, FLOATS),),
    in_place=False,
    constraints="InputTensor, OutputScaleTensor, OutputTensor and OutputZeroPointTensor have the same DimensionCount; "
                "OutputTensor and OutputZeroPointTensor the same DataType (INT8 or UINT8); OutputScaleTensor is "
                "FLOAT32. OutputScaleTensor and OutputZeroPointTensor hold one element each.",
    tolerance_ulp={},
    onnx_route="DynamicQuantizeLinear (opset 11; FLOAT32 in, UINT8 out): its y_scale and y_zero_point scalars read "
               "in DirectML's sizes of ones",
    to_onnx=to_onnx,
    source=page(STRUCT),
    family=NORMALIZATION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    integers=lambda params, dtype: None,  # float input only
    notes=("The case's data type is InputTensor's; OutputTensor's and OutputZeroPointTensor's is OutputType (UINT8 "
           "unset, INT8 where a case says: ids OutputType=int8).",
           "Judged per output: OutputScaleTensor within Direct3D's float32 arithmetic of the page's formula (the "
           "difference rounded, the division within 2.5 ULP); OutputZeroPointTensor exactly as the device's own "
           "scale gives it, OutputTensor exactly as the device's own scale and zero point give it (the oracle's "
           "where those failed); rounding ties to even, as ELEMENT_WISE_QUANTIZE_LINEAR's.",
           "The page takes InputMin and InputMax as they are: the range is not widened to hold 0 as ONNX's "
           "DynamicQuantizeLinear widens it, and it does not say how OutputZeroPoint becomes an integer (rounded, ties "
           "to even, and saturated here). An input of one value gives a scale of 0, which divides by zero: no case "
           "has one. The page is silent on NaN and infinities in the input: no case has them.",
           "The page's one table: 4_0, 1 to 8 dimensions, FLOAT32 and FLOAT16 in; INT8 or UINT8 out; FLOAT32 scale."),
)
