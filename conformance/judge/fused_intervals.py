"""judge/intervals.py's float32 evaluation of one formula fused into compiled loops (numba).

fast_intervals_jit compiles each primitive as a pass over arrays, and a Python tree walk strings
the passes together: every node allocates arrays, and the walk holds the GIL between passes. Here
the formula is cut into a few steps instead: each run of arithmetic (add, sub, neg, mul, rcp, abs,
min, max, select and its conditions, floor, ceil, trunc, round_ne, stored) becomes one generated loop
that keeps every intermediate value in registers, element by element; the primitives that call a
library function on whole arrays (exp2, log2, rsqrt, sqrt, a declared function) stay array
steps, done by fast_intervals_jit.Evaluator between the loops, on the values the loop before
materialised. Each generated step is the same float64 operations in the same order as the numpy
Evaluator (the one-element helpers below and fast_intervals_jit's add1, mul1, rcp1, min_max1), so the
bounds are the same bits (tests/test_speed_equivalence.py holds them to intervals.interval).

A subtree without x is evaluated once, by intervals.Evaluator itself, and passed in as a constant.
The generated source depends only on the formula's shape (constants are arguments), is written
under NUMBA_CACHE_DIR or this package's __pycache__ (else the user's cache folder; else it is compiled
from memory, uncached) and compiled once per shape (numba caches it).
"""
import functools
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import types

import numpy as np

from conformance.judge import fast_intervals_jit as fij
from conformance.judge import intervals
from conformance.judge.fast_kernels import FLOAT_LAYOUT, as_float
from conformance.judge.intervals import FLOAT16, FLOAT32, Values
from conformance.judge.jit import numba
from conformance.specs.primitives import Cond

FUSED = ("add", "sub", "neg", "mul", "rcp", "abs", "min", "max", "select", "floor", "ceil", "trunc", "round_ne",
         "stored")
BLOCK = 1 << 16  # elements a step handles at a time: its arrays stay in the core's caches
_ROUNDING = {"floor": "np.floor", "ceil": "np.ceil", "trunc": "np.trunc", "round_ne": "np.rint"}


# -- one element, in the numpy Evaluator's operations ------------------------------------------------
@numba.njit(error_model="numpy")
def flushed(lo, hi, num, nan):
    """Evaluator._flush (FLOAT32)."""
    return fij.flush_lo(lo, hi, num), fij.flush_hi(lo, hi, num), num, nan


@numba.njit(error_model="numpy")
def point(v):
    """Values.points of one input element, flushed (Evaluator.evaluate of the leaf x)."""
    missing = v != v
    clean = 0.0 if missing else v
    return flushed(clean, clean, not missing, missing)


@numba.njit(error_model="numpy")
def flushed16(lo, hi, num, nan):
    """Evaluator._flush (FLOAT16: nothing to flush)."""
    return lo, hi, num, nan


@numba.njit(error_model="numpy")
def point16(v):
    """Values.points of one input element (FLOAT16: not flushed)."""
    missing = v != v
    clean = 0.0 if missing else v
    return clean, clean, not missing, missing


@numba.njit(error_model="numpy")
def stored16(lo, hi, num, nan):
    """Evaluator._stored computing in float32 for a float16 tensor: either float16 neighbour."""
    lo, hi = fij.outward16(lo, hi)
    return lo, hi, num, nan


@numba.njit(nogil=True, cache=True, error_model="numpy")
def stored_union(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan):
    """intervals.interval's union of a float16 tensor's two formats, in place in a: a (computed in
    float32) stored to float16 outward, with b (computed in float16)."""
    for i in range(a_lo.shape[0]):
        lo, hi = fij.outward16(a_lo[i], a_hi[i])
        a_lo[i], a_hi[i], a_num[i], a_nan[i] = union1(lo, hi, a_num[i], a_nan[i], b_lo[i], b_hi[i], b_num[i], b_nan[i])


@numba.njit(error_model="numpy")
def neg1(lo, hi, num, nan):
    return -hi, -lo, num, nan


@numba.njit(error_model="numpy")
def abs1(lo, hi, num, nan):
    low = lo if lo >= 0 else (-hi if hi <= 0 else 0.0)
    return low, fij.maximum(np.abs(lo), np.abs(hi)), num, nan


@numba.njit(error_model="numpy")
def union1(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan):
    """Values.union."""
    lo = (fij.minimum(a_lo, b_lo) if b_num else a_lo) if a_num else b_lo
    hi = (fij.maximum(a_hi, b_hi) if b_num else a_hi) if a_num else b_hi
    return lo, hi, a_num | b_num, a_nan | b_nan


@numba.njit(error_model="numpy")
def select1(may_true, may_false, a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan):
    """Evaluator._select: both branches where the condition may go either way."""
    if may_true & may_false:
        return union1(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan)
    if may_true:
        return a_lo, a_hi, a_num, a_nan
    return b_lo, b_hi, b_num, b_nan


@numba.njit(error_model="numpy")
def order1(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan, strict):
    """Evaluator._condition's lt (strict) or le of flushed operands: (may be true, may be false)."""
    both = a_num & b_num
    unordered = a_nan | b_nan | (not both)
    if strict:
        return both & (a_lo < b_hi), unordered | (a_hi >= b_lo)
    return both & (a_lo <= b_hi), unordered | (a_hi > b_lo)


@numba.njit(error_model="numpy")
def equal1(a_lo, a_hi, a_num, a_nan, b_lo, b_hi, b_num, b_nan):
    """Evaluator._condition's eq: (may be equal, may differ)."""
    both = a_num & b_num
    unordered = a_nan | b_nan | (not both)
    overlap = both & (a_lo <= b_hi) & (b_lo <= a_hi)
    return overlap, unordered | (not ((a_lo == a_hi) & (b_lo == b_hi) & (a_lo == b_lo)))


@numba.njit(error_model="numpy")
def is_inf1(lo, hi, num, nan):
    infinite = (hi == np.inf) | (lo == -np.inf)
    return num & infinite, nan | (num & (not ((lo == hi) & infinite)))


# -- code generation ---------------------------------------------------------------------------------
def _uses_x(node) -> bool:
    return node.op == "x" or any(_uses_x(arg) for arg in node.args)


class _Kernel:
    """The source of one fused step: its leaves (array steps' results), constants and lines."""

    def __init__(self, nan_rule, half=False, narrow=False, inputs=(None,)):
        """half: computing in FLOAT16; narrow: in float32 for a float16 tensor (stored values are
        rounded to float16); inputs: the names of the inputs x0, x1, ... (None: the only one)."""
        self.d3d, self.half, self.narrow, self.inputs = nan_rule == "d3d", half, narrow, tuple(inputs)
        self.lines, self.leaves, self.constants, self.names = [], [], [], {}

    def value(self, node) -> str:
        """The name of a node's four scalars (lo, hi, num, nan are name_lo ...)."""
        if id(node) in self.names:
            return self.names[id(node)]
        name = f"v{len(self.names)}"
        self.names[id(node)] = name
        self.lines.append(f"{_four(name)} = {self._expression(node)}")
        return name

    def _expression(self, node) -> str:
        if node.op == "x":
            k = self.inputs.index(node.info) if node.info in self.inputs else 0
            column = "x" if len(self.inputs) == 1 else f"x{k}"
            return f"{'point16' if self.half else 'point'}(np.float64({column}[i]))"
        if not _uses_x(node):
            self.constants.append(node)
            j = len(self.constants) - 1
            return f"c[{j}, 0], c[{j}, 1], c[{j}, 2] != 0.0, c[{j}, 3] != 0.0"
        if node.op not in FUSED:
            self.leaves.append(node)
            j = len(self.leaves) - 1
            return f"s{j}_lo[i], s{j}_hi[i], s{j}_num[i], s{j}_nan[i]"
        args = [self.value(a) for a in node.args if not _is_condition(a)]
        if node.op == "select":
            may_true, may_false = self._condition(node.args[0])
            return f"select1({may_true}, {may_false}, {_four(args[0])}, {_four(args[1])})"
        if node.op == "stored":  # kept, unless computed in float32 for a float16 tensor
            return f"stored16({_four(args[0])})" if self.narrow else _four(args[0])
        if node.op in _ROUNDING:
            f = _ROUNDING[node.op]
            return f"{f}({args[0]}_lo), {f}({args[0]}_hi), {args[0]}_num, {args[0]}_nan"
        if node.op == "rcp":
            error = FLOAT16.transcendental if self.half else FLOAT32.transcendental
            return f"fij.rcp1({_four(args[0])}, {error!r}{self._half()})"
        if node.op in ("neg", "abs"):
            return f"{node.op}1({_four(args[0])})"
        if node.op == "sub":
            negated = f"n{len(self.lines)}"
            self.lines.append(f"{_four(negated)} = neg1({_four(args[1])})")
            return f"fij.add1({_four(args[0])}, {_four(negated)}{self._half()})"
        if node.op in ("min", "max"):
            return f"fij.min_max1({_four(args[0])}, {_four(args[1])}, {node.op == 'max'}, {self.d3d}{self._half()})"
        return f"fij.{node.op}1({_four(args[0])}, {_four(args[1])}{self._half()})"

    def _half(self) -> str:
        """The helpers' last argument in FLOAT16 (float32's sources stay as they were: their caches too)."""
        return ", True" if self.half else ""

    def _condition(self, cond):
        """Evaluator._condition: each operand flushed, then the names of (may be true, may be false)."""
        names = []
        for arg in cond.args:
            name = f"f{len(self.lines)}"
            self.lines.append(f"{_four(name)} = {'flushed16' if self.half else 'flushed'}({_four(self.value(arg))})")
            names.append(name)
        if cond.op == "is_nan":
            return f"{names[0]}_nan", f"{names[0]}_num"
        a = _four(names[0])
        if cond.op == "is_inf":
            call = f"is_inf1({a})"
        elif cond.op in ("lt", "le", "gt", "ge"):
            first, second = (a, _four(names[1])) if cond.op in ("lt", "le") else (_four(names[1]), a)
            call = f"order1({first}, {second}, {cond.op in ('lt', 'gt')})"
        else:
            call = f"equal1({a}, {_four(names[1])})"
        m = f"m{len(self.lines)}"
        self.lines.append(f"{m}_0, {m}_1 = {call}")
        return (f"{m}_1", f"{m}_0") if cond.op == "ne" else (f"{m}_0", f"{m}_1")

    def source(self, root) -> str:
        result = self.value(root)
        leaves = "".join(f"s{j}_lo, s{j}_hi, s{j}_num, s{j}_nan, " for j in range(len(self.leaves)))
        body = "\n".join(f"        {line}" for line in self.lines)
        inputs = "x, " if len(self.inputs) == 1 else "".join(f"x{k}, " for k in range(len(self.inputs)))
        header = _HEADER16 if self.half or self.narrow else ""
        return (f"{header}@numba.njit(nogil=True, cache=True, error_model='numpy')\n"
                f"def kernel({inputs}{leaves}c, out_lo, out_hi, out_num, out_nan):\n"
                f"    for i in range(out_lo.shape[0]):\n{body}\n"
                f"        out_lo[i], out_hi[i], out_num[i], out_nan[i] = {_four(result)}\n")


def _is_condition(node) -> bool:
    return isinstance(node, Cond)


def _four(name) -> str:
    return f"{name}_lo, {name}_hi, {name}_num, {name}_nan"


def _helpers_digest() -> str:
    """The helpers' sources, named in every generated source: numba's cache checks a cached loop
    against its own file only, so a loop built with other helpers (an upgrade, an edit) is not reused."""
    digest = hashlib.sha256()
    for path in (fij.__file__, __file__):
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16]


_HEADER = (f"# helpers {_helpers_digest()}\n"
           "import numpy as np\n\nfrom conformance.judge import fast_intervals_jit as fij\n"
           "from conformance.judge.fused_intervals import (abs1, equal1, flushed, is_inf1, neg1, order1, point,\n"
           "                                               select1)\nfrom conformance.judge.jit import numba\n\n\n")
_HEADER16 = "from conformance.judge.fused_intervals import flushed16, point16, stored16\n\n\n"
_COMPILED = {}
PACKAGE_CACHE = os.path.join(os.path.dirname(__file__), "__pycache__")
_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def source_directory() -> str | None:
    """Where generated sources go, found once a process: under NUMBA_CACHE_DIR (or this package's
    __pycache__), else under the user's cache folder (a read-only installation, as numba itself
    does); None where neither can be written: the kernels are then compiled from memory, uncached,
    and nothing is put on disk that a killed process would leave behind."""
    user = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                        "dml-conformance")
    for base in (os.environ.get("NUMBA_CACHE_DIR") or PACKAGE_CACHE, user):
        path = os.path.join(base, "fused_intervals")
        try:
            os.makedirs(path, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path, delete=True):
                return path
        except OSError:
            continue
    return None


def _compile(source: str):
    """The kernel of a generated source, written (if not there with that text) and imported."""
    with _LOCK:
        if source in _COMPILED:
            return _COMPILED[source]
        text = _HEADER + source
        digest = hashlib.sha256(text.encode()).hexdigest()[:20]
        name = f"conformance_fused_{digest}"
        directory = source_directory()
        if directory is None:
            module = types.ModuleType(name)
            exec(compile(text.replace("cache=True", "cache=False"), f"<fused {digest}>", "exec"), vars(module))
            _COMPILED[source] = module.kernel
            return module.kernel
        path = os.path.join(directory, f"fused_{digest}.py")
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            temporary = f"{path}.{os.getpid()}.tmp"
            with open(temporary, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(temporary, path)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # numba's cache finds the kernel's globals by module name
        spec.loader.exec_module(module)
        _COMPILED[source] = module.kernel
        return module.kernel


class Plan:
    """A formula's steps in one computing format: generated loops and array primitives, in the order
    they run. fmt: FLOAT32 or FLOAT16; tensor: the case's float type; inputs: the inputs' names in
    order ((None,): one input)."""

    def __init__(self, formula, nan_rule: str = "d3d", fmt=FLOAT32, tensor=np.float32, inputs=(None,)):
        self.nan_rule, self.fmt, self.tensor, self.inputs = nan_rule, fmt, np.dtype(tensor), tuple(inputs)
        # the array steps (exp2, log2, ...): compiled in float32, numpy's in float16
        self.arrays = fij.Evaluator(nan_rule) if fmt == FLOAT32 else intervals.Evaluator(fmt, nan_rule, self.tensor)
        self.steps = []  # (kernel, leaf step indices, constants) or (node, argument step indices)
        self._add(formula)

    def _add(self, node) -> int:
        """Append the steps computing node; -> its step's index."""
        if node.op not in FUSED and node.op != "x" and _uses_x(node):
            arguments = [self._add(a) for a in node.args]
            self.steps.append((node, arguments))
            return len(self.steps) - 1
        kernel = _Kernel(self.nan_rule, half=self.fmt == FLOAT16,
                         narrow=self.tensor.itemsize < self.fmt.dtype.itemsize, inputs=self.inputs)
        source = kernel.source(node)
        leaves = [self._add_array(leaf) for leaf in kernel.leaves]
        constants = np.array([self._constant(c) for c in kernel.constants], dtype=np.float64).reshape(-1, 4)
        self.steps.append((_compile(source), leaves, constants))
        return len(self.steps) - 1

    def _add_array(self, node) -> int:
        arguments = [self._add(a) for a in node.args]
        self.steps.append((node, arguments))
        return len(self.steps) - 1

    def _constant(self, node):
        v = intervals.Evaluator(self.fmt, self.nan_rule, self.tensor).evaluate(node, Values.points(np.zeros(1)))
        return [v.lo[0], v.hi[0], float(v.num[0]), float(v.nan[0])]

    def evaluate(self, x) -> Values:
        """The interval of each element of x: a tuple of flat float32 or float64 arrays (exact values
        of the tensor type), one per input, at most a block's worth."""
        results = []
        for step in self.steps:
            if callable(step[0]):
                kernel, leaves, constants = step
                n = x[0].shape[0]
                out = Values(np.empty(n), np.empty(n), np.empty(n, bool), np.empty(n, bool))
                fields = [f for j in leaves for f in _fields(results[j])]
                kernel(*x, *fields, constants, out.lo, out.hi, out.num, out.nan)
            else:
                node, arguments = step
                args = [results[j] for j in arguments]
                out = self.arrays.apply(node, args)
            results.append(out)
        return results[-1]


def _fields(v):
    return (np.ascontiguousarray(v.lo, np.float64), np.ascontiguousarray(v.hi, np.float64),
            np.ascontiguousarray(v.num, bool), np.ascontiguousarray(v.nan, bool))


_PLANS = {}


def plan(formula, nan_rule: str, fmt=FLOAT32, tensor=np.float32, inputs=(None,)) -> Plan:
    key = (id(formula), nan_rule, fmt.name, np.dtype(tensor).name, tuple(inputs))
    with _LOCK:
        found = _PLANS.get(key)
    if found is not None and found[0] is formula:
        return found[1]
    made = Plan(formula, nan_rule, fmt, tensor, inputs)
    with _LOCK:
        if len(_PLANS) > 64:
            _PLANS.clear()
        _PLANS[key] = (formula, made)  # the formula is held, so its id is not reused meanwhile
    return made


def compiles(judge) -> bool:
    """Whether bounds() evaluates this judge's intervals in compiled loops (a float32 or float16
    formula), rather than through judge.bounds."""
    return judge.formula is not None and judge.dtype in FLOAT_LAYOUT


def bounds(judge, x, expected):
    """judge.bounds(x, expected) for flat x (a tuple of flat arrays for several inputs), in
    blocks: each format the tensor type may be computed in (intervals.COMPUTED_IN), and for
    float16 the float32 one stored outward, then the union, as intervals.interval does."""
    if not compiles(judge):
        return judge.bounds(x, expected)
    tensor = judge.dtype
    columns = tuple(as_float(np.ascontiguousarray(np.asarray(v).reshape(-1), dtype=tensor))
                    for v in (x if isinstance(x, tuple) else (x,)))
    inputs = judge.names or (None,)
    plans = [plan(judge.formula, judge.nan_rule, fmt, tensor, inputs) for fmt in intervals.COMPUTED_IN[tensor.name]]
    n = columns[0].size
    lo, hi, num, nan = np.empty(n), np.empty(n), np.empty(n, bool), np.empty(n, bool)
    for start in range(0, n, BLOCK):
        block = tuple(c[start:start + BLOCK] for c in columns)
        v = plans[0].evaluate(block)
        if len(plans) > 1:  # float16: computed in float32 and stored, or computed in float16
            v = Values(*_fields(v))
            stored_union(v.lo, v.hi, v.num, v.nan, *_fields(plans[1].evaluate(block)))
        end = start + v.lo.shape[0]
        lo[start:end], hi[start:end], num[start:end], nan[start:end] = v.lo, v.hi, v.num, v.nan
    return lo, hi, num, nan
