"""DML_REDUCE: each output element the page's Function of the InputTensor elements of its slice along
Axes (the output keeps every axis, of size 1 where reduced), in float64 (the judge bounds this
float64 sum's own error: conformance/judge/accumulated.py). Integers (where the tables allow them):
exact, wrapped to the type as two's complement (the page is silent; wrapping is the same in any
order). ARGMAX and ARGMIN: the first index of the extreme (oracle/arg_extreme.py), written as
UINT32 unless the case's OutputType chooses INT64, INT32 or UINT64."""
import numpy as np

from oracle.arg_extreme import INCREASING, arg_extreme

OPERATOR = "REDUCE"
PREFIX = "DML_REDUCE_FUNCTION_"
# DirectML.h's DML_REDUCE_FUNCTION, in order (ARGMAX = 0 ... SUM_SQUARE = 11)
FUNCTIONS = tuple(PREFIX + name for name in ("ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP",
                                             "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"))
INDEX_FUNCTIONS = FUNCTIONS[:2]
UNSET_INDEX_TYPE = "uint32"  # the only index type of every level's table
# ExecutionFlags changes what a device may compute, not what the page's formula is
DEFAULTS = {"Function": PREFIX + "SUM", "Axes": None, "OutputType": None, "ExecutionFlags": "NONE"}
TYPE_FIELDS = ("Function", "OutputType")


def output_dtype(dtype: str, Function=PREFIX + "SUM", OutputType=None) -> str:
    if Function in INDEX_FUNCTIONS:
        return OutputType or UNSET_INDEX_TYPE
    return dtype


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Function=PREFIX + "SUM", Axes=None, OutputType=None,
              ExecutionFlags="NONE") -> np.ndarray:
    name = Function.removeprefix(PREFIX)
    if Function in INDEX_FUNCTIONS:
        return arg_extreme(x, Axes, INCREASING, nan_rule, minimum=name == "ARGMIN")
    axes = tuple(sorted(int(a) for a in Axes))
    if x.dtype.kind in "iu":
        return _integers(x, name, axes)
    total = lambda v: np.sum(v, axis=axes, keepdims=True)  # noqa: E731
    count = int(np.prod([x.shape[a] for a in axes]))
    if name in ("MAX", "MIN"):
        pick = np.fmax if name == "MAX" else np.fmin
        if nan_rule == "propagate":
            pick = np.maximum if name == "MAX" else np.minimum
        return pick.reduce(x, axis=axes, keepdims=True)
    if name == "MULTIPLY":
        return np.prod(x, axis=axes, keepdims=True)
    if name == "LOG_SUM_EXP":
        top = np.max(np.where(np.isnan(x), -np.inf, x), axis=axes, keepdims=True)
        shift = np.where(np.isfinite(top), top, 0.0)
        return shift + np.log(total(np.exp(x - shift)))
    summed = {"AVERAGE": x, "L1": np.abs(x), "L2": x * x, "LOG_SUM": x, "SUM": x, "SUM_SQUARE": x * x}[name]
    s = total(summed)
    return {"AVERAGE": lambda: s / count, "L2": lambda: np.sqrt(s), "LOG_SUM": lambda: np.log(s)}.get(name, lambda: s)()


def _integers(x: np.ndarray, name: str, axes: tuple) -> np.ndarray:
    with np.errstate(over="ignore"):
        if name in ("MAX", "MIN"):
            return (np.max if name == "MAX" else np.min)(x, axis=axes, keepdims=True)
        terms = {"L1": np.abs(x), "SUM_SQUARE": x * x}.get(name, x)  # each wrapped in the type
        if name == "MULTIPLY":
            return np.prod(terms, axis=axes, keepdims=True, dtype=x.dtype)
        return np.sum(terms, axis=axes, keepdims=True, dtype=x.dtype)
