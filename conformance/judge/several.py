"""The judge of an operator of several outputs (TOP_K: values and indices): each output judged by
its kind, then one Comparison for the case whose worst elements name their output, with each
output's own figures in `outputs`. An index output (Output.allowed) by the set of indices the page
allows (indices.py); a value output selected by an index output (Output.indices_from) against the
values the device's indices select where those are allowed, else the oracle's, exactly (moved.py)."""
import numpy as np

from conformance.judge.bounded import compare_bounded
from conformance.judge.compare import Comparison, empty_interval_summary
from conformance.judge.indices import allowed_for, compare_indices, within
from conformance.judge.moved import compare_moved


def compare_outputs(spec, x, expected: tuple, actual, params: dict, flush_allowed: bool = False,
                    accumulated: dict | None = None) -> Comparison:
    """expected: the oracle's outputs, a tuple in the page's order; actual: the device's; flush_allowed:
    an index output may also be what the page allows on the inputs with float32 subnormals flushed;
    accumulated: an accumulation's {dtype, reference (the oracle's unrounded outputs), ulp (tolerance)}."""
    outputs = spec.outputs_for(params)  # an optional output the case leaves absent is none of them
    if not isinstance(actual, (tuple, list)) or len(actual) != len(outputs):
        given = len(actual) if isinstance(actual, (tuple, list)) else 1
        size = sum(np.asarray(e).size for e in expected)
        return Comparison(size, mismatches=size, problem=f"{given} output(s), expected {len(outputs)} "
                                                         f"({', '.join(o.name for o in outputs)})")
    named = {o.name: k for k, o in enumerate(outputs)}
    parts = [None] * len(outputs)
    # an output computed from others (Output.derived_from) after them, judged on what they passed
    for k in sorted(range(len(outputs)), key=lambda k: len(outputs[k].derived_from)):
        parts[k] = _judge(spec, x, expected, actual, params, outputs, named, parts, k, flush_allowed, accumulated)
    return merge(outputs, parts)


def _judge(spec, x, expected, actual, params, outputs, named, parts, k, flush_allowed, accumulated) -> Comparison:
    """Output k by its kind; parts: the Comparisons of the outputs judged before it."""
    inputs = x if isinstance(x, tuple) else (x,)
    output = outputs[k]
    want, got = np.asarray(expected[k]), np.asarray(actual[k])
    if output.undefined is not None and got.shape == want.shape and got.dtype == want.dtype:
        got = np.where(output.undefined(inputs, params), want, got)  # the page leaves these open: any value
    if output.allowed is not None:
        return compare_indices(want, got, allowed_for(output.allowed, inputs, params, flush_allowed),
                               data=inputs[0] if output.slice_of_input else None)
    if output.indices_from is not None:
        j = named[output.indices_from]
        chosen = np.asarray(actual[j])
        if chosen.shape == np.shape(expected[j]):
            ok = within(chosen, allowed_for(outputs[j].allowed, inputs, params, flush_allowed))
            picked = np.where(ok, chosen, expected[j])
            want = np.asarray(output.gather(inputs, picked, params)).astype(want.dtype)
    if accumulated is not None:  # an accumulation's value output: its sound interval (accumulated.py)
        from conformance.judge.accumulated import compare_accumulated
        return compare_accumulated(spec, inputs, accumulated["params"], accumulated["dtype"], want,
                                   accumulated["reference"][k],
                                   got, accumulated["ulp"], output=k)
    if spec.source_index is None:  # computed, not copied (bounded.py)
        if output.derived is not None and all(parts[named[n]].passed for n in output.derived_from):
            given = {n: np.asarray(actual[named[n]]) for n in output.derived_from}
            want = np.asarray(output.derived(inputs, given, params)).astype(want.dtype)
        return compare_bounded(inputs[0], want, got, *(output.bounds(inputs, params) if output.bounds else ()))
    # each of a tensor array copies from its own place: source_index takes which it is
    return compare_moved(spec, x, want, got, params, output=k if spec.output_arrays else None)


def merge(outputs, parts) -> Comparison:
    """One Comparison of the outputs' own (each worst element and problem naming its output)."""
    problems = [f"{o.short}: {p.problem}" for o, p in zip(outputs, parts) if p.problem]
    floats = [p.max_fractional_ulp for p in parts if p.max_fractional_ulp is not None]
    result = Comparison(elements=sum(p.elements for p in parts), mismatches=sum(p.mismatches for p in parts),
                        nan_mismatches=sum(p.nan_mismatches for p in parts), max_ulp=max(p.max_ulp for p in parts),
                        max_fractional_ulp=max(floats) if floats else None, problem="; ".join(problems) or None)
    result.worst = [{"output": o.short, **item} for o, p in zip(outputs, parts) for item in p.worst]
    counts = {}
    for p in parts:
        for low, high, count in (p.histogram or {}).get("bins", []):
            counts[low, high] = counts.get((low, high), 0) + count
    result.histogram = {"bins": [[low, high, counts[low, high]] for low, high in sorted(counts)],
                        "nan": sum((p.histogram or {}).get("nan", 0) for p in parts), "flushed": 0}
    result.d3d = empty_interval_summary()
    for p in parts:
        for key in ("checked", "failed", "outside"):
            result.d3d[key] += (p.d3d or {}).get(key, 0)
    result.d3d["max_ratio"] = "inf" if result.d3d["failed"] else None
    result.d3d["worst"] = [{"output": o.short, **item} for o, p in zip(outputs, parts)
                           for item in (p.d3d or {}).get("worst", [])]
    result.outputs = [{"name": o.name, "elements": p.elements, "mismatches": p.mismatches, "max_ulp": p.max_ulp,
                       **({"problem": p.problem} if p.problem else {})} for o, p in zip(outputs, parts)]
    return result
