"""DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC: Output = (A - AZeroPoint) x (B - BZeroPoint) into INT32,
exact (an integer sum is the same in any order)."""
import numpy as np

from conformance.specs import integer_matmul as im
from conformance.specs.base import (NotReachable, OnnxNode, OperatorSpec, Parameter, SupportTable, execution_flags,
                                    page)
from conformance.specs.families import CONTRACTION
from oracle.matrix_multiply_integer import OUTPUT_TYPE, output_dtype

STRUCT = "DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC"
# The page's tables (MicrosoftDocs/sdk-api b5f9f4f4): A, B and their zero points INT8 or UINT8, OutputTensor INT32;
# A, B and the output 2 to 4-D from 4_0 (4-D at 2_1), AZeroPoint 1 to 4-D from 4_0, BZeroPoint 2 to 4-D at 4_0 and
# 1 to 4-D from 5_2 (4-D at 2_1)
TABLES = (SupportTable("5_2", (2, 3, 4), im.QUANTIZED, tensor_ranks=(("AZeroPoint", (1, 2, 3, 4)),
                                                                       ("BZeroPoint", (1, 2, 3, 4)))),
          SupportTable("4_0", (2, 3, 4), im.QUANTIZED, tensor_ranks=(("AZeroPoint", (1, 2, 3, 4)),
                                                                       ("BZeroPoint", (2, 3, 4)))),
          SupportTable("2_1", (4,), im.QUANTIZED))


def shape_check(input_shapes, params) -> str | None:
    return im.shape_check(SPEC, input_shapes, params, per_row=("AZeroPoint",), per_column=("BZeroPoint",))


def output_shapes(input_shapes, params) -> tuple:
    return im.output_shapes(SPEC, input_shapes, params)


def onnx_shapes(input_shapes, params) -> tuple:
    """MatMulInteger's zero points: a_zero_point a scalar; b_zero_point a scalar, 1-D of N (2-D B) or B's
    dimensions with 1 for K (where onnx_refusal lets it through: one element per batch), whatever its own
    DimensionCount."""
    shapes = im.named(SPEC, input_shapes, params)
    b_rank = len(shapes["B"])

    def reshaped(name, shape):  # (one onnx_refusal refuses: as it is)
        if name.endswith("ZeroPoint") and int(np.prod(shape)) == 1:
            return ()
        if name == "BZeroPoint" and b_rank == 2:
            return (shape[-1],)
        if name == "BZeroPoint" and int(np.prod(shapes["B"][:-2])) == 1:
            return (*shapes["B"][:-2], 1, shape[-1])
        return tuple(shape)
    return tuple(reshaped(name, shape) for name, shape in shapes.items())


def onnx_refusal(inputs, dtype: str, params: dict) -> str | None:
    """What ONNX Runtime's CPU MatMulInteger refuses: a per-row a_zero_point; a per-column b_zero_point of a
    batched B (it wants B's batch sizes in the zero point, which DirectML broadcasts)."""
    given = im.named(SPEC, inputs, params)
    if "AZeroPoint" in given and np.size(given["AZeroPoint"]) > 1:
        return "ONNX Runtime's CPU MatMulInteger takes a_zero_point as a scalar only (not per row)"
    if "BZeroPoint" in given and np.size(given["BZeroPoint"]) > 1 and int(np.prod(np.shape(given["B"])[:-2])) > 1:
        return "ONNX Runtime's CPU MatMulInteger takes a per-column b_zero_point of a batched B only with B's batch sizes"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """MatMulInteger (opset 10): inputs A, B, a_zero_point, b_zero_point (the page's order: A, AZeroPoint, B,
    BZeroPoint)."""
    present = im.presence(SPEC, params)
    if present["AZeroPoint"] == "absent" and present["BZeroPoint"] == "present":
        raise NotReachable("b_zero_point without a_zero_point: the ONNX route binds MatMulInteger's inputs by position")
    order = {("present", "present"): (0, 2, 1, 3), ("present", "absent"): (0, 2, 1), ("absent", "absent"): (0, 1)}
    return OnnxNode("MatMulInteger", 10, output_type=OUTPUT_TYPE, alone=True,
                    input_order=order[present["AZeroPoint"], present["BZeroPoint"]])


SPEC = OperatorSpec(
    name="MATRIX_MULTIPLY_INTEGER",
    struct=STRUCT,
    formula="Output = (A - AZeroPoint) x (B - BZeroPoint): BatchCount * ChannelCount independent {M,K} x {K,N} = "
            "{M,N} integer matrix products into INT32; a zero point per tensor, per row of A or per column of B; "
            "absent: 0",
    summary="Performs a matrix multiplication function on integer data.",
    parameters=(Parameter("BType", "tensor_type", None, "Not a field: the data type of BTensor and BZeroPointTensor, "
                          "INT8 or UINT8 (unset: ATensor's).", choices=im.QUANTIZED, unset=lambda dtype: dtype,
                          tensors=("BTensor", "BZeroPointTensor")),
                *im.zero_point_presence(("AZeroPointTensor", "BZeroPointTensor")),
                execution_flags()),
    inputs=(im.matrix("ATensor"), im.zero_point("AZeroPointTensor"), im.matrix("BTensor"),
            im.zero_point("BZeroPointTensor")),
    output_dtype=output_dtype,
    introduced="2_1",
    tables=TABLES,
    in_place=False,
    constraints="ATensor, BTensor, and OutputTensor must have the same DimensionCount. BTensor and BZeroPointTensor "
                "must have the same DataType. ATensor and AZeroPointTensor must have the same DataType.",
    tolerance_ulp={},
    onnx_route="MatMulInteger (opset 10; its inputs A, B, a_zero_point, b_zero_point, each zero point a scalar or 1-D "
               "of M or N)",
    to_onnx=to_onnx,
    onnx_shapes=onnx_shapes,
    onnx_undefined=onnx_refusal,
    source=page(STRUCT),
    family=CONTRACTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    accumulation=lambda params: ((im.exact_sum(SPEC),),),
    integers=lambda params, dtype: None,  # a matrix product: the oracle's exact int64 sum, judged exactly
    notes=("Exact: an integer sum is the same in any order; the output is judged against the oracle's int64 sum.",
           "The page gives no formula beyond the batched product and the zero points 'used for dequantizing': "
           "(A - AZeroPoint) x (B - BZeroPoint), as ONNX's MatMulInteger.",
           "A and B may differ in type (the constraints tie each to its zero point only): BType chooses B's.",
           "A sum beyond INT32 (K above 33,025 with UINT8 extremes) is left open by the page: no case has one.",
           "A zero point may have fewer dimensions than A, its bracketed leading ones left out ({[1], [1], "
           "AZeroPointCount, [1]}, {[1], [1], [1], BZeroPointCount}): a 1-D BZeroPoint ({N} or {1}) from 5_2. A 1-D "
           "AZeroPoint is cased as {1} alone: the page does not say which dimension a 1-D one of M elements keeps.",
           "A zero point of more dimensions than A is refused at load: the page's Sizes for it are A's or fewer.",
           "The page says nothing of in-place execution: none is asked for."),
)
