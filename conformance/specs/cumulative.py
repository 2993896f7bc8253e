"""What DML_CUMULATIVE_SUMMATION_OPERATOR_DESC and DML_CUMULATIVE_PRODUCT_OPERATOR_DESC share (the pages
differ in the operation, the exclusive field's name and the first level): their fields, tables, shape
rule, ONNX routes and formula, a running tally judged by the sound interval of each prefix
(conformance/judge/accumulated.py: a Sum or Product step whose reduce is the scan, keeping the shape)."""
import numpy as np

from conformance.specs import indices
from conformance.specs.accumulation import Product, Sum
from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, SAME_TENSORS, NotReachable, OnnxNode, OperatorSpec,
                                    Parameter, SupportTable, execution_flags, page)
from conformance.specs.families import REDUCTION
from conformance.specs.primitives import X
from oracle.arg_extreme import DECREASING, INCREASING
from oracle.scan import scan

_INTS_32 = ("int32", "uint32")
_INTS_64 = ("int64", "uint64")


def tables(first_level: str) -> tuple:
    """Both pages' tables (MicrosoftDocs/sdk-api 9ade0e62, f2d501f7): InputTensor and OutputTensor alike."""
    return (SupportTable("5_0", ONE_TO_EIGHT, FLOATS + ("int64", "int32", "uint64", "uint32")),
            SupportTable("4_0", ONE_TO_EIGHT, FLOATS + _INTS_32),
            SupportTable(first_level, (4,), FLOATS + _INTS_32))


def parameters(exclusive: str, verb: str) -> tuple:
    return (Parameter("Axis", "uint", None, f"The index of the dimension to {verb} elements over. This value must "
                      "be less than the DimensionCount of the InputTensor."),
            Parameter("AxisDirection", "enum", INCREASING,
                      "A DML_AXIS_DIRECTION: INCREASING traverses the tensor along Axis by ascending element index, "
                      "DECREASING by descending index.",
                      choices=tuple(indices.AXIS_DIRECTIONS), enum_values=dict(indices.AXIS_DIRECTIONS)),
            Parameter(exclusive, "int", 0, "A BOOL: if TRUE (1), the value of the current element is excluded when "
                      "writing the running tally to the output tensor; if FALSE (0), it is included."),
            execution_flags())


def output_shapes(input_shapes, params) -> tuple:
    return (tuple(input_shapes[0]),)


def shape_check(exclusive: str):
    def check(input_shapes, params) -> str | None:
        axis, rank = params.get("Axis"), len(input_shapes[0])
        if axis is None:
            return "Axis is required (the pages give no default)"
        if not 0 <= axis < rank:
            return f"Axis {axis} must be less than the InputTensor's DimensionCount {rank}"
        if params.get(exclusive) not in (0, 1):
            return f"{exclusive} is a BOOL: 0 (FALSE) or 1 (TRUE)"
        return None
    return check


def tally(exclusive: str):
    """(params) -> (array) -> the running sums along Axis, of the array's shape: a Sum's terms, or the logs of
    a Product's factors (accumulated._product sums them); each element's count is its prefix's length."""
    def reduce(params):
        return lambda array: scan(array, int(params["Axis"]), params.get("AxisDirection") or INCREASING,
                                  params.get(exclusive))
    return reduce


# A factor's log2 magnitude held within this: a zero (-inf) or infinite (+inf) factor still decides under- or
# overflow (beyond any format's exponents), and no run's sum meets inf - inf
_LOG_CAP = 4096.0


def runs(exclusive: str):
    """(params) -> (log_small, log_big) -> the least log2 magnitude of a product of a contiguous run of factors
    within each output's prefix (of log_small), and the greatest (of log_big): a scan, sequential or parallel,
    combines adjacent runs alone (associativity, not commutativity). An exclusive first output has no run:
    +inf and -inf (neither under- nor overflow)."""
    def partials(params):
        axis, direction = int(params["Axis"]), params.get("AxisDirection") or INCREASING
        shifted = bool(params.get(exclusive))

        def extreme_run(logs, pick, other, empty):
            along = np.moveaxis(np.clip(logs, -_LOG_CAP, _LOG_CAP), axis, -1)
            along = along[..., ::-1] if direction == DECREASING else along
            total = np.cumsum(along, axis=-1)
            before = np.concatenate([np.zeros(total.shape[:-1] + (1,)), total[..., :-1]], axis=-1)
            best = pick.accumulate(total - other.accumulate(before, axis=-1), axis=-1)  # Kadane's, per prefix
            if shifted:
                best = np.concatenate([np.full(best.shape[:-1] + (1,), empty), best[..., :-1]], axis=-1)
            best = best[..., ::-1] if direction == DECREASING else best
            return np.moveaxis(best, -1, axis)
        return lambda log_small, log_big: (extreme_run(log_small, np.minimum, np.maximum, np.inf),
                                           extreme_run(log_big, np.maximum, np.minimum, -np.inf))
    return partials


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """WebNN's count: inputShape[Axis] - 1 (cumulativeSum's float32; float16 and the product by analogy)"""
    return max(int(input_shapes[0][params["Axis"]]) - 1, 0) if np.dtype(dtype).kind == "f" else 0


def onnx_route(op_type: str, opset: int, cpu_types: tuple, exclusive: str):
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        if dtype not in cpu_types:
            raise NotReachable(f"ONNX Runtime's CPU {op_type} has no tensor({dtype}) kernel")
        # alone: a shared graph's (1,) placeholder has no Axis above 0
        return OnnxNode(op_type, opset, constant_inputs=(np.array(int(params["Axis"]), dtype=np.int64),),
                        attributes={"exclusive": int(params.get(exclusive) or 0),
                                    "reverse": int(params.get("AxisDirection") == DECREASING)}, alone=True)
    return to_onnx


def cumulative_spec(name: str, first_level: str, exclusive: str, product: bool, onnx: tuple, summary: str,
                    notes: tuple) -> OperatorSpec:
    """onnx: (op_type, opset, ONNX Runtime's CPU kernels' types)."""
    struct = f"DML_{name}_OPERATOR_DESC"
    op, word, identity = ("*", "product", 1) if product else ("+", "sum", 0)
    step = Product("Output", X, tally(exclusive), runs(exclusive)) if product else Sum("Output", X, tally(exclusive))
    op_type, opset, cpu_types = onnx
    return OperatorSpec(
        name=name, struct=struct,
        formula=f"along Axis, in traversal order k = 0 .. L-1 (INCREASING: index k, DECREASING: index L-1-k): "
                f"OutputTensor[k] = InputTensor[0] {op} ... {op} InputTensor[k]; {exclusive}: InputTensor[0] {op} "
                f"... {op} InputTensor[k-1], the first visited element {identity}",
        summary=summary,
        parameters=parameters(exclusive, "multiply" if product else "sum"),
        introduced=first_level,
        tables=tables(first_level),
        in_place=True,
        constraints=SAME_TENSORS,
        tolerance_ulp={},
        ulp_tolerance=ulp_tolerance,
        onnx_route=f"{op_type} (opset {opset}; axis an initializer, exclusive, reverse for DECREASING); "
                   f"ONNX Runtime's CPU kernels: " + ", ".join(t.upper() for t in cpu_types),
        to_onnx=onnx_route(op_type, opset, cpu_types, exclusive),
        source=page(struct),
        family=REDUCTION,
        output_shapes_rule=output_shapes,
        shape_check=shape_check(exclusive),
        accumulation=((step,),),
        integers=lambda params, dtype: None,  # a tally along an axis, not a function of one element: the oracle's
        notes=(f"Each output element is judged by the sound interval of its own prefix of n terms (n = its index "
               f"in traversal order, +1 unless {exclusive}): "
               + ("the product within gamma(n - 1) * |product|, 0 where some order's partial product may "
                  "underflow" if product else "the sum within gamma(n - 1) * sum |x_i|")
               + (", in any association of the factors in traversal order (sequential or a parallel scan: each "
                  "partial product that of a contiguous run of factors, which decides where one may under- or "
                  "overflow)." if product else ", in any order (sequential or a parallel scan: every prefix a "
                  "tree of its own terms)."),
               "float16 is accumulated in float32 unless the case's ExecutionFlags hold "
               "ALLOW_HALF_PRECISION_COMPUTATION.",
               f"Integers: exact, each running {word} wrapped to the type as two's complement (the page is silent); "
               "any order gives that.",
               "The `ulp` model: WebNN's cumulativeSum count, inputShape[Axis] - 1 ULP for float32 (float16 by "
               "analogy" + ("; WebNN has no cumulative product: the sum's count by analogy)" if product else ")"),
               ) + notes,
    )
