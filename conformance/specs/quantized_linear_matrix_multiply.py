"""DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC: the dequantized A and B multiplied, the product
quantized (round ties to even, saturated), judged exactly as the quantizing operators are."""
import numpy as np

from conformance.specs import integer_matmul as im
from conformance.specs.base import (NotReachable, OnnxNode, OperatorSpec, Parameter, SupportTable, execution_flags,
                                    page)
from conformance.specs.families import CONTRACTION
from oracle.quantized_linear_matrix_multiply import output_dtype

STRUCT = "DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC"
ZERO_POINTS = ("AZeroPointTensor", "BZeroPointTensor", "OutputZeroPointTensor")
QUANTIZATION = ("AScale", "AZeroPoint", "BScale", "BZeroPoint", "OutputScale", "OutputZeroPoint")
# The page's tables (MicrosoftDocs/sdk-api e0bf7d90): the matrices and zero points INT8 or UINT8, scales FLOAT32;
# A, B and the output 2 to 4-D from 4_0 (4-D at 2_1), the scales and zero points 1 to 4-D from 4_0
TABLES = (SupportTable("4_0", (2, 3, 4), im.QUANTIZED, tensor_ranks=tuple((n, (1, 2, 3, 4)) for n in QUANTIZATION)),
          SupportTable("2_1", (4,), im.QUANTIZED))
# ONNX Runtime 1.32's CPU QLinearMatMul kernels (A, B, output), as tried
ONNX_CPU_TYPES = {("uint8", "uint8", "uint8"), ("uint8", "int8", "uint8"), ("int8", "int8", "int8")}


def _b_type(dtype, BType=None):
    return BType or dtype


def _out_type(dtype, OutputType=None):
    return OutputType or dtype


def shape_check(input_shapes, params) -> str | None:
    return im.shape_check(SPEC, input_shapes, params, per_row=("AScale", "AZeroPoint", "OutputScale", "OutputZeroPoint"),
                          per_column=("BScale", "BZeroPoint"), same_rank=QUANTIZATION)


def output_shapes(input_shapes, params) -> tuple:
    return im.output_shapes(SPEC, input_shapes, params)


def onnx_shapes(input_shapes, params) -> tuple:
    """QLinearMatMul's scales and zero points: scalars, or 1-D of N (b's per column, 2-D B)."""
    shapes = im.named(SPEC, input_shapes, params)

    def reshaped(name, shape):  # (one onnx_refusal refuses: as it is)
        if name in ("A", "B"):
            return tuple(shape)
        if int(np.prod(shape)) == 1:
            return ()
        return (shape[-1],) if name.startswith("B") and len(shapes["B"]) == 2 else tuple(shape)
    return tuple(reshaped(name, shape) for name, shape in shapes.items())


def onnx_refusal(inputs, dtype: str, params: dict) -> str | None:
    """What ONNX Runtime's CPU QLinearMatMul refuses: A's and the output's scale or zero point per row; B's per
    column for a batched B."""
    given = im.named(SPEC, inputs, params)
    per_row = [n for n in ("AScale", "AZeroPoint", "OutputScale", "OutputZeroPoint") if np.size(given[n]) > 1]
    if per_row:
        return f"ONNX Runtime's CPU QLinearMatMul takes {', '.join(per_row)} as a scalar only (not per row)"
    if any(np.size(given[n]) > 1 for n in ("BScale", "BZeroPoint")) and int(np.prod(np.shape(given["B"])[:-2])) > 1:
        return "ONNX Runtime's CPU QLinearMatMul takes B's per-column scale of a batched B only with B's batch sizes"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """QLinearMatMul (opset 10): a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, the
    page's order; every zero point bound."""
    types = (dtype, _b_type(dtype, params.get("BType")), _out_type(dtype, params.get("OutputType")))
    if types not in ONNX_CPU_TYPES:
        raise NotReachable(f"ONNX Runtime's CPU QLinearMatMul has no kernel of A {types[0]}, B {types[1]}, "
                           f"output {types[2]}")
    if any(params.get(name, "present") != "present" for name in ZERO_POINTS):
        raise NotReachable("an absent zero point: QLinearMatMul's zero points are required inputs")
    return OnnxNode("QLinearMatMul", 10, output_type=types[2], alone=True)


SPEC = OperatorSpec(
    name="QUANTIZED_LINEAR_MATRIX_MULTIPLY",
    struct=STRUCT,
    formula="Output = Quantize(Dequantize(A, AScale, AZeroPoint) x Dequantize(B, BScale, BZeroPoint), OutputScale, "
            "OutputZeroPoint); Dequantize(Input, Scale, ZeroPoint) = (Input - ZeroPoint) * Scale, Quantize(Input, "
            "Scale, ZeroPoint) = clamp(round(Input / Scale) + ZeroPoint, Min, Max) (UINT8: 0, 255; INT8: -128, 127)",
    summary="Performs a matrix multiplication function on quantized data. This operator is mathematically "
            "equivalent to dequantizing the inputs, then performing matrix multiply, and then quantizing the output.",
    parameters=(Parameter("BType", "tensor_type", None, "Not a field: the data type of BTensor and BZeroPointTensor, "
                          "INT8 or UINT8 (unset: ATensor's).", choices=im.QUANTIZED, unset=lambda dtype: dtype,
                          tensors=("BTensor", "BZeroPointTensor")),
                Parameter("OutputType", "tensor_type", None, "Not a field: the data type of OutputZeroPointTensor "
                          "and OutputTensor, INT8 or UINT8 (unset: ATensor's).", choices=im.QUANTIZED,
                          unset=lambda dtype: dtype, tensors=("OutputZeroPointTensor", "OutputTensor")),
                *im.zero_point_presence(ZERO_POINTS),
                execution_flags()),
    inputs=(im.matrix("ATensor"), im.scale("AScaleTensor"), im.zero_point("AZeroPointTensor"),
            im.matrix("BTensor"), im.scale("BScaleTensor"), im.zero_point("BZeroPointTensor"),
            im.scale("OutputScaleTensor"), im.zero_point("OutputZeroPointTensor")),
    output_dtype=output_dtype,
    introduced="2_1",
    tables=TABLES,
    in_place=False,
    constraints="The scales and zero points have one DimensionCount; ATensor, BTensor, and OutputTensor another. "
                "BTensor and BZeroPointTensor, OutputTensor and OutputZeroPointTensor, ATensor and AZeroPointTensor "
                "have the same DataType. Scales FLOAT32.",
    tolerance_ulp={},
    onnx_route="QLinearMatMul (opset 10; the page's input order; every zero point bound, scalars or B's per column)",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    onnx_undefined=onnx_refusal,
    source=page(STRUCT),
    family=CONTRACTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    accumulation=lambda params: ((im.exact_sum(SPEC),),),
    integers=lambda params, dtype: None,  # a float computation (the scales)
    notes=("The integer sum of (A - AZeroPoint)(B - BZeroPoint) is exact in any order; AScale * BScale times it, "
           "divided by OutputScale, is rounded to the nearest integer, ties to even (the page says 'round'; ONNX's "
           "QLinearMatMul and ELEMENT_WISE_QUANTIZE_LINEAR here round ties to even), plus the zero point, "
           "saturated. Judged exactly against the oracle's float64 value, as the quantizing operators are: the "
           "cases' scales (0.75, 0.5, 0.375, 0.25, 0.125 and powers of two for the output) keep the scaling of an "
           "integer sum exact in float32, and a float GEMM of the dequantized matrices too while its partial sums "
           "stay within 24 bits (every case but K = 4096's), so exact ties are where a device's rounding rule shows.",
           "A scale of 0 is undefined (the page): no case has one. OutputScaleTensor and OutputZeroPointTensor "
           "are used for quantizing the output, though the page says 'dequantizing'.",
           "The scales and zero points have one DimensionCount (the page's constraint), 1 to 4 from 4_0 (4 at 2_1), "
           "the matrices' or fewer, the leading ones left out: {.., 1}, per row {.., M, 1} for A's and the output's, "
           "per column {.., 1, N} for B's. A 1-D one is {1}, or B's {N}: the page does not say which dimension a 1-D "
           "one of M keeps, so none is cased (refused at load).",
           "The page says nothing of in-place execution: none is asked for."),
)
