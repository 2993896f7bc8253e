"""Fields the judge reads per element (Parameter.along: VALUE_SCALE_2D's Bias, Bias[c] along the
channel dimension). The element-wise judge sees them as operands beside the inputs, each broadcast to
the output's shape: the d3d formula names one as an input (input_("Bias")), a worst element lists its
value with the inputs', and a device flushing subnormals is judged by the oracle on the flushed values,
each element computed as its own index along the field's dimension."""
import functools
import itertools
import json

import numpy as np

import oracle
from conformance.specs.base import computed_fields


def names(spec, params) -> tuple:
    """The judge's operands: each input's short name, then each per-element field's."""
    return tuple(i.short for i in spec.input_tensors(params)) + tuple(p.name for p in spec.per_element_fields)


def operands(spec, x, params) -> tuple:
    """x (one input, or several in the page's order) with each per-element field's values laid along
    its dimension, broadcast to the first input's shape (float32 values: FLOAT fields)."""
    inputs = x if isinstance(x, tuple) else (x,)
    shape = np.shape(inputs[0])
    laid = []
    for field in spec.per_element_fields:
        values = np.asarray(params[field.name], dtype=np.float32)
        sizes = [1] * len(shape)
        sizes[field.along] = values.size
        laid.append(np.broadcast_to(values.reshape(sizes), shape))
    return (*inputs, *laid)


def flushed(case):
    """expected.zero_results for a spec with per-element fields: a function of the flat operands
    giving the oracle's outputs with the subnormals of each non-empty set of operands flushed."""
    return functools.partial(_flushed_results, case.op, case.dtype, len(case.shape),
                             json.dumps(case.oracle_params()))


def _flushed_results(op, dtype, rank, params_json, flat) -> list:
    from conformance.caseset import operands as ops
    params = json.loads(params_json)
    return [evaluate_flat(op, dtype, rank, params, ops.flushed(flat, set(which)))
            for size in range(len(flat), 0, -1) for which in itertools.combinations(range(len(flat)), size)]


def evaluate_flat(op, dtype, rank, params, flat) -> np.ndarray:
    """The oracle on flat operands (inputs, then per-element fields' values), each element computed as its
    own index along the fields' dimension of a tensor of `rank` dimensions."""
    from conformance import specs
    fields = specs.get(op).per_element_fields
    count = len(flat) - len(fields)
    sizes = [1] * rank
    sizes[fields[0].along] = len(flat[0])
    inputs = tuple(np.asarray(v).reshape(sizes) for v in flat[:count])
    given = {f.name: [float(v) for v in flat[count + k]] for k, f in enumerate(fields)}
    got = oracle.evaluate(op, inputs if count > 1 else inputs[0], dtype, **{**computed_fields(params), **given})
    return np.asarray(got).reshape(-1)
