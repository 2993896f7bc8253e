"""The CPU reference: DirectML operator formulas in float64, rounded exactly.

    oracle.evaluate(op, x, dtype, **params) -> numpy.ndarray of dtype (several outputs: a tuple)

op is the DirectML operator name without DML_ and _OPERATOR_DESC; params use
the DirectML field names; missing ones take the page's typical defaults.
The keyword nan_rule ("d3d" or "propagate") chooses how min/max treat NaN.

Each operator is a module of this package that names its OPERATOR, its
DEFAULTS (every field, the page's typical value) and reference(x, dtype,
nan_rule, **fields); modules are found by those names, there is no list.
Float inputs reach reference() as float64; integer inputs keep their own type,
so that an operator on int64 is computed exactly. A module with READS_BITS = True
(a bitwise operator) gets float inputs in their own type too: float64 would quiet
a signalling NaN and change its bits. A module whose output type differs from its
input's names it in output_dtype(dtype) (IS_NAN: float32 -> uint8); where a case chooses it (the
quantizers' OutputType, not a DirectML field but the output tensor's type), the module lists that
field in TYPE_FIELDS and output_dtype takes it as a keyword.

An operator of several inputs (ELEMENT_WISE_ADD: A, B) takes x as a tuple of arrays in its page's
order; they are broadcast against each other with numpy (DirectML's zero strides) and each converted
as one input is, so reference() receives a tuple of arrays of one shape. A module with OWN_SHAPES = True
(GATHER: the data and its indices) gets each input in its own shape, nothing broadcast.
"""
import importlib
import pkgutil

import numpy as np

from oracle.rounding import round_to


def _discover() -> dict:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        name = getattr(module, "OPERATOR", None)
        if name is None:
            continue
        if name in found:
            raise ImportError(f"oracle: {name} is defined by both {found[name].__name__} and {module.__name__}")
        found[name] = module
    return found


OPERATORS = _discover()  # DirectML name -> its oracle module


def normalise(op: str) -> str:
    """'DML_ELEMENT_WISE_CLIP_OPERATOR_DESC', 'element_wise_clip' -> 'ELEMENT_WISE_CLIP'."""
    name = op.upper()
    if name.startswith("DML_"):
        name = name[4:]
    for suffix in ("_OPERATOR_DESC", "_OPERATOR"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.startswith("OPERATOR_"):
        name = name[len("OPERATOR_"):]
    if name not in OPERATORS:
        raise KeyError(f"unknown operator {op!r}; known: {', '.join(sorted(OPERATORS))}")
    return name


def defaults(op: str) -> dict:
    return dict(OPERATORS[normalise(op)].DEFAULTS)


def output_dtype(op: str, dtype: str, **params):
    """The data type of op's output for an input of dtype (and the fields that choose it, if any); a
    tuple of them, one per output, for an operator of several outputs (TOP_K: values, indices)."""
    module = OPERATORS[normalise(op)]
    dtype = str(np.dtype(dtype))
    if not hasattr(module, "output_dtype"):
        return dtype
    chosen = {name: params[name] for name in getattr(module, "TYPE_FIELDS", ()) if name in params}
    types = module.output_dtype(dtype, **chosen)
    return tuple(str(np.dtype(t)) for t in types) if isinstance(types, tuple) else str(np.dtype(types))


def reference(op: str, x, dtype: str, nan_rule: str = "d3d", **params) -> np.ndarray:
    """The unrounded result: float64 for float targets, exact integers for integer ones."""
    with np.errstate(all="ignore"):
        return bind(op, dtype, nan_rule=nan_rule, **params)(x)


def bind(op: str, dtype: str, nan_rule: str = "d3d", **params):
    """reference() with its operator and parameters resolved once: a function of x alone.

    The acceleration layer (conformance/judge/fast.py) calls it once per chunk; it
    runs the same operator function on the same values as reference().
    It does not set numpy's error state: callers that want silence wrap it in
    np.errstate(all="ignore"), as reference() does.
    """
    module = OPERATORS[normalise(op)]
    unknown = set(params) - set(module.DEFAULTS)
    if unknown:
        raise TypeError(f"{module.OPERATOR} has no parameter(s) {', '.join(sorted(unknown))}; "
                        f"it has {', '.join(module.DEFAULTS) or 'none'}")
    fields = {**module.DEFAULTS, **params}
    dtype = str(np.dtype(dtype))
    keep_type = getattr(module, "READS_BITS", False)
    broadcast = np.broadcast_arrays if not getattr(module, "OWN_SHAPES", False) else lambda *arrays: arrays

    def convert(x) -> np.ndarray:
        x = np.asarray(x)
        return x if x.dtype.kind in "iub" or keep_type else x.astype(np.float64)

    def bound(x) -> np.ndarray:
        if isinstance(x, tuple):
            return module.reference(tuple(broadcast(*map(convert, x))), dtype, nan_rule, **fields)
        return module.reference(convert(x), dtype, nan_rule, **fields)
    return bound


def evaluate(op: str, x, dtype: str, **params):
    """The expected output, in the operator's output type for an input of dtype; several outputs: a
    tuple of them, each in its own type and shape."""
    return round_outputs(reference(op, x, dtype, **params), output_dtype(op, dtype, **params))


def round_outputs(reference, types):
    """round_to for one output, or each of several outputs (a tuple) to its own type."""
    if isinstance(reference, tuple):
        if not isinstance(types, tuple):  # outputs of one type (SPLIT's OutputTensors), as many as there are
            types = (types,) * len(reference)
        return tuple(round_to(r, t) for r, t in zip(reference, types, strict=True))
    return round_to(reference, types)
