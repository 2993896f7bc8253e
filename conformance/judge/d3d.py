"""The d3d tolerance model: is each element what the Direct3D rules allow the formula to give?

An element passes when it lies in its acceptance interval (judge/intervals.py, from the
formula the operator's spec states in primitives) and breaks none of the explicit semantic
rules, which hold whatever an interval's width:
- sign: an operator whose spec says keeps_sign never gives a result of the opposite sign to
  the exact one (CELU of a negative input is never positive);
- range: an operator with an output_range never leaves it (CLIP stays within its bounds);
- NaN: NaN only where the formula's lowering can give NaN, a number only where it can give one;
- float16 denormals are preserved: no zero where the exact result is a float16 subnormal and
  the computation in float cannot give zero.
Where the lowering gives NaN or an infinity the exact value is not (pow(+-0, 0) = NaN through
exp2(0 * log2(0))), the device's value is accepted and counted as lowering-defined.
Integer types and operators without a formula in primitives are exact: a zero-width interval.
"""
from dataclasses import dataclass, fields

import numpy as np

from conformance import specs
from conformance.caseset.operands import take
from conformance.judge import intervals, per_element
from conformance.judge.models import DEFAULT_MODEL, MODELS  # noqa: F401  (importers of d3d find them here)
from oracle.rounding import float_param

WORST_SHOWN = 10


@dataclass
class ElementVerdicts:
    """Per element of the elements judged (flat arrays of one length)."""
    lo: np.ndarray
    hi: np.ndarray
    outside: np.ndarray  # not in the acceptance set
    semantic: np.ndarray  # the explicit rule broken: 0 none, else an index into RULES
    lowering: np.ndarray  # accepted NaN or infinity where the exact value is not that
    ratio: np.ndarray  # |actual - midpoint| / half-width (inf: outside a zero-width interval)
    num: np.ndarray  # the interval holds a number ([lo, hi] means something)

    @property
    def failed(self):
        return self.outside | (self.semantic != 0)

    def part(self, start: int, stop: int) -> "ElementVerdicts":
        """The verdicts of elements start..stop."""
        return ElementVerdicts(*(getattr(self, f.name)[start:stop] for f in fields(self)))


RULES = ("", "sign", "range", "float16 denormal flushed")


def _float32_params(params: dict) -> dict:
    return {name: float_param(value) if isinstance(value, (int, float)) and not isinstance(value, bool)
            else value for name, value in params.items()}


class IntervalJudge:
    """The d3d judgement for one operator, data type, parameter set and NaN rule."""

    def __init__(self, op: str, dtype: str, params: dict, nan_rule: str = "d3d"):
        spec = specs.get(op)
        output = np.dtype(spec.tensor_type("OutputTensor", dtype, params))
        # integer inputs, a float output (DEQUANTIZE_LINEAR): the formula is computed and judged in
        # the output's type; a float input is judged in its own type (IS_NAN's UINT8 included); an
        # accepted set (CAST) is in the output's type
        self.dtype = output if output.kind == "f" or spec.accepted else np.dtype(dtype)
        self.accepted = spec.accepted
        self.nan_rule = nan_rule
        plain = {k: v for k, v in params.items() if k != "ScaleBias"}
        self.formula = None
        self.names = (per_element.names(spec, params) if spec.per_element_fields else
                      tuple(i.short for i in spec.input_tensors(params)) if spec.several_inputs else None)
        # A type the precision rules of this model do not cover (float64: Direct3D's double-precision
        # rules are not modelled) gets the zero-width interval: only the exactly rounded value.
        if self.dtype.kind == "f" and spec.d3d is not None and self.dtype.name in intervals.COMPUTED_IN:
            self.formula = intervals.scale_bias(spec.d3d(_float32_params(plain)), params.get("ScaleBias"))
        self.keeps_sign = spec.keeps_sign
        self.range = spec.output_range(params, dtype) if spec.output_range else None

    @property
    def exact(self) -> bool:
        return self.formula is None and self.accepted is None

    def describe(self) -> str:
        if self.accepted is not None:
            return f"the set {self.accepted.__module__}.{self.accepted.__name__} accepts"
        return "exact (zero-width interval)" if self.exact else f"interval of {self.formula}"

    def bounds(self, x, expected):
        """(lo, hi, may be a number, may be NaN) of each element, as float64 (the exactly
        rounded value, always acceptable, may lie outside where the lowering gives NaN or an
        infinity instead: see lowering_points)."""
        if self.accepted is not None:
            return self.accepted(x, self.dtype.name)
        if self.exact:
            e = np.asarray(expected).astype(np.float64) if self.dtype.kind == "f" else np.asarray(expected)
            missing = np.isnan(e) if self.dtype.kind == "f" else np.zeros(e.shape, dtype=bool)
            return e, e, ~missing, missing
        v = intervals.interval(self.formula, x, self.dtype.name, self.nan_rule, names=self.names)
        return v.lo, v.hi, v.num, v.nan

    def elements(self, x, expected, actual, reference) -> ElementVerdicts:
        """The verdict on each element (flat arrays of x, expected, actual and the unrounded
        reference, of one length)."""
        x = x if isinstance(x, tuple) else np.asarray(x)
        expected, actual = np.asarray(expected), np.asarray(actual)
        lo, hi, num, may_nan = self.bounds(x, expected)
        if self.dtype.kind != "f":
            inside = (lo <= actual) & (actual <= hi) if self.accepted is not None else actual == expected
            ratio = np.where(inside, 0.0, np.inf)
            return ElementVerdicts(lo, hi, ~inside, np.zeros(actual.shape, dtype=np.int8),
                                   np.zeros(actual.shape, dtype=bool), ratio, num)
        a = actual.astype(np.float64)
        a_nan = np.isnan(a)
        e = expected.astype(np.float64)
        same = (a_nan & np.isnan(e)) | (a == e)  # the exactly rounded value is always acceptable
        inside = same | np.where(a_nan, may_nan, num & (lo <= a) & (a <= hi))
        lowering = inside & ~same & (a_nan | np.isinf(a))
        semantic = self._semantic(x, e, a, np.asarray(reference, dtype=np.float64))
        with np.errstate(invalid="ignore", over="ignore"):
            half = (hi - lo) / 2
            middle = lo + half
            ratio = np.where(half > 0, np.abs(a - middle) / np.where(half > 0, half, 1.0),
                             np.where(inside, 0.0, np.inf))
        ratio = np.where(a_nan | np.isinf(a) | ~np.isfinite(ratio), np.where(inside, 0.0, np.inf), ratio)
        return ElementVerdicts(lo, hi, ~inside, semantic, lowering, ratio, num)

    def _semantic(self, x, e, a, reference):
        broken = np.zeros(a.shape, dtype=np.int8)
        if self.keeps_sign:
            broken[((reference < 0) & (a > 0)) | ((reference > 0) & (a < 0))] = RULES.index("sign")
        if self.range is not None:
            low, high = (float(v) for v in self.range)
            broken[~np.isnan(e) & (np.isnan(a) | (a < low) | (a > high))] = RULES.index("range")
        broken[self.denormals_flushed(x, e, a)] = RULES.index("float16 denormal flushed")
        return broken

    def denormals_flushed(self, x, e, a) -> np.ndarray:
        """Where a float16 result is zero for an exact value that is a float16 subnormal, and the
        computation in float cannot give zero (float16 denormals are preserved)."""
        broken = np.zeros(np.shape(a), dtype=bool)
        if self.dtype == np.float16 and self.formula is not None:
            tiny = float(np.finfo(np.float16).smallest_normal)
            flushed = (e != 0) & (np.abs(e) < tiny) & (a == 0)
            if flushed.any():
                in_float = intervals.interval(self.formula, take(x, flushed), "float16", self.nan_rule,
                                              formats=(intervals.FLOAT32,), names=self.names)
                zero_allowed = in_float.num & (in_float.lo <= 0) & (in_float.hi >= 0)
                broken[np.flatnonzero(flushed)[~zero_allowed]] = True
        return broken


def lowering_points(lo, hi, num, may_nan):
    """Elements where the formula's lowering can only give NaN or one infinity."""
    return (num & (lo == hi) & np.isinf(lo) & ~may_nan) | (~num & may_nan)


def worked_examples(op: str, dtype: str, params: dict, inputs) -> list:
    """[(x, expected, lo, hi)] for `conformance specs OP`."""
    import oracle
    judge = IntervalJudge(op, dtype, params)
    x = np.asarray(inputs, dtype=dtype)
    if judge.names:  # several inputs: each pairs with the list turned by one place per input
        x = tuple(np.roll(x, -k) for k in range(len(judge.names)))
    spec = specs.get(op)
    if spec.per_element_fields:  # each example its own channel, a field's values cycled over them
        x = x[:len(x) - len(spec.per_element_fields)] + tuple(
            np.resize(np.asarray(params[f.name], dtype=np.float32), x[0].size) for f in spec.per_element_fields)
        expected = per_element.evaluate_flat(op, dtype, spec.ranks[0], params, x).astype(dtype)
    else:
        expected = oracle.evaluate(op, x, dtype, **specs.base.computed_fields(params))
    lo, hi, num, may_nan = judge.bounds(x, expected)
    return [(take(x, i), expected[i], lo[i] if num[i] else None, hi[i] if num[i] else None, bool(may_nan[i]))
            for i in range(expected.size)]


def explain(spec, dtype: str = "float32") -> list:
    """Lines for `conformance specs OP`: the formula in primitives, the accuracy of the primitives
    it uses, and worked intervals at the page's default parameters."""
    from conformance.specs.primitives import primitives_used
    defaults = {p.name: p.default for p in spec.parameters}
    if spec.accepted is not None:
        return [f"  d3d: the set each element may be, by {spec.accepted.__module__} (its docstring states the rules)"]
    indexed = [o.name for o in spec.outputs if o.allowed is not None]
    if indexed and all(o.indicator_axes is not None for o in spec.outputs if o.allowed is not None):
        return [f"  d3d: {', '.join(indexed)}: 0 everywhere but one 1 per slice, at a position the page allows "
                "there (conformance/judge/indices.py; the notes say where the page is silent)"]
    if indexed:
        return [f"  d3d: {', '.join(indexed)}: each element one of the indices the page allows there "
                "(conformance/judge/indices.py; the notes say where the page is silent)"]
    bounded = [o for o in spec.outputs if o.bounds is not None]
    if spec.d3d is None and bounded:  # computed outputs within bounds of their own (conformance/judge/bounded.py)
        return [f"  d3d: {o.name} within bounds: {' '.join((o.bounds.__doc__ or '').split())}" for o in bounded]
    if spec.d3d is None:
        return ["  d3d: exact (zero-width intervals: the device must give the exactly rounded value)"]
    formula = spec.d3d(_float32_params({k: v for k, v in defaults.items() if k != "ScaleBias"}))
    used = primitives_used(formula)
    lines = [f"  d3d formula in primitives (defaults {defaults}): {formula}"]
    lines.append("  accuracy of each primitive (Direct3D 11.3 functional spec, sections 3.1 and 22.10):")
    lines += [f"    {names}: {accuracy}" for names, accuracy in intervals.ACCURACY]
    for name in sorted(used - {op for names, _ in intervals.ACCURACY for op in names.replace(",", " ").split()}):
        declared = _declared(formula, name)
        if declared is not None:
            lines.append(f"    {name}: declared, {declared.ulp} ULP / {declared.abs_error} abs / "
                         f"{declared.rel_error} rel ({declared.source})")
    inputs = [-1e-45, -1e-3, -1.0, 0.0, 0.5, 2.0, 10.0]
    if dtype in spec.dtypes:
        # a per-element field the page gives no default (VALUE_SCALE_2D's Bias): an example value, said
        example = {f.name: [0.5] for f in spec.per_element_fields if defaults.get(f.name) is None}
        lines.append(f"  worked intervals ({dtype}{''.join(f', {k}={v}' for k, v in example.items())}):")
        for x, e, lo, hi, may_nan in worked_examples(spec.name, dtype, {**defaults, **example}, inputs):
            where = "NaN only" if lo is None else f"[{float(lo)!r}, {float(hi)!r}]" + (" or NaN" if may_nan else "")
            shown = ", ".join(repr(float(v)) for v in x) if isinstance(x, tuple) else repr(float(x))
            lines.append(f"    x = {shown}: exact {float(e)!r}, accepted {where}")
    return lines


def _declared(node, name):
    if node.op == "declared" and node.info.name == name:
        return node.info
    for arg in node.args:
        found = _declared(arg, name) if hasattr(arg, "op") else None
        if found is not None:
            return found
    return None
