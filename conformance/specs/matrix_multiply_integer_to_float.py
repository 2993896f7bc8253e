"""DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC: the integer sum of (A - AZeroPoint)(B - BZeroPoint)
exact, then AScale, BScale and Bias in float with Direct3D's accuracy (conformance/judge/accumulated.py)."""
import numpy as np

from conformance.specs import integer_matmul as im
from conformance.specs.accumulation import Then
from conformance.specs.base import (FLOATS, Input, NotReachable, OnnxNode, OperatorSpec, Parameter, SupportTable,
                                    execution_flags, optional_tensor)
from conformance.specs.families import CONTRACTION
from conformance.specs.primitives import input_
from oracle.matrix_multiply_integer_to_float import output_dtype

STRUCT = "DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC"
INTEGERS = ("int32", "int16", "int8", "uint32", "uint16", "uint8")
QUANTIZATION = ("AScale", "AZeroPoint", "BScale", "BZeroPoint")
# The page's one table (MicrosoftDocs/windows-ai-docs eba47f60): 6_2, the matrices and zero points of one integer
# type, the scales, Bias and OutputTensor FLOAT32 or FLOAT16 (OutputType); A, B, Bias and the output 2 to 4-D, the
# scales and zero points 1 to 4-D
TABLES = (SupportTable("6_2", (2, 3, 4), INTEGERS, tensor_ranks=tuple((n, (1, 2, 3, 4)) for n in QUANTIZATION)),)
FLOAT_TENSORS = ("AScaleTensor", "BScaleTensor", "BiasTensor", "OutputTensor")
# MatMulIntegerToFloat's inputs (A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias) from the page's
# (A, AScale, AZeroPoint, B, BScale, BZeroPoint, Bias), by which optional ones are bound (positions stay)
ONNX_ORDER = {(True, True, True): (0, 3, 1, 4, 2, 5, 6), (True, True, False): (0, 3, 1, 4, 2, 5),
              (True, False, False): (0, 3, 1, 4, 2), (False, False, False): (0, 2, 1, 3)}


def _float_type(dtype, OutputType=None):
    return output_dtype(dtype, OutputType)


def shape_check(input_shapes, params) -> str | None:
    return im.shape_check(SPEC, input_shapes, params, per_row=("AScale", "AZeroPoint"),
                          per_column=("BScale", "BZeroPoint"), like_output=("Bias",), same_rank=QUANTIZATION)


def output_shapes(input_shapes, params) -> tuple:
    return im.output_shapes(SPEC, input_shapes, params)


def accumulation(params) -> tuple:
    """The dequantized matrices' product as a float GEMM sums it (an exact integer sum scaled after lies
    inside), then Bias (absent: nothing added)."""
    total = input_("S")
    return ((im.dequantized_sum(SPEC), Then("Output", total + input_("Bias") if params.get("BiasTensor", "present")
                                             == "present" else total)),)


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """WebNN has no integer matmul: its matmul's 2 K, the nearest."""
    return 2 * int(im.named(SPEC, input_shapes, params)["A"][-1])


def onnx_shapes(input_shapes, params) -> tuple:
    """MatMulIntegerToFloat: a_scale, a_zero_point scalars; b's scalars or 1-D of N; bias 1-D of N."""
    shapes = im.named(SPEC, input_shapes, params)

    def reshaped(name, shape):  # (one onnx_refusal refuses: as it is)
        if name in ("A", "B"):
            return tuple(shape)
        if name != "Bias" and int(np.prod(shape)) == 1:
            return ()
        return (shape[-1],) if int(np.prod(shape)) == shape[-1] else tuple(shape)
    return tuple(reshaped(name, shape) for name, shape in shapes.items())


def onnx_refusal(inputs, dtype: str, params: dict) -> str | None:
    given = im.named(SPEC, inputs, params)
    per_row = [n for n in ("AScale", "AZeroPoint") if n in given and np.size(given[n]) > 1]
    if per_row:
        return f"MatMulIntegerToFloat takes {', '.join(per_row)} as a scalar only (not per row)"
    if "Bias" in given and np.size(given["Bias"]) != np.shape(given["Bias"])[-1]:
        return "MatMulIntegerToFloat's bias is 1-D of N (one row): DirectML's Bias has the output's Sizes"
    if any(np.size(given[n]) > 1 for n in ("BScale", "BZeroPoint") if n in given) and len(np.shape(given["B"])) > 2:
        return "MatMulIntegerToFloat's per-column scale of a batched B is not DirectML's broadcast"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """MatMulIntegerToFloat (com.microsoft), the DirectML EP's route to this operator."""
    if dtype not in im.QUANTIZED:
        raise NotReachable(f"MatMulIntegerToFloat takes INT8 and UINT8 only, not {dtype.upper()}")
    bound = tuple(params.get(n, "present") == "present" for n in ("AZeroPointTensor", "BZeroPointTensor", "BiasTensor"))
    if bound not in ONNX_ORDER:
        raise NotReachable("an absent zero point before a bound input: MatMulIntegerToFloat binds its inputs by position")
    return OnnxNode("MatMulIntegerToFloat", 1, domain="com.microsoft", output_type=_float_type(dtype, params.get(
                    "OutputType")), alone=True,
                    input_order=ONNX_ORDER[bound])


SPEC = OperatorSpec(
    name="MATRIX_MULTIPLY_INTEGER_TO_FLOAT",
    struct=STRUCT,
    formula="Output = (A - AZeroPoint) * AScale x (B - BZeroPoint) * BScale + Bias: BatchCount * ChannelCount "
            "independent {M,K} x {K,N} = {M,N} products; scales and zero points per tensor, per row of A or per "
            "column of B; absent zero points and Bias: 0",
    summary="Performs a matrix multiplication function on integer input tensor data, and produces floating point "
            "output.",
    parameters=(Parameter("OutputType", "tensor_type", None, "Not a field: the data type of AScaleTensor, "
                          "BScaleTensor, BiasTensor and OutputTensor, FLOAT32 or FLOAT16 (unset: FLOAT32).",
                          choices=FLOATS, unset=output_dtype, tensors=FLOAT_TENSORS),
                *im.zero_point_presence(("AZeroPointTensor", "BZeroPointTensor")),
                optional_tensor("BiasTensor", "_Maybenull_: absent, nothing is added."),
                execution_flags()),
    inputs=(im.matrix("ATensor"), im.scale("AScaleTensor", output_dtype), im.zero_point("AZeroPointTensor"),
            im.matrix("BTensor"), im.scale("BScaleTensor", output_dtype), im.zero_point("BZeroPointTensor"),
            Input("BiasTensor", broadcast=False, aliases_output=False, dtype=output_dtype, optional=True)),
    output_dtype=output_dtype,
    introduced="6_2",
    tables=TABLES,
    in_place=False,
    constraints="AScaleTensor, AZeroPointTensor, BScaleTensor, and BZeroPointTensor must have the same "
                "DimensionCount; ATensor, BiasTensor, BTensor, and OutputTensor another. BiasTensor and OutputTensor "
                "must have the same Sizes. ATensor, AZeroPointTensor, BTensor, and BZeroPointTensor must have the same "
                "DataType; AScaleTensor, BiasTensor, BScaleTensor, and OutputTensor another.",
    tolerance_ulp={},
    ulp_tolerance=ulp_tolerance,
    onnx_route="MatMulIntegerToFloat (com.microsoft, opset 1; INT8 and UINT8; a_scale and a_zero_point "
               "scalars, bias 1-D of N)",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    onnx_undefined=onnx_refusal,
    source="https://learn.microsoft.com/windows/ai/directml/api/"
           "ns-directml-dml_matrix_multiply_integer_to_float_operator_desc",
    family=CONTRACTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    accumulation=accumulation,
    integers=lambda params, dtype: None,  # a float output
    notes=("The page gives no formula; its fields dequantize A and B ((Input - ZeroPoint) * Scale), and ONNX "
           "Runtime's MatMulIntegerToFloat, which the DirectML EP maps here, is the dequantized matrices' product "
           "plus bias. Judged as a float GEMM of the dequantized matrices in any order: within gamma(K + 4) * "
           "sum |a' b'| (each factor's conversion and scaling rounded), then + Bias with Direct3D's accuracy; an "
           "exact integer sum scaled afterwards lies inside. float16 in float32 unless ExecutionFlags allow half.",
           "The page's Members section also lists OutputScaleTensor and OutputZeroPointTensor, which are in neither "
           "its Syntax block, DirectML.h nor its table (copied from QUANTIZED_LINEAR_MATRIX_MULTIPLY): the struct "
           "has the 8 fields above.",
           "The page gives no formula: the fields' words ('used for dequantizing') and ONNX Runtime's "
           "MatMulIntegerToFloat, which the DirectML EP maps to this operator.",
           "INT32 and UINT32 inputs: products beyond 2^63 are left open by the page; the cases keep their values "
           "small.",
           "The scales and zero points have one DimensionCount (the page's constraint), 1 to 4, the matrices' or "
           "fewer, the leading ones left out: {.., 1}, per row {.., M, 1} for A's, per column {.., 1, N} for B's. A "
           "1-D one is {1}, or B's {N}: the page does not say which dimension a 1-D one of M keeps, so none is cased "
           "(refused at load).",
           "The `ulp` model: WebNN has no integer matmul; its matmul's 2 K."),
)
