"""What the oracle says a case's output must be, in the forms the comparison takes."""
import functools
import json

import numpy as np

import oracle


def expected_and_reference(case, x):
    """(expected in the operator's output type, the unrounded reference)."""
    reference = oracle.reference(case.op, x, case.dtype, **case.oracle_params())
    return oracle.round_to(reference, oracle.output_dtype(case.op, case.dtype)), reference


def zero_results(case):
    """(f(+0), f(-0)) in the output type, for a device that flushes subnormal inputs; None for
    integer inputs."""
    if np.dtype(case.dtype).kind != "f":
        return None
    signed_zeros = np.array([0.0, -0.0], dtype=case.dtype)
    return tuple(oracle.evaluate(case.op, signed_zeros, case.dtype, **case.oracle_params()))


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
