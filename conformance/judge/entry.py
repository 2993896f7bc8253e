"""The judge's one entry: a case's device output against the oracle, by the operator's family.
Element-wise: the oracle, then compare.compare (the d3d intervals; the accelerated paths of fast.py
reach the same Comparison); an operator whose every output element is a copy of an input element
(a family that copies, or a spec with a source_index): exact, element for element (moved.py); several
outputs (TOP_K's values and indices): each by its kind (several.py); one index output (ARGMIN, ARGMAX): by the
set of indices the page allows (indices.py)."""
import numpy as np

from conformance import specs
from conformance.judge import per_element
from conformance.judge.compare import Comparison, compare
from conformance.judge.expected import expected_and_reference, expected_for, interval_judge


def compare_case(case, x, actual, expected=None, reference=None, zeros=None) -> Comparison:
    """expected, reference, zeros: what expected.expected_for gives, where the caller has it."""
    spec = specs.get(case.op)
    outputs = spec.outputs_for(case.params)
    if spec.tuple_outputs(case.params):
        from conformance.judge.several import compare_outputs
        accumulates = bool(spec.accumulation_for(case.params))
        if expected is None or (accumulates and reference is None):
            expected, reference = expected_and_reference(case, x)
        accumulated = None
        if accumulates:
            inputs = x if isinstance(x, tuple) else (x,)
            accumulated = {"dtype": case.dtype, "reference": reference, "ulp": ulp_tolerance(spec, inputs, case),
                           "params": case.params}  # ExecutionFlags too: the judge's allowance
        return compare_outputs(spec, x, expected, actual, case.oracle_params(), case.flush_allowed, accumulated)
    index_output = outputs[0].allowed is not None and (outputs[0].allowed_when is None
                                                       or outputs[0].allowed_when(case.params))
    if spec.accumulation_for(case.params) and not index_output:  # an accumulation: its sound interval
        if expected is None or reference is None:
            expected, reference = expected_and_reference(case, x)
        inputs = x if isinstance(x, tuple) else (x,)
        output_type = np.dtype(spec.tensor_type(outputs[0].name, case.dtype, case.params))
        if output_type.kind != "f":  # integers: exact, or any rounding of the real result where the page gives none
            from conformance.judge.bounded import compare_bounded
            if spec.rounded_integers is not None and spec.rounded_integers(case.params):
                from conformance.judge.accumulated import integer_bounds
                return compare_bounded(inputs[0], expected, actual, *integer_bounds(spec, inputs, case.params,
                                                                                   output_type))
            return compare_bounded(inputs[0], expected, actual)
        from conformance.judge.accumulated import compare_accumulated
        return compare_accumulated(spec, inputs, case.params, case.dtype, expected, reference, actual,
                                   ulp_tolerance(spec, inputs, case))
    if index_output:  # one index output (ARGMIN, ARGMAX): the set of indices allowed
        from conformance.judge.indices import allowed_for, compare_indices
        if expected is None:
            expected = expected_and_reference(case, x)[0]
        inputs = x if isinstance(x, tuple) else (x,)
        allowed = allowed_for(outputs[0].allowed, inputs, case.oracle_params(), case.flush_allowed)
        if outputs[0].indicator_axes is not None:  # HARDMAX: the 1 of each slice read as its index
            from conformance.judge.compare import wrong_type_or_shape
            from conformance.judge.indices import indicator_indices
            wrong = wrong_type_or_shape(np.asarray(expected), np.asarray(actual))
            if wrong is not None:
                return wrong
            axes = outputs[0].indicator_axes(case.params)
            expected, actual = indicator_indices(expected, axes), indicator_indices(actual, axes)
        return compare_indices(expected, actual, allowed, inputs[0], spec.inputs[0].short)
    if outputs[0].bounds is not None:  # one computed output within bounds (FILL_VALUE_SEQUENCE's floats)
        from conformance.judge.bounded import compare_bounded
        if expected is None:
            expected = expected_and_reference(case, x)[0]
        inputs = x if isinstance(x, tuple) else (x,)
        lo, hi = outputs[0].bounds(inputs, case.oracle_params())
        return compare_bounded(inputs[0] if inputs else np.zeros(0), expected, actual, lo, hi)
    if spec.copies:
        from conformance.judge.moved import compare_moved
        if expected is None:
            expected = expected_and_reference(case, x)[0]
        return compare_moved(spec, x, expected, actual, case.oracle_params())
    if expected is None:
        expected, reference, zeros = expected_for(case, x)
    if spec.spread is not None:  # inputs of their own smaller shapes, read per block (QUANTIZE's scales)
        x = spec.spread(x, case.oracle_params())
    if spec.per_element_fields:  # fields read per element (VALUE_SCALE_2D's Bias[c]): operands of the judge
        x = per_element.operands(spec, x, case.oracle_params())
    return compare(x, expected, actual, case.tolerance, case.flush_allowed, zeros,
                   reference if np.dtype(case.dtype).kind == "f" else None, interval_judge(case))


def ulp_tolerance(spec, inputs, case) -> int:
    """The `ulp` model's tolerance: the spec's count for the case (WebNN's), else the case's."""
    if spec.ulp_tolerance is None:
        return case.tolerance
    return int(spec.ulp_tolerance(tuple(np.shape(v) for v in inputs), case.oracle_params(), case.dtype))
