"""DML_GEMM_OPERATOR_DESC: Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C), judged by
the sound interval of its steps (conformance/judge/accumulated.py): the K products' sum within
gamma(K) * sum |a b| in any order, then Alpha, Beta, C and the activation with Direct3D's accuracy."""
import numpy as np

from conformance.specs import fused, matmul
from conformance.specs.accumulation import Dot, Then
from conformance.specs.base import (ABSENT, FLOATS, Input, NotReachable, OnnxNode, OperatorSpec, Parameter,
                                    SupportTable, execution_flags, optional_tensor, page)
from conformance.specs.families import CONTRACTION
from conformance.specs.primitives import input_, stored, substitute
from oracle.gemm import NONE, PRESENT, TRANSFORMS, product
from oracle.rounding import float_param

MATRIX_TRANSFORM = {name: value for value, name in enumerate(TRANSFORMS)}
# The page's tables (MicrosoftDocs/sdk-api 2cd469d9): A, B, C and the output alike
TABLES = (SupportTable("4_0", (2, 3, 4), FLOATS), SupportTable("1_0", (4,), FLOATS))
ONNX_CPU_TYPES = FLOATS  # ONNX Runtime's CPU Gemm and MatMul kernels (1.32) of the page's types


def _dot(inputs, params):
    return product(inputs[0], inputs[1], params.get("TransA", NONE), params.get("TransB", NONE))


def _magnitude(inputs, params):
    return product(np.abs(np.asarray(inputs[0], np.float64)), np.abs(np.asarray(inputs[1], np.float64)),
                   params.get("TransA", NONE), params.get("TransB", NONE))


def _count(inputs, params):
    return matmul.k_of(np.shape(inputs[0]), params)


def has_c(params) -> bool:
    return params.get("CTensor", PRESENT) != ABSENT


def gemm_formula(params, alpha_folded: bool = False, c_summed: bool = False):
    """Alpha * S + Beta * C (C absent: 0, Beta ignored), then the activation with it as its input (as
    the unfused GEMM's output tensor holds it, or as a fused shader keeps it). alpha_folded: S holds Alpha;
    c_summed: S holds Beta * C too (the accumulator started with it)."""
    total = input_("S") if alpha_folded else float_param(params.get("Alpha", 1.0)) * input_("S")
    if has_c(params) and not c_summed:
        total = total + float_param(params.get("Beta", 1.0)) * input_("C")
    value = params.get("FusedActivation")
    if value is None:
        return total
    _, fields = fused.split(value)
    return substitute(fused.formula(value, {k: float_param(v) for k, v in fields.items()}), stored(total))


def _beta_c(inputs, params):
    """Beta * C, the term a device may start its accumulator with."""
    return float_param(params.get("Beta", 1.0)) * np.asarray(inputs[2], np.float64)


def _folded(params, addend=None):
    """The products of Alpha * a and b: each Alpha * a rounded once more (a Dot of K + 1 roundings)."""
    alpha = float_param(params.get("Alpha", 1.0))
    return Dot("S", lambda inputs, p: alpha * _dot(inputs, p), lambda inputs, p: abs(alpha) * _magnitude(inputs, p),
               lambda inputs, p: _count(inputs, p) + 1, addend=addend)


def accumulation(params) -> tuple:
    """Alpha applied to the sum, or (Alpha not 1) folded into A's elements first: either is the page's formula;
    Beta * C added after the sum, or (Alpha 1 or folded) the accumulator started with it (one more term)."""
    plain = (Dot("S", _dot, _magnitude, _count), Then("Output", gemm_formula(params)))
    one = float_param(params.get("Alpha", 1.0)) == 1.0
    methods = (plain,) if one else (plain, (_folded(params), Then("Output", gemm_formula(params, alpha_folded=True))))
    if not has_c(params):
        return methods
    summed = Dot("S", _dot, _magnitude, _count, addend=_beta_c) if one else _folded(params, addend=_beta_c)
    return methods + ((summed, Then("Output", gemm_formula(params, alpha_folded=True, c_summed=True))),)


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """WebNN's gemm: 2 K, +1 where Alpha is not 1, +1 where C is used (Beta not 0), +1 more where Beta is not 1."""
    count = 2 * matmul.k_of(input_shapes[0], params)
    count += float_param(params.get("Alpha", 1.0)) != 1.0
    beta = float_param(params.get("Beta", 1.0))
    if has_c(params) and beta != 0.0:
        count += 1 + (beta != 1.0)
    return int(count)


def output_shapes(input_shapes, params) -> tuple:
    return matmul.output_shapes(input_shapes, params)


def shape_check(input_shapes, params) -> str | None:
    problem = matmul.shape_check(input_shapes, params)
    if problem or not has_c(params):
        return problem
    out = output_shapes(input_shapes, params)[0]
    if tuple(input_shapes[2]) != out:
        return f"C {list(input_shapes[2])}: CTensor and OutputTensor must have the same Sizes ({list(out)})"
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """Gemm (opset 13; the activation's own node after it); beta only where C is bound (onnx_for_shape
    reads its absence)."""
    if dtype not in ONNX_CPU_TYPES:
        raise NotReachable(f"ONNX Runtime's CPU Gemm and MatMul have no tensor({dtype}) kernel")
    then = ()
    if params.get("FusedActivation") is not None:
        spec, fields = fused.split(params["FusedActivation"])
        then = (spec.to_onnx(dtype, fields),)
        if not _in_opset(then[0], max(13, then[0].opset)):
            raise NotReachable(f"{spec.name}'s ONNX node {then[0].op_type} is in no opset with Gemm-13 (the graph "
                               "has one import)")
    attributes = {"alpha": float_param(params.get("Alpha", 1.0)),
                  "transA": int(params.get("TransA", NONE) != NONE), "transB": int(params.get("TransB", NONE) != NONE)}
    if has_c(params):
        attributes["beta"] = float_param(params.get("Beta", 1.0))
    return OnnxNode("Gemm", max([13] + [t.opset for t in then]), attributes=attributes, then=then, alone=True)


def _in_opset(node: OnnxNode, opset: int) -> bool:
    """Whether ONNX defines the node's operator at this opset (the experimental ones were removed at 10)."""
    import onnx.defs
    if node.domain:
        return False
    try:
        onnx.defs.get_schema(node.op_type, opset, node.domain)
    except onnx.defs.SchemaError:
        return False
    return True


def onnx_shapes(input_shapes, params) -> tuple:
    """A C broadcast along M ({1, N}: zero strides on DirectML) as ONNX Gemm's C of shape {N}, one broadcast along
    both ({1, 1}) as {1}; {M, 1} as it is (C unidirectionally broadcast, the page's strides)."""
    shapes = [tuple(s) for s in input_shapes]
    if len(shapes) > 2 and len(shapes[2]) == 2 and shapes[2][0] == 1:
        shapes[2] = shapes[2][1:]
    return tuple(shapes)


def onnx_for_shape(node: OnnxNode, shape) -> OnnxNode:
    """3-D and 4-D: MatMul (batched), which has no Alpha, C or transform."""
    if len(shape) == 2:
        return node
    plain = {"alpha": 1.0, "transA": 0, "transB": 0}
    if node.attributes != plain:
        raise NotReachable(f"ONNX's Gemm is 2-D; MatMul ({len(shape)}-D) has no Alpha, C or transform")
    return OnnxNode("MatMul", node.opset, then=node.then, alone=True)


SPEC = OperatorSpec(
    name="GEMM",
    struct="DML_GEMM_OPERATOR_DESC",
    formula="Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C): BatchCount * ChannelCount "
            "independent {M,K} x {K,N} = {M,N} matrix products; C absent: 0",
    summary="Performs a general matrix multiplication function of the form Output = FusedActivation(Alpha * "
            "TransA(A) x TransB(B) + Beta * C), where x denotes matrix multiplication, and * denotes "
            "multiplication with a scalar.",
    parameters=(optional_tensor("CTensor", "_Maybenull_: absent, C's values are 0 and Beta is ignored (the page)."),
                Parameter("TransA", "enum", NONE, "The transform to be applied to ATensor; either a transpose, or "
                          "no transform (DML_MATRIX_TRANSFORM).", choices=TRANSFORMS, enum_values=MATRIX_TRANSFORM),
                Parameter("TransB", "enum", NONE, "The transform to be applied to BTensor; either a transpose, or "
                          "no transform (DML_MATRIX_TRANSFORM).", choices=TRANSFORMS, enum_values=MATRIX_TRANSFORM),
                Parameter("Alpha", "float", 1.0, "The value of the scalar multiplier for the product of inputs "
                          "ATensor and BTensor (the page gives no default: ONNX Gemm's 1)."),
                Parameter("Beta", "float", 1.0, "The value of the scalar multiplier for the optional input CTensor. "
                          "If CTensor is not provided, then this value is ignored (no default on the page: ONNX "
                          "Gemm's 1)."),
                Parameter("FusedActivation", "fused_activation", None,
                          "_Maybenull_ const DML_OPERATOR_DESC*: an optional fused activation layer to apply after "
                          "the GEMM; one of the fusable activations, its tensors NULL.", choices=fused.FUSABLE),
                execution_flags()),
    inputs=(Input("ATensor", broadcast=False, aliases_output=False),
            Input("BTensor", broadcast=False, aliases_output=False),
            Input("CTensor", aliases_output=False, optional=True)),
    introduced="1_0",
    tables=TABLES,
    in_place=False,
    constraints="ATensor, BTensor, CTensor, and OutputTensor must have the same DataType and DimensionCount. "
                "CTensor and OutputTensor must have the same Sizes.",
    tolerance_ulp={},
    ulp_tolerance=ulp_tolerance,
    onnx_route="Gemm (opset 13; alpha, beta, transA, transB) for 2-D; MatMul (opset 13) for 3-D and 4-D without "
               "Alpha, C or a transform; the fused activation's own node after it (the DirectML EP fuses them)",
    to_onnx=to_onnx,
    onnx_for_shape=onnx_for_shape,
    onnx_shapes=onnx_shapes,
    source=page("DML_GEMM_OPERATOR_DESC"),
    family=CONTRACTION,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    accumulation=accumulation,
    notes=("Judged by the sound interval of its steps (conformance specs GEMM shows them): S, the K products' "
           "sum, within gamma(K) * sum |a_k b_k| of the exact sum in any order (fused mad or not, blocked, split); "
           "then Alpha * S + Beta * C and the fused activation's own formula with Direct3D's accuracy.",
           "float16 is summed in float32 unless the case's ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION.",
           "Alpha may be applied to the sum or folded into A first (each Alpha * a rounded: K + 1 roundings per "
           "product): the union of both.",
           "Beta * C may be added after the sum or start the accumulator (Alpha 1, or folded into A): then it is one "
           "more term of the sum, gamma(K + 1) over sum |a b| + |Beta C| (a bound of the add after the sum alone "
           "misses the K roundings of partial sums near Beta * C): the union.",
           "The fused activation: the GEMM's result as the unfused GEMM's output tensor holds it (the oracle: "
           "rounded to the type, then the activation's oracle), or as a fused shader keeps it (the d3d formula).",
           "Alpha and Beta: the page gives no default; ONNX Gemm's 1.0 where a case leaves them unset. C's Sizes "
           "are the output's (the page): a broadcast C (ONNX Gemm's unidirectional broadcast) is zero strides, "
           "a case's `broadcast: {C: [0]}` (along M), [1] (along N) or [0, 1]; ONNX Gemm takes that C as {N}, "
           "{M, 1} or {1}.",
           "The `ulp` model: WebNN's gemm (2 K, +1 where Alpha != 1, +1 where C is used with Beta != 0, +1 more "
           "where Beta != 1)."),
)
