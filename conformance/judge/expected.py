"""What the oracle says a case's output must be, in the forms the comparison takes."""
import functools
import itertools
import json

import numpy as np

import oracle


def expected_and_reference(case, x):
    """(expected in the operator's output type, the unrounded reference)."""
    reference = oracle.reference(case.op, x, case.dtype, **case.oracle_params())
    return oracle.round_outputs(reference, oracle.output_dtype(case.op, case.dtype, **case.params)), reference


def zero_results(case):
    """(f(+0), f(-0)) in the output type, for a device that flushes subnormal inputs; None for
    integer inputs. Several inputs: a function of the flat inputs giving the oracle's outputs with
    the subnormals of each non-empty set of float inputs flushed (flushed_results). None for an
    operator that copies: its elements are judged exactly (judge/moved.py), nothing flushed."""
    from conformance import specs
    if specs.get(case.op).copies:
        return None
    if specs.get(case.op).per_element_fields:  # Bias[c]: the oracle on flushed operands (per_element.py)
        from conformance.judge import per_element
        return per_element.flushed(case)
    if case.several:
        if not any(np.dtype(i.dtype).kind == "f" for i in case.inputs):
            return None
        return functools.partial(flushed_results, case.op, case.dtype, json.dumps(case.oracle_params()))
    if np.dtype(case.dtype).kind != "f":
        return None
    signed_zeros = np.array([0.0, -0.0], dtype=case.dtype)
    return tuple(oracle.evaluate(case.op, signed_zeros, case.dtype, **case.oracle_params()))


def flushed_results(op, dtype, params_json, flat_x) -> list:
    """The oracle on flat several inputs with subnormals flushed to sign-preserved zero: in every
    input, and in each other non-empty set of them (a device flushes on each input's load)."""
    from conformance.caseset import operands
    params = json.loads(params_json)
    numbered = range(len(flat_x))
    return [oracle.evaluate(op, operands.flushed(flat_x, set(which)), dtype, **params)
            for size in range(len(flat_x), 0, -1) for which in itertools.combinations(numbered, size)]


def expected_for(case, x):
    """(expected in the target type, unrounded reference, (f(+0), f(-0)) or None)."""
    return (*expected_and_reference(case, x), zero_results(case))


@functools.lru_cache(maxsize=256)
def _judge(op, dtype, params_json, nan_rule):
    from conformance.judge.d3d import IntervalJudge
    return IntervalJudge(op, dtype, json.loads(params_json), nan_rule)


def interval_judge(case):
    """The case's d3d judge (judge.d3d.IntervalJudge), shared by cases of one parameter set."""
    return _judge(case.op, case.dtype, json.dumps(case.params, sort_keys=True), case.nan_rule)
