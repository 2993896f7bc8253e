"""An operator's formula as DirectML's shaders compute it, in Direct3D primitives.

A spec states its formula once, with these symbols; conformance/judge/intervals.py
turns it into an acceptance interval per element (the d3d tolerance model):

    d3d = lambda p: maximum(0.0, X) + minimum(0.0, p["Alpha"] * (exp(X / p["Alpha"]) - 1.0))

- X is the input element, exact (after ScaleBias, which the evaluator applies as a mad); an operator
  of several inputs names each by its page's name without "Tensor": A, B (input_("Condition")).
- + - * are the correctly rounded float32 operations; a / b is a * rcp(b); unary - is exact.
- Python numbers are float32 constants, as a FLOAT field of a DirectML description is.
- exp, log and pow_ are HLSL's lowerings (DirectXShaderCompiler, HLOperationLower.cpp):
  exp(x) = exp2(log2(e) * x), log(x) = log2(x) * ln(2), pow(x, y) = exp2(y * log2(x)).
- minimum and maximum are Direct3D's (a NaN operand yields the other one).
- UNDEFINED is any value, NaN included: where the page leaves the result undefined (select it there).
- declared(...) is a function that is not a composition of Direct3D primitives, with the
  accuracy it is granted stated once, with its source.
This module is symbols only: no numbers are computed here.
"""
import math
from dataclasses import dataclass

import numpy as np

# Accuracy tables that declared() functions cite (where Direct3D states no figure).
WGSL_ACCURACY = ("WGSL, 'Accuracy of concrete floating point built-in functions' (gpuweb/gpuweb, wgsl/index.bs "
                 "#concrete-float-accuracy)")
OPENCL_ACCURACY = "OpenCL C 3.0, 'Relative Error as ULPs' (full profile; single and half precision tables)"


@dataclass(frozen=True, eq=False)
class Expr:
    op: str
    args: tuple = ()
    value: float | None = None  # a constant's float32 value
    info: object = None  # a declared function's Declared; a rounded constant's exact value

    def __add__(self, other):
        return Expr("add", (self, lift(other)))

    def __radd__(self, other):
        return Expr("add", (lift(other), self))

    def __sub__(self, other):
        return Expr("sub", (self, lift(other)))

    def __rsub__(self, other):
        return Expr("sub", (lift(other), self))

    def __mul__(self, other):
        return Expr("mul", (self, lift(other)))

    def __rmul__(self, other):
        return Expr("mul", (lift(other), self))

    def __truediv__(self, other):
        return Expr("mul", (self, rcp(other)))

    def __rtruediv__(self, other):
        return Expr("mul", (lift(other), rcp(self)))

    def __neg__(self):
        return Expr("neg", (self,))

    def __lt__(self, other):
        return Cond("lt", (self, lift(other)))

    def __le__(self, other):
        return Cond("le", (self, lift(other)))

    def __gt__(self, other):
        return Cond("gt", (self, lift(other)))

    def __ge__(self, other):
        return Cond("ge", (self, lift(other)))

    def __str__(self):
        return render(self)


@dataclass(frozen=True, eq=False)
class Cond:
    """A comparison (Direct3D: false when an operand is NaN) or a NaN / infinity test."""
    op: str  # lt le gt ge eq ne is_nan is_inf
    args: tuple

    def __str__(self):
        return render(self)


@dataclass(frozen=True)
class Declared:
    """A primitive whose accuracy is declared rather than composed: the interval is
    reference(arg) widened by ulp (of the result's type), abs_error or rel_error. Each is one
    number or {"float32": a, "float16": b}, the figure for each format the shader computes in.
    A function of several arguments (atan2(y, x)) takes them in order: reference(*args), its
    interval the corners' where every argument is one value, else bounds (monotone is for one)."""
    name: str
    reference: object  # numpy float64 function
    source: str
    ulp: float | dict = 0.0
    abs_error: float | dict = 0.0
    rel_error: float | dict = 0.0
    monotone: str | None = None  # "increasing", "decreasing", or None (then bounds apply)
    bounds: tuple = (-math.inf, math.inf)  # the function's range, for a non-monotone function


def lift(value) -> Expr:
    if isinstance(value, Expr):
        return value
    return Expr("const", value=float(np.float32(value)))


def const(value) -> Expr:
    return lift(value)


X = Expr("x")  # the input element (of an operator of several inputs: its first input)


def input_(name: str) -> Expr:
    """An input element of an operator of several inputs, by its page's name without "Tensor"."""
    return Expr("x", info=name)


A = input_("A")
B = input_("B")
NAN = Expr("const", value=math.nan)
INF = Expr("const", value=math.inf)
UNDEFINED = Expr("undefined")  # a result the page leaves undefined: any value, NaN included


def _unary(op):
    def build(a):
        return Expr(op, (lift(a),))
    build.__name__ = op
    return build


exp2 = _unary("exp2")
log2 = _unary("log2")
rcp = _unary("rcp")
rsqrt = _unary("rsqrt")
sqrt = _unary("sqrt")
abs_ = _unary("abs")
neg = _unary("neg")
floor = _unary("floor")
ceil = _unary("ceil")
round_ne = _unary("round_ne")
trunc = _unary("trunc")
# A value as a tensor of the case's type holds it between two layers (ADD1's sum, the unfused ADD's
# output): a float16 tensor's value rounded to half either way, or kept in float as a fused operator may.
stored = _unary("stored")


def minimum(a, b) -> Expr:
    return Expr("min", (lift(a), lift(b)))


def maximum(a, b) -> Expr:
    return Expr("max", (lift(a), lift(b)))


def select(condition: Cond, a, b) -> Expr:
    return Expr("select", (condition, lift(a), lift(b)))


def eq(a, b) -> Cond:
    return Cond("eq", (lift(a), lift(b)))


def ne(a, b) -> Cond:
    return Cond("ne", (lift(a), lift(b)))


def is_nan(a) -> Cond:
    return Cond("is_nan", (lift(a),))


def is_inf(a) -> Cond:
    return Cond("is_inf", (lift(a),))


def rounded_constant(exact: float) -> Expr:
    """A mathematical constant the shader holds rounded to float32: the lowering uses the rounded
    value, the exact result the exact one, and the acceptance set must hold both (exp2(x * log2(e))
    with log2(e) rounded is 20 ULP from exp(x) at x = 88)."""
    return Expr("const", value=float(np.float32(exact)), info=float(exact))


def exp(a) -> Expr:
    return exp2(rounded_constant(math.log2(math.e)) * lift(a))


def log(a) -> Expr:
    return log2(a) * rounded_constant(math.log(2.0))


def pow_(a, b) -> Expr:
    return exp2(lift(b) * log2(a))


def declared(name: str, arg, reference, source: str, ulp: float = 0.0, abs_error: float = 0.0,
             rel_error: float = 0.0, monotone: str | None = None, bounds=(-math.inf, math.inf)) -> Expr:
    """arg: one expression, or a tuple of them for a function of several arguments."""
    args = tuple(lift(a) for a in arg) if isinstance(arg, tuple) else (lift(arg),)
    if len(args) > 1 and monotone is not None:
        raise ValueError(f"declared {name}: monotone applies to a function of one argument")
    return Expr("declared", args, info=Declared(name, reference, source, ulp, abs_error, rel_error,
                                                         monotone, tuple(bounds)))


def substitute(node, replacement, first: str | None = None, every: bool = False):
    """node with the input element X (and the input named first, X's other name; every: each input
    element, of every input) replaced by replacement, or by replacement(leaf) where it is a function."""
    if isinstance(node, Cond):
        return Cond(node.op, tuple(substitute(a, replacement, first, every) for a in node.args))
    if node.op == "x" and (every or node.info in (None, first)):
        return replacement(node) if callable(replacement) and not isinstance(replacement, Expr) else replacement
    if not node.args:
        return node
    return Expr(node.op, tuple(substitute(a, replacement, first, every) for a in node.args), node.value,
                node.info)


_INFIX = {"add": "+", "sub": "-", "mul": "*", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==",
          "ne": "!="}


def render(node) -> str:
    """The formula in primitives, as text (conformance specs OP prints it)."""
    if isinstance(node, Cond) or node.op in _INFIX:
        if node.op in _INFIX:
            return f"({render(node.args[0])} {_INFIX[node.op]} {render(node.args[1])})"
        return f"{node.op}({render(node.args[0])})"
    if node.op == "x":
        return "x" if node.info is None else node.info.lower()
    if node.op == "const":
        return f"{node.value:.9g}"
    if node.op == "declared":
        return f"{node.info.name}({', '.join(render(a) for a in node.args)})"
    return f"{node.op}({', '.join(render(a) for a in node.args)})"


def primitives_used(node, seen=None) -> set:
    """The primitive names a formula uses (the accuracy table lists only those)."""
    seen = set() if seen is None else seen
    if isinstance(node, Expr) and node.op not in ("x", "const"):
        seen.add(node.info.name if node.op == "declared" else node.op)
    for arg in node.args:
        primitives_used(arg, seen)
    return seen
