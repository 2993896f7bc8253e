"""CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION: the oracle against a loop written from the
definition, and the judge on their case files' own cases: exact integer sums, the quantized output within
the quantizations of its float32 scaling. Faults caught: a padded position read as a raw 0 (not a
difference of 0), a per-channel filter zero point or scale taken per tensor, the bias added after the
scaling, one element off by one."""
import itertools

import numpy as np

import oracle
from conformance.caseset.caseload import load_file
from conformance.judge.entry import compare_case
from oracle.convolution_integer import per_output_channel

INTEGER = load_file("cases/convolution_integer.yaml")
QUANTIZED = load_file("cases/quantized_linear_convolution.yaml")


def named_inputs(case, x) -> dict:
    from conformance import specs
    return {i.short: v for i, v in zip(specs.get(case.op).input_tensors(case.params), x)}


def by_definition(x, x_zero, w, w_zero, p) -> np.ndarray:
    """Forward, one output element at a time: the differences' products over the taps inside the input."""
    groups = p["GroupCount"]
    per_group, out_per_group = x.shape[1] // groups, w.shape[0] // groups
    spatial = tuple((n + s0 + e - ((k - 1) * d + 1)) // st + 1 for n, k, s0, e, d, st in
                    zip(x.shape[2:], w.shape[2:], p["StartPadding"], p["EndPadding"], p["Dilations"], p["Strides"]))
    zero = per_output_channel(w_zero, w.ndim).reshape(-1)
    out = np.zeros((x.shape[0], w.shape[0]) + spatial, dtype=np.int64)
    for n, m, *o in itertools.product(*(range(s) for s in out.shape)):
        g = m // out_per_group
        for c in range(per_group):
            for k in itertools.product(*(range(s) for s in w.shape[2:])):
                j = [oi * st + ki * d - s0 for oi, ki, d, s0, st in
                     zip(o, k, p["Dilations"], p["StartPadding"], p["Strides"])]
                if all(0 <= v < size for v, size in zip(j, x.shape[2:])):
                    out[(n, m, *o)] += ((int(x[(n, g * per_group + c, *j)]) - int(np.ravel(x_zero)[0]))
                                        * (int(w[(m, c, *k)]) - int(zero[m % zero.size])))
    return out


def test_integer_oracle_matches_the_definition():
    checked = 0
    for case in INTEGER:
        x = case.make_input()
        t = named_inputs(case, x)
        if t["Input"].size > 400:
            continue
        want = by_definition(t["Input"], t.get("InputZeroPoint", 0), t["Filter"], t.get("FilterZeroPoint", 0),
                             case.oracle_params())
        got = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
        assert np.array_equal(got, want), f"{case.id}: the oracle differs from the definition"
        checked += 1
    assert checked >= 10


def test_integer_outputs_are_judged_exactly():
    case = next(c for c in INTEGER if "per-channel" in c.id and "FilterType=int8" in c.id)
    x = case.make_input()
    right = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
    assert compare_case(case, x, right).passed
    off = right.copy()
    off.reshape(-1)[7] += 1
    assert compare_case(case, x, off).mismatches == 1


def test_integer_faults_are_caught():
    case = next(c for c in INTEGER if "per-channel" in c.id and "FilterType=int8" in c.id)
    x = case.make_input()
    t = named_inputs(case, x)
    params = case.oracle_params()
    per_tensor = tuple(np.full_like(v, np.ravel(v)[0]) if name == "FilterZeroPoint" else v for name, v in t.items())
    assert not compare_case(case, x, oracle.evaluate(case.op, per_tensor, case.dtype, **params)).passed
    # padding read as a raw 0: the padded input's zero point turns into -InputZeroPoint there
    pad = [(0, 0), (0, 0)] + [(s, e) for s, e in zip(params["StartPadding"], params["EndPadding"])]
    raw = np.pad(t["Input"].astype(np.int64), pad)
    zero_padded = {**t, "Input": raw}
    unpadded = {**params, "StartPadding": [0] * len(pad[2:]), "EndPadding": [0] * len(pad[2:])}
    faulty = by_definition(raw, zero_padded["InputZeroPoint"], t["Filter"], t["FilterZeroPoint"],
                           unpadded).astype(np.int32)
    assert not compare_case(case, x, faulty).passed


def scaled_device(t: dict, params: dict, target: str, bias_after=False, first_scale_only=False) -> np.ndarray:
    """A float32 device: the exact integer sums (plus the bias), converted to float32, times
    InputScale * FilterScale[m] / OutputScale each step in float32, rounded ties to even, plus the zero point,
    saturated. bias_after: the bias added to the scaled value instead (a fault); first_scale_only: FilterScale's
    first value for every channel (a fault)."""
    from oracle.quantized_linear_convolution import accumulated
    bias = t.get("Bias")
    sums = accumulated({**t, "Bias": None if bias_after else bias,
                        "InputZeroPoint": t.get("InputZeroPoint", 0), "FilterZeroPoint": t.get("FilterZeroPoint", 0)},
                       params)
    filter_scale = t["FilterScale"].astype(np.float32).reshape(1, -1, *(1,) * (sums.ndim - 2))
    if first_scale_only:
        filter_scale = np.full_like(filter_scale, filter_scale.reshape(-1)[0])
    scale = (t["InputScale"].astype(np.float32).reshape(-1)[0] * filter_scale) / t["OutputScale"].reshape(-1)[0]
    value = sums.astype(np.float32) * scale.astype(np.float32)
    if bias_after and bias is not None:
        value = value + bias.astype(np.float32).reshape(filter_scale.shape)
    zero = np.int64(np.ravel(t.get("OutputZeroPoint", 0))[0])
    bounds = np.iinfo(target)
    return np.clip(np.rint(value).astype(np.int64) + zero, bounds.min, bounds.max).astype(target)


def test_a_float32_device_passes_every_quantized_case():
    for case in QUANTIZED:
        x = case.make_input()
        target = oracle.output_dtype(case.op, case.dtype, **case.oracle_params())
        actual = scaled_device(named_inputs(case, x), case.oracle_params(), target)
        assert compare_case(case, x, actual).passed, case.id


def test_quantized_faults_are_caught():
    case = next(c for c in QUANTIZED if "per-channel" in c.id)
    x = case.make_input()
    t, params = named_inputs(case, x), case.oracle_params()
    target = oracle.output_dtype(case.op, case.dtype, **params)
    for fault in ({"bias_after": True}, {"first_scale_only": True}):
        assert not compare_case(case, x, scaled_device(t, params, target, **fault)).passed, fault
