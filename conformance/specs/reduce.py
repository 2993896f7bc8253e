"""DML_REDUCE_OPERATOR_DESC: every DML_REDUCE_FUNCTION over every axis set, judged by the sound
interval of its formula (conformance/judge/accumulated.py); ARGMAX and ARGMIN by the set of indices
the page allows (any of equal extremes: the page does not say which)."""
import numpy as np

from conformance.specs import indices
from conformance.specs.accumulation import Extreme, Product, Sum, Then, count_of
from conformance.specs.base import (FLOATS, ONE_TO_EIGHT, NotReachable, OnnxNode, OperatorSpec, Output, Parameter,
                                    SupportTable, execution_flags, page)
from conformance.specs.families import REDUCTION
from conformance.specs.primitives import X, abs_, exp, input_, log, sqrt
from oracle.reduce import FUNCTIONS, INDEX_FUNCTIONS, PREFIX, output_dtype

INDEX_TYPES = ("int64", "int32", "uint64", "uint32")
_INTS_32 = ("int32", "int16", "int8", "uint32", "uint16", "uint8")
_ALL = FLOATS + ("int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
_WIDE = FLOATS + ("int64", "int32", "uint64", "uint32")
# The page's tables by function group (MicrosoftDocs/sdk-api, dd64e5cb): InputTensor's types; OutputTensor
# has the same, but ARGMAX and ARGMIN's (INDEX_TYPES from 3_0, UINT32 before)
GROUPS = {
    ("ARGMAX", "ARGMIN"): (SupportTable("4_1", ONE_TO_EIGHT, _ALL), SupportTable("3_0", ONE_TO_EIGHT, FLOATS + _INTS_32),
                           SupportTable("2_1", (4,), FLOATS + _INTS_32), SupportTable("1_0", (4,), FLOATS)),
    ("AVERAGE", "L2", "LOG_SUM", "LOG_SUM_EXP"): (SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
                                                  SupportTable("1_0", (4,), FLOATS)),
    ("L1", "SUM_SQUARE"): (SupportTable("5_0", ONE_TO_EIGHT, _WIDE), SupportTable("3_0", ONE_TO_EIGHT, FLOATS),
                           SupportTable("1_0", (4,), FLOATS)),
    ("MIN", "MAX"): (SupportTable("5_0", ONE_TO_EIGHT, _ALL), SupportTable("3_0", ONE_TO_EIGHT, FLOATS + _INTS_32),
                     SupportTable("2_1", (4,), FLOATS + ("int32", "uint32")), SupportTable("1_0", (4,), FLOATS)),
    ("MULTIPLY", "SUM"): (SupportTable("5_0", ONE_TO_EIGHT, _WIDE),
                          SupportTable("3_0", ONE_TO_EIGHT, FLOATS + ("int32", "uint32")),
                          SupportTable("2_1", (4,), FLOATS + ("int32", "uint32")), SupportTable("1_0", (4,), FLOATS)),
}
ONNX = {"AVERAGE": "ReduceMean", "L1": "ReduceL1", "L2": "ReduceL2", "LOG_SUM": "ReduceLogSum",
        "LOG_SUM_EXP": "ReduceLogSumExp", "MAX": "ReduceMax", "MIN": "ReduceMin", "MULTIPLY": "ReduceProd",
        "SUM": "ReduceSum", "SUM_SQUARE": "ReduceSumSquare", "ARGMAX": "ArgMax", "ARGMIN": "ArgMin"}
# ONNX Runtime's CPU kernels' types (1.32), by the ONNX operators of each function group
ONNX_CPU_TYPES = {"FLOAT": FLOATS, "SUM_PROD": ("float32", "float16", "int32", "int64"),
                  "MIN_MAX": ("float32", "float16", "int32", "int64", "int8", "uint8"),
                  "ARG": ("float32", "float16", "int32", "int8", "uint8", "int64")}
# WebNN's WPT tolerances (webnn/conformance_tests/reduce_*.https.any.js), N the elements reduced
WEBNN_ULP = {"SUM": (1, 0), "L1": (1, 0), "MULTIPLY": (1, 0), "SUM_SQUARE": (2, 0), "L2": (2, 1), "AVERAGE": (1, 2),
             "LOG_SUM": (1, 18), "LOG_SUM_EXP": (2, 18), "MAX": (0, 0), "MIN": (0, 0)}


def _name(params) -> str:
    return (params.get("Function") or PREFIX + "SUM").removeprefix(PREFIX)


def tables_by_fields(params) -> tuple:
    return next(tables for group, tables in GROUPS.items() if _name(params) in group)


def _summed(params):
    axes = tuple(sorted(int(a) for a in params["Axes"]))
    return lambda array: np.sum(array, axis=axes, keepdims=True)


def _extreme(params):
    axes = tuple(sorted(int(a) for a in params["Axes"]))
    return lambda array, ufunc: ufunc.reduce(array, axis=axes, keepdims=True)


def _multiplied(params):
    return _summed(params)  # over the logs of the factors' magnitudes (accumulated._product)


S = input_("S")
FORMULAS = {
    "SUM": ((Sum("S", X, _summed),),),
    "AVERAGE": ((Sum("S", X, _summed), Then("Output", S / count_of("S"))),),
    "L1": ((Sum("S", abs_(X), _summed),),),
    "L2": ((Sum("S", X * X, _summed), Then("Output", sqrt(S))),),
    "SUM_SQUARE": ((Sum("S", X * X, _summed),),),
    "LOG_SUM": ((Sum("S", X, _summed), Then("Output", log(S))),),
    # as the page writes it, or with the maximum subtracted first (overflow-free): either is the formula
    "LOG_SUM_EXP": ((Sum("S", exp(X), _summed), Then("Output", log(S))),
                    (Extreme("M", X, _extreme, True), Sum("S", exp(X - input_("M")), _summed),
                     Then("Output", input_("M") + log(S)))),
    "MAX": ((Extreme("Output", X, _extreme, True),),),
    "MIN": ((Extreme("Output", X, _extreme, False),),),
    "MULTIPLY": ((Product("Output", X, _multiplied),),),
}


def accumulation(params) -> tuple:
    """The function's formula; none for an index (ARGMAX, ARGMIN). Integers are exact (the oracle's wrap)."""
    if params.get("Function") in INDEX_FUNCTIONS:
        return ()
    return FORMULAS[_name(params)]


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """WebNN's count: N, 2N, 2N + 1, N + 2, N + 18 or 2N + 18 by function (N the elements reduced), 0 for MAX and MIN"""
    per_term, extra = WEBNN_ULP.get(_name(params), (0, 0))
    count = int(np.prod([input_shapes[0][a] for a in params["Axes"]]))
    return per_term * count + extra


def parameter_level(params) -> str | None:
    """An index output other than UINT32 from 3_0 (the 1_0 and 2_1 tables have UINT32 alone)."""
    if params.get("Function") in INDEX_FUNCTIONS and params.get("OutputType") not in (None, "uint32"):
        return "3_0"
    return None


def allowed(inputs, params):
    return indices.reduction_allowed(inputs, params, np.max if _name(params) == "ARGMAX" else np.min, any_tie=True)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    name, axes = _name(params), [int(a) for a in params["Axes"]]
    if name in ("ARGMAX", "ARGMIN"):
        if len(axes) != 1 or output_dtype(dtype, params["Function"], params.get("OutputType")) != "int64":
            raise NotReachable(f"{ONNX[name]} reduces one axis into tensor(int64) alone")
        if dtype not in ONNX_CPU_TYPES["ARG"]:
            raise NotReachable(f"ONNX Runtime's CPU {ONNX[name]} has no tensor({dtype}) kernel")
        return OnnxNode(ONNX[name], 13, attributes={"axis": axes[0], "keepdims": 1}, output_type="int64", alone=True)
    kernels = ONNX_CPU_TYPES["MIN_MAX" if name in ("MIN", "MAX") else "SUM_PROD" if name in ("SUM", "MULTIPLY")
                             else "FLOAT"]
    if dtype not in kernels:
        raise NotReachable(f"ONNX Runtime's CPU {ONNX[name]} has no tensor({dtype}) kernel")
    return OnnxNode(ONNX[name], 18, constant_inputs=(np.array(axes, dtype=np.int64),), attributes={"keepdims": 1},
                    alone=True)


def _index_type(dtype: str, Function=None) -> str:
    return output_dtype(dtype, Function)


SPEC = OperatorSpec(
    name="REDUCE",
    struct="DML_REDUCE_OPERATOR_DESC",
    formula="OutputTensor[o] = Function over the InputTensor elements of o's slice along Axes: ARGMAX/ARGMIN their "
            "index; AVERAGE (x1 + ... + xn) / n; L1 |x1| + ... + |xn|; L2 sqrt(x1^2 + ... + xn^2); LOG_SUM "
            "log(x1 + ... + xn); LOG_SUM_EXP log(exp(x1) + ... + exp(xn)); MAX, MIN; MULTIPLY x1 * ... * xn; SUM "
            "x1 + ... + xn; SUM_SQUARE x1^2 + ... + xn^2 (n the product of the reduced axes' sizes)",
    summary="Outputs the reduction of elements (sum, product, minimum, and so on) within one or more dimensions of "
            "the input tensor.",
    parameters=(Parameter("Function", "enum", PREFIX + "SUM", "A DML_REDUCE_FUNCTION: the reduction function to apply "
                          "to the input.", choices=FUNCTIONS, enum_values={f: k for k, f in enumerate(FUNCTIONS)}),
                Parameter("Axes", "uint_array", None, "The axes along which to reduce. Values must be in the range "
                          "[0, InputTensor.DimensionCount - 1].", count="AxisCount"),
                Parameter("OutputType", "tensor_type", None,
                          "Not a field: OutputTensor's data type. ARGMAX and ARGMIN: INT64, INT32, UINT64 or UINT32 "
                          "(UINT32 where a case leaves it unset: the only one before 3_0); the others: the input's.",
                          choices=INDEX_TYPES, unset=_index_type, unset_reads=("Function",),
                          tensors=("OutputTensor",)),
                execution_flags()),
    introduced="1_0",
    tables=tuple(t for group in GROUPS.values() for t in group),
    tables_by_fields=tables_by_fields,
    parameter_level=parameter_level,
    in_place=False,
    constraints="The input and output tensor data types must match except when using the ARGMAX and ARGMIN "
                "functions, which always output an integral data type. The output sizes must be the same as the "
                "input sizes except for the reduced axes, which must be 1.",
    tolerance_ulp={},
    ulp_tolerance=ulp_tolerance,
    onnx_route="ReduceSum, ReduceMean, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMin, "
               "ReduceProd, ReduceSumSquare (opset 18, axes an initializer, keepdims=1); ArgMax, ArgMin (opset 13, "
               "one axis, INT64)",
    to_onnx=to_onnx,
    source=page("DML_REDUCE_OPERATOR_DESC"),
    family=REDUCTION,
    output_dtype=output_dtype,
    outputs=(Output("OutputTensor", allowed=allowed, allowed_when=lambda params: params.get("Function") in
                    INDEX_FUNCTIONS),),
    accumulation=accumulation,
    struct_order=("Function", "InputTensor", "OutputTensor", "AxisCount", "Axes"),
    integers=lambda params, dtype: None,
    notes=("Each function's formula is judged by the sound interval of its steps (conformance specs REDUCE shows "
           "them): a sum of n terms within gamma(n - 1) * sum |x_i| in any order, the page's formula of the sum "
           "after it (AVERAGE's division, L2's sqrt, LOG_SUM's log) with Direct3D's accuracy. LOG_SUM_EXP: as the "
           "page writes it or with the maximum subtracted first (the union). MULTIPLY: gamma(n - 1) * |product|, "
           "0 where some order's partial product may underflow.",
           "float16 is summed in float32 unless the case's ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION.",
           "Integers (SUM, MULTIPLY, L1, SUM_SQUARE, MIN, MAX where the tables allow them): exact, each term and "
           "the result wrapped to the type as two's complement (the page is silent); any order gives that.",
           "ARGMAX and ARGMIN: the page leaves ties open: any index of an equal extreme is accepted; the index "
           "counts over the reduced axes together, row-major. OutputType UINT32 where a case leaves it unset.",
           "MAX and MIN: Direct3D's max and min (a NaN operand yields the other; NaN where every element is).",
           "The `ulp` model: WebNN's counts (reduceSum N, L1 N, Product N, SumSquare 2N, L2 2N + 1, Mean N + 2, "
           "LogSum N + 18, LogSumExp 2N + 18, Max and Min 0)."),
)
