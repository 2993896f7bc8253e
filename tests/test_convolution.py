"""CONVOLUTION: the oracle against hand-worked sums and a loop written from the definition, and the
d3d judge (conformance/judge/accumulated.py) against simulated devices (tests/accumulation_devices.py):
every order, rounding, fusion and flush, the bias added after the sum or first, float32 and float16,
pass on over 10^6 judged outputs of model layers; the faults of issue 26 (groups mapped to the wrong
channels, TF32-like products, Mode ignored, float16 accumulation without the flag) fail."""
import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

import accumulation_devices as dev
from exact_orders import every_dot, round_fraction
import oracle
from conformance import specs
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.specs.base import ABSENT
from oracle.convolution import DIRECTIONS, MODES
from soundness_tally import Tally, by_kind

SPEC = specs.get("CONVOLUTION")


def fields(rank=2, **given) -> dict:
    window = {"Strides": [1] * rank, "Dilations": [1] * rank, "StartPadding": [0] * rank, "EndPadding": [0] * rank,
              "OutputPadding": [0] * rank}
    return {**SPEC.defaults(), **window, **given}


def oracle_params(params: dict) -> dict:
    return {k: v for k, v in params.items() if k != "ExecutionFlags"}


def judged(inputs, params, dtype, actual):
    reference = oracle.reference("CONVOLUTION", inputs, dtype, **oracle_params(params))
    expected = oracle.evaluate("CONVOLUTION", inputs, dtype, **oracle_params(params))
    return compare_accumulated(SPEC, inputs, params, dtype, expected, reference, np.asarray(actual, dtype=dtype),
                               ulp_tolerance=0)


def d3d_failures(inputs, params, dtype, actual) -> int:
    """How many of the device's output elements the d3d judge rejects."""
    return judged(inputs, params, dtype, actual).d3d["failed"]


def test_worked_example_forward_backward_and_both_modes():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    ones = np.ones((1, 1, 2, 2), dtype=np.float32)
    bias = np.full((1, 1, 1, 1), 0.5, dtype=np.float32)
    got = oracle.evaluate("CONVOLUTION", (x, ones, bias), "float32", **oracle_params(fields()))
    assert got.reshape(-1).tolist() == [12.5, 16.5, 24.5, 28.5]
    ramp = np.array([1, 2, 3, 4], dtype=np.float32).reshape(1, 1, 2, 2)
    no_bias = oracle_params(fields(BiasTensor="absent"))
    cross = oracle.evaluate("CONVOLUTION", (x, ramp), "float32", **no_bias)
    flipped = oracle.evaluate("CONVOLUTION", (x, ramp), "float32", **{**no_bias, "Mode": MODES[0]})
    assert cross[0, 0, 0, 0] == 1 * 1 + 2 * 2 + 4 * 3 + 5 * 4, cross
    assert flipped[0, 0, 0, 0] == 1 * 4 + 2 * 3 + 4 * 2 + 5 * 1, flipped
    small = np.array([1, 2, 3, 4], dtype=np.float32).reshape(1, 1, 2, 2)
    transposed = oracle.evaluate("CONVOLUTION", (small, ones), "float32", **{**no_bias, "Direction": DIRECTIONS[1]})
    assert transposed.reshape(3, 3).tolist() == [[1, 3, 2], [4, 10, 6], [3, 7, 4]]


def by_definition(x, w, p) -> np.ndarray:
    """One output element at a time, from the sums as the spec's formula states them; the output
    padding's positions 0."""
    backward, groups = p["Direction"] == DIRECTIONS[1], p["GroupCount"]
    if p["Mode"] == MODES[0]:
        w = w[(slice(None), slice(None)) + (slice(None, None, -1),) * (x.ndim - 2)]
    per_group = x.shape[1] // groups
    out_channels = w.shape[1] * groups if backward else w.shape[0]
    out_per_group = out_channels // groups
    shape = SPEC.output_shapes((x.shape, w.shape), p)[0]
    out = np.zeros(shape)
    written = SPEC.output_shapes((x.shape, w.shape), {**p, "OutputPadding": [0] * (x.ndim - 2)})[0]
    for n, m, *o in itertools.product(*(range(s) for s in written)):
        g = m // out_per_group
        total = 0.0
        for c in range(g * per_group, (g + 1) * per_group):
            for k in itertools.product(*(range(s) for s in w.shape[2:])):
                if backward:  # Input[j] adds at o = j * stride + k * dilation - start: solve for j
                    j = [(oi - ki * d + s0) / st for oi, ki, d, s0, st in
                         zip(o, k, p["Dilations"], p["StartPadding"], p["Strides"])]
                    if all(v == int(v) and 0 <= v < size for v, size in zip(j, x.shape[2:])):
                        total += x[(n, c) + tuple(int(v) for v in j)] * w[(c, m % out_per_group) + k]
                else:
                    j = [oi * st + ki * d - s0 for oi, ki, d, s0, st in
                         zip(o, k, p["Dilations"], p["StartPadding"], p["Strides"])]
                    if all(0 <= v < size for v, size in zip(j, x.shape[2:])):
                        total += x[(n, c) + tuple(j)] * w[(m, c - g * per_group) + k]
        out[(n, m, *o)] = total
    return out


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_output_padding_is_zeros_without_the_bias_with_the_activation(direction):
    """DirectML.dll (dml-direct under Wine) writes 0 there, and sigmoid's 0.5 with SIGMOID fused."""
    x = np.ones((1, 1, 2, 2), dtype=np.float32)
    w = np.ones((1, 1, 1, 1), dtype=np.float32)
    bias = np.full((1, 1, 1, 1), 3.0, dtype=np.float32)
    params = oracle_params(fields(Direction=direction, OutputPadding=[1, 0]))
    plain = oracle.evaluate("CONVOLUTION", (x, w, bias), "float32", **params)
    assert plain[0, 0].tolist() == [[4, 4], [4, 4], [0, 0]]
    fused = {**params, "FusedActivation": {"Type": "ACTIVATION_SIGMOID"}}
    assert oracle.evaluate("CONVOLUTION", (x, w, bias), "float32", **fused)[0, 0, 2].tolist() == [0.5, 0.5]
    wrong = plain.copy()
    wrong[0, 0, 2] = 3.0  # the bias added in the padding
    assert d3d_failures((x, w, bias), fields(Direction=direction, OutputPadding=[1, 0]), "float32", wrong) == 2


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("mode", MODES)
def test_oracle_matches_the_definition(direction, mode):
    rng = np.random.default_rng(26)
    for rank in (1, 2, 3):
        groups = 2
        x = rng.integers(-3, 4, (2, 4, *rng.integers(5, 8, rank))).astype(np.float64)
        kernel = tuple(rng.integers(1, 4, rank))
        w = rng.integers(-3, 4, ((4, 3) if direction == DIRECTIONS[1] else (6, 2)) + kernel).astype(np.float64)
        p = fields(rank, BiasTensor="absent", Mode=mode, Direction=direction, GroupCount=groups,
                   Strides=list(rng.integers(1, 3, rank)), Dilations=list(rng.integers(1, 3, rank)),
                   StartPadding=list(rng.integers(0, 2, rank)), EndPadding=[0] * rank,
                   OutputPadding=[1] + [0] * (rank - 1))
        assert SPEC.shape_problem((x.shape, w.shape), p) is None
        got = oracle.reference("CONVOLUTION", (x, w), "float32", **oracle_params(p))
        want = by_definition(x, w, p)
        assert got.shape == want.shape and np.array_equal(got, want), \
            f"rank {rank}: the oracle differs from the definition at {np.argwhere(got != want)[:3].tolist()}"


def padded_case(rng, dtype, channels, size, outputs, kernel=3, positive=False, flags="NONE"):
    """A stride-1 convolution padded to keep its size (batch 2, one group), its inputs from [-1, 1] (positive:
    [0, 1], post-ReLU)."""
    low = 0.0 if positive else -1.0
    x = rng.uniform(low, 1, (2, channels, size, size)).astype(dtype)
    w = rng.uniform(low, 1, (outputs, channels, kernel, kernel)).astype(dtype)
    b = rng.uniform(low, 1, (1, outputs, 1, 1)).astype(dtype)
    pad = kernel // 2
    return (x, w, b), fields(StartPadding=[pad, pad], EndPadding=[pad, pad], ExecutionFlags=flags)


def factor_rows(inputs, params=None):
    """Each output's products as two (outputs, C / GroupCount * taps) arrays of factors, rows in the output's order
    (batch, output channel, y, x): the simulated devices' dot products. FORWARD, CROSS_CORRELATION, 2-D, without
    output padding; params: Strides, Dilations, StartPadding, EndPadding, GroupCount (None: stride 1, padded to
    keep the size, one group); the padding's zeros are products too."""
    x, w = (np.asarray(v, np.float64) for v in inputs[:2])
    kernel = w.shape[2:]
    if params is None:
        params = fields(StartPadding=[k // 2 for k in kernel], EndPadding=[k // 2 for k in kernel])
    (s0, s1), (d0, d1) = params["Strides"], params["Dilations"]
    (p0, p1), (e0, e1), groups = params["StartPadding"], params["EndPadding"], int(params["GroupCount"])
    padded = np.pad(x, ((0, 0), (0, 0), (p0, e0), (p1, e1)))
    extent = ((kernel[0] - 1) * d0 + 1, (kernel[1] - 1) * d1 + 1)
    windows = np.lib.stride_tricks.sliding_window_view(padded, extent, axis=(2, 3))[:, :, ::s0, ::s1, ::d0, ::d1]
    n, c, h, width = windows.shape[:4]
    m, per_group = w.shape[0], c // groups
    taps = per_group * kernel[0] * kernel[1]
    grouped = np.moveaxis(windows.reshape(n, groups, per_group, h, width, *kernel), 2, 4)  # n, g, h, w, c, kh, kw
    a = np.broadcast_to(grouped.reshape(n, groups, 1, h, width, taps), (n, groups, m // groups, h, width, taps))
    b = np.broadcast_to(w.reshape(1, m, 1, 1, taps), (n, m, h, width, taps))
    return a.reshape(-1, taps), b.reshape(-1, taps)


def backward_factor_rows(inputs, params):
    """factor_rows of a BACKWARD (transposed) 2-D convolution: Input[n, c, j] * Filter[c, m, k] adds to output
    position j * Strides + k * Dilations - StartPadding (oracle/convolution.py), one row per output, the rows
    completed with zero products (exact: any order of them is one of the real products' orders)."""
    x, w = (np.asarray(v, np.float64) for v in inputs[:2])
    groups, strides, dilations = int(params["GroupCount"]), params["Strides"], params["Dilations"]
    start = params["StartPadding"]
    out = SPEC.output_shapes((x.shape, w.shape), params)[0]
    per_group, per_out = x.shape[1] // groups, w.shape[1]
    pairs = {}
    for n, c, j0, j1, mm, k0, k1 in itertools.product(*(range(v) for v in (x.shape[0], x.shape[1], *x.shape[2:],
                                                                             per_out, *w.shape[2:]))):
        o = (j0 * strides[0] + k0 * dilations[0] - start[0], j1 * strides[1] + k1 * dilations[1] - start[1])
        if 0 <= o[0] < out[2] and 0 <= o[1] < out[3]:
            m = c // per_group * per_out + mm
            pairs.setdefault((n, m) + o, []).append((x[n, c, j0, j1], w[c, mm, k0, k1]))
    width = max(len(v) for v in pairs.values())
    a, b = np.zeros((int(np.prod(out)), width)), np.zeros((int(np.prod(out)), width))
    for index, products in pairs.items():
        row = np.ravel_multi_index(index, out)
        a[row, :len(products)], b[row, :len(products)] = zip(*products)
    return a, b


def device_outputs(rows, bias, order, rounding="nearest", fused=False, flush=False, precision="float32") -> dict:
    """A simulated device's outputs (float64 values of precision, one per row), each way it may add the bias:
    "after": the products summed in order, then the bias added with one more rounding; "started": the
    accumulator started with the bias, the products added in order. bias: per row, or None (absent)."""
    s = dev.sum_rows(rows, order, precision, rounding, fused, flush)
    if bias is None:
        return {"after": s}
    started = (np.concatenate([bias[:, None], rows[0]], axis=1), np.concatenate([np.ones((len(bias), 1)), rows[1]],
                                                                              axis=1))
    with np.errstate(all="ignore"):
        return {"after": dev.rounded(s + bias, precision, rounding, flush),
                "started": dev.sum_rows(started, order, precision, rounding, fused, flush)}


def bias_rows(inputs, shape):
    """The bias of each output (rows in the output's order), or None where the case has none."""
    if len(inputs) < 3:
        return None
    return np.broadcast_to(np.asarray(inputs[2], np.float64), shape).reshape(-1)


def simulated(inputs, order, rounding="nearest", fused=False, flush=False, precision="float32") -> np.ndarray:
    """A device's output of a padded_case: each output's products summed in `order`
    (tests/accumulation_devices.py), the bias added with one more rounding, stored in the tensor's type."""
    x, w, b = inputs
    shape = (x.shape[0], w.shape[0], x.shape[2], x.shape[3])
    total = device_outputs(factor_rows(inputs), bias_rows(inputs, shape), order, rounding, fused, flush, precision)
    return dev.store(total["after"].reshape(shape), x.dtype.name)


# -- soundness: simulated devices on over 10^6 judged outputs ---------------------------------------------------------

TALLY = Tally("CONVOLUTION")
# (input channels, size, kernel, output channels, fields) per group: model layers (1x1, 3x3, ResNet's 7x7/2,
# depth-wise, grouped and strided, dilated, a grouped transposed one), taps from 9 to 147; and one of 4608 taps (few
# outputs, fewer devices)
LAYERS = ((16, 8, 1, 8, {}), (8, 8, 3, 8, {"StartPadding": [1, 1], "EndPadding": [1, 1]}),
          (16, 12, 3, 8, {"Strides": [2, 2], "StartPadding": [1, 1], "EndPadding": [0, 0], "GroupCount": 2}),
          (8, 8, 3, 8, {"StartPadding": [1, 1], "EndPadding": [1, 1], "GroupCount": 8}),
          (4, 10, 3, 4, {"Dilations": [2, 2], "StartPadding": [2, 2], "EndPadding": [2, 2], "BiasTensor": ABSENT}),
          (3, 12, 7, 8, {"Strides": [2, 2], "StartPadding": [3, 3], "EndPadding": [3, 3]}),
          (16, 8, 3, 4, {"StartPadding": [1, 1], "EndPadding": [1, 1]}),
          (4, 5, 3, 4, {"Direction": DIRECTIONS[1], "Strides": [2, 2], "StartPadding": [1, 1], "EndPadding": [1, 1],
                        "GroupCount": 2}))
LONG = (512, 3, 3, 2, {})
LONG_DEVICES = (("sequential", "zero", False, False), ("blocked256", "zero", True, False),
                ("pairwise", "nearest", False, False), ("strided32", "zero", True, False))
KINDS = ("uniform", "positive", "cancel", "wide", "tiny")


def layer_inputs(rng, kind, channels, size, kernel, outputs, params, dtype):
    """Input {1, C, size, size}, Filter, Bias of dtype: uniform in [-1, 1] with a NaN, infinities of both signs and
    an infinite bias; positive: [0, 1] (post-ReLU: a truncating device's errors add up); cancel: inputs up to
    1000 (float16 30) whose channels come in pairs, the odd ones the even ones negated and moved by up to 1e-3,
    under equal weights, and a bias that cancels the first output's sum; wide: magnitudes 2^-30 to 2^30 (float16
    2^-7 to 2^5); tiny: float32 inputs in the denormals, weights up to 16 (float16: its denormals to 2^-4, weights
    to 4)."""
    half = dtype == "float16"
    groups = int(params["GroupCount"])
    per_group = channels // groups
    backward = params["Direction"] == DIRECTIONS[1]  # BACKWARD's filter: {C, OutputChannelCount / GroupCount, ...}
    shapes = ((1, channels, size, size), (channels, outputs // groups, kernel, kernel) if backward
              else (outputs, per_group, kernel, kernel), (1, outputs, 1, 1))
    if kind in ("uniform", "positive"):
        x, w, b = (rng.uniform(0.0 if kind == "positive" else -1.0, 1, shape) for shape in shapes)
        if kind == "uniform":
            x[0, 0, 0, 0], x[0, -1, 1, 1], w[-1, 0, 0, 0], b[0, 0] = np.nan, np.inf, -np.inf, np.inf
    elif kind == "cancel":
        top = 30.0 if half else 1000.0
        x, w, b = (rng.uniform(-top, top, shape) for shape in shapes)
        pairs = per_group // 2 * 2
        x[:, 1:pairs:2] = -x[:, 0:pairs:2] * (1 + rng.uniform(-1e-3, 1e-3, x[:, 0:pairs:2].shape))
        if backward:
            w[1:pairs:2] = w[0:pairs:2]
        else:
            w[:, 1:pairs:2] = w[:, 0:pairs:2]
    else:
        ranges = {("wide", False): ((-30, 30), (-30, 30), (-60, 60)), ("wide", True): ((-7, 5), (-7, 5), (-14, 10)),
                  ("tiny", False): ((-149, -120), (-4, 4), (-149, -110)), ("tiny", True): ((-24, -4), (-8, 2), (-24, -10))}
        x, w, b = (rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(lo, hi, shape))
                   for (lo, hi), shape in zip(ranges[kind, half], shapes))
    x, w = x.astype(dtype), w.astype(dtype)
    if kind == "cancel":
        with np.errstate(invalid="ignore"):
            b[0, 0, 0, 0] = -oracle.reference("CONVOLUTION", (x, w), dtype, **oracle_params({**params, "BiasTensor":
                                                                                            ABSENT}))[0, 0, 0, 0]
    return (x, w, b.astype(dtype)) if params.get("BiasTensor") != ABSENT else (x, w)


def soundness_layers(seed, dtype, long=True):
    """(fields, [(kind, inputs)], the factor rows of them all, the bias per row or None) per layer."""
    rng = np.random.default_rng(seed)
    for channels, size, kernel, outputs, given in LAYERS + ((LONG,) if long else ()):
        params = fields(**given)
        cases = [(kind, layer_inputs(rng, kind, channels, size, kernel, outputs, params, dtype)) for kind in KINDS]
        rows = [(backward_factor_rows if params["Direction"] == DIRECTIONS[1] else factor_rows)(inputs, params)
                for _, inputs in cases]
        shapes = [SPEC.output_shapes((inputs[0].shape, inputs[1].shape), params)[0] for _, inputs in cases]
        bias = (np.concatenate([bias_rows(inputs, shape) for (_, inputs), shape in zip(cases, shapes)])
                if params["BiasTensor"] != ABSENT else None)
        yield params, cases, tuple(np.concatenate(x) for x in zip(*rows)), bias



def test_float32_devices_inside():
    """Every simulated float32 device (order x rounding x fused x flush x the bias after the sum or first) inside
    each output's interval."""
    for params, cases, rows, bias in soundness_layers(1, "float32"):
        allowed, exact = by_kind(SPEC, cases, params, "float32")
        taps = rows[0].shape[1]
        for device in dev.devices("float32", fused_too=True) if taps < 4096 else LONG_DEVICES:
            for finish, values in device_outputs(rows, bias, *device).items():
                TALLY.judge_by_kind("float32", cases, allowed, exact, values, (taps, params, device, finish),
                                    rounding=device[1])


def test_float16_devices_inside():
    """float16 summed in float32 and stored either way: inside with and without the flag; summed in float16:
    inside with ALLOW_HALF_PRECISION_COMPUTATION."""
    for params, cases, rows, bias in soundness_layers(2, "float16", long=False):
        half_params = {**params, "ExecutionFlags": "ALLOW_HALF_PRECISION_COMPUTATION"}
        plain, exact = by_kind(SPEC, cases, params, "float16")
        half, _ = by_kind(SPEC, cases, half_params, "float16", references=False)
        for device in dev.devices("float32"):  # fused mads: test_float32_devices_inside
            for finish, computed in device_outputs(rows, bias, *device).items():
                for stored in dev.ROUNDINGS:
                    values = dev.store(computed, "float16", stored).astype(np.float64)
                    where = (params, "float32", device, finish, "stored", stored)
                    TALLY.judge_by_kind("float16 in float32", cases, plain, exact, values, where)
                    TALLY.judge_by_kind("float16 in float32", cases, half, exact, values, where + ("half",),
                                        count=False)
        for device in dev.devices("float16", fused_too=True):
            for finish, values in device_outputs(rows, bias, *device, precision="float16").items():
                TALLY.judge_by_kind("float16 in half", cases, half, exact, values, (params, "float16", device, finish))


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 CONVOLUTION outputs (run with them), and printed how far
    into the bound the devices came; a float32 device came past half of it somewhere."""
    if not TALLY.checked:
        pytest.skip("run with the soundness tests of this file")
    TALLY.report_truncating()


# -- independent: exact rational arithmetic, every or sampled order ------------------------------------------------

RATIONAL_LAYERS = ((4, 3, 1, 4, {"GroupCount": 2}), (4, 3, 1, 2, {}),
                   (2, 3, 3, 2, {"GroupCount": 2, "StartPadding": [1, 1], "EndPadding": [1, 1]}))


def conv_rational_results(a, b, bias, precision, rounding, flush, sample) -> set:
    """Every result a device gives for one output (its factors a, b and bias as Fractions), each operation rounded
    once: the products in every (or a sample of) order, fused or not, then the bias added; or the accumulator
    started with the bias."""
    results = every_dot(a, b, precision, rounding, flush, rng=sample, count=20)
    if bias is None:
        return results
    return ({round_fraction(s + bias, precision, rounding, flush) for s in results}
            | every_dot(a, b, precision, rounding, flush, start=bias, rng=sample, count=20))


@pytest.mark.parametrize("precision, dtype, flags", [("float32", "float32", "NONE"),
                                                     ("float16", "float16", "ALLOW_HALF_PRECISION_COMPUTATION"),
                                                     ("float32", "float16", "NONE")])
def test_every_order_exactly_rounded_inside(precision, dtype, flags):
    """Grouped, plain and depth-wise layers with a bias (positive, cancelling, wide and denormal data): every
    result computed with exact rational arithmetic and one exact IEEE rounding per operation (to nearest, toward
    zero; flushing float32 denormals or not), every order of at most 5 leaves, 20 random trees beyond, each
    (stored either way where float16 is summed in float32) and the exact rational result inside the interval."""
    rng, sample = np.random.default_rng(12), random.Random(12)
    modes = [(r, f) for r in dev.ROUNDINGS for f in (False, True)] if precision == "float32" else [("nearest", False)]
    judged = 0
    for (channels, size, kernel, outputs, given), kind in itertools.product(RATIONAL_LAYERS,
                                                                            ("positive", "cancel", "wide", "tiny")):
        params = fields(**given, ExecutionFlags=flags)
        inputs = layer_inputs(rng, kind, channels, size, kernel, outputs, params, dtype)
        allowed = interval(SPEC, inputs, params, dtype)
        lo, hi, nan = (v.reshape(-1) for v in (allowed.lo, allowed.hi, allowed.nan))
        rows = factor_rows(inputs, params)
        bias = bias_rows(inputs, allowed.lo.shape)
        for o in range(0, len(lo), 5):
            a, b = ([Fraction(float(v)) for v in row[o]] for row in rows)
            c = None if bias is None else Fraction(float(bias[o]))
            exact = sum(x * y for x, y in zip(a, b)) + (c or 0)
            assert lo[o] <= exact <= hi[o], f"{kind} {given} output {o}: exact {float(exact)!r} outside " \
                                            f"[{lo[o]!r}, {hi[o]!r}]"
            for rounding, flush in modes:
                results = conv_rational_results(a, b, c, precision, rounding, flush, sample)
                if dtype != precision:
                    results = {round_fraction(v, dtype, stored) for v in results for stored in dev.ROUNDINGS}
                bad = [float(v) for v in results if not (lo[o] <= v <= hi[o] if v == v else nan[o])]
                assert not bad, (f"{dtype} in {precision} ({rounding}, flush={flush}) {kind} {given} output {o}: "
                                 f"results {bad[:3]} outside [{lo[o]!r}, {hi[o]!r}] (exact {float(exact)!r})")
                judged += len(results)
    assert judged > 150, f"expected a few hundred distinct device results checked, came {judged}"


def test_a_truncating_float32_device_passes_close_to_the_bound():
    """Post-ReLU activations and positive weights summed one at a time, every operation truncated: the
    error runs one way, a sizeable fraction of gamma(n) * sum |products| (a bound several times tighter
    rejects it)."""
    rng = np.random.default_rng(6)
    inputs, params = padded_case(rng, np.float32, channels=64, size=8, outputs=8, positive=True)
    verdict = judged(inputs, params, "float32", simulated(inputs, "sequential", "zero"))
    assert verdict.d3d["failed"] == 0
    assert verdict.d3d["bound_fraction"] > 0.125, verdict.d3d["bound_fraction"]


def test_float16_summed_in_float32_passes_summed_in_float16_only_with_the_flag():
    rng = np.random.default_rng(3)
    inputs, params = padded_case(rng, np.float16, channels=32, size=8, outputs=8)
    for device in dev.devices("float32", flush_too=False)[:4]:
        assert d3d_failures(inputs, params, "float16", simulated(inputs, *device)) == 0, f"device {device}"
    in_half = simulated(inputs, "sequential", precision="float16")
    assert d3d_failures(inputs, params, "float16", in_half) > 0, "float16 accumulation passed without the flag"
    allowed = {**params, "ExecutionFlags": "ALLOW_HALF_PRECISION_COMPUTATION"}
    assert d3d_failures(inputs, allowed, "float16", in_half) == 0


def test_groups_mapped_to_the_wrong_channels_fail():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 8, 6, 6)).astype(np.float32)
    w = rng.uniform(-1, 1, (4, 4, 3, 3)).astype(np.float32)
    b = np.zeros((1, 4, 1, 1), dtype=np.float32)
    params = fields(GroupCount=2)
    swapped = np.concatenate([x[:, 4:], x[:, :4]], axis=1)  # group 0 reads group 1's channels and back
    wrong = oracle.evaluate("CONVOLUTION", (swapped, w, b), "float32", **oracle_params(params))
    assert d3d_failures((x, w, b), params, "float32", wrong) > 0
    right = oracle.evaluate("CONVOLUTION", (x, w, b), "float32", **oracle_params(params))
    assert d3d_failures((x, w, b), params, "float32", right) == 0


def tf32(values) -> np.ndarray:
    """Values rounded to 11 significant bits (a 10-bit mantissa, TF32-like), to nearest."""
    mantissa, exponent = np.frexp(np.asarray(values, dtype=np.float64))
    return np.ldexp(np.round(mantissa * 2 ** 11) / 2 ** 11, exponent)


def test_tf32_on_a_3x3x256_filter_fails():
    """Post-ReLU activations just above a midpoint of the 10-bit grid, weights powers of two: rounding the
    activations, or each product, to a 10-bit mantissa errs upward alike, ~2^-11 of every product: past
    gamma(2304) * sum |products| (2.7e-4 of it)."""
    rng = np.random.default_rng(4)
    x = np.ldexp(1 + 2.0 ** -11 + rng.uniform(0, 2.0 ** -13, (1, 256, 5, 5)), rng.integers(-2, 2, (1, 256, 5, 5)))
    w = np.ldexp(1.0, rng.integers(-3, 1, (4, 256, 3, 3)))
    inputs = (x.astype(np.float32), w.astype(np.float32), np.zeros((1, 4, 1, 1), dtype=np.float32))
    params = fields(StartPadding=[1, 1], EndPadding=[1, 1])
    rounded_inputs = (tf32(x).astype(np.float32), inputs[1], inputs[2])
    factors = oracle.evaluate("CONVOLUTION", rounded_inputs, "float32", **oracle_params(params))
    a, b = factor_rows(inputs)
    products = dev.sum_rows(tf32(a.astype(np.float64) * b), "sequential").reshape(factors.shape)
    for faulty in (factors, dev.store(products, "float32")):
        assert d3d_failures(inputs, params, "float32", faulty) == faulty.size
    assert d3d_failures(inputs, params, "float32", simulated(inputs, "sequential")) == 0


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_mode_ignored_fails(direction):
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (1, 3, 6, 6)).astype(np.float32)
    w = rng.uniform(-1, 1, (3, 2, 3, 3) if direction == DIRECTIONS[1] else (2, 3, 3, 3)).astype(np.float32)
    b = np.zeros((1, 2, 1, 1), dtype=np.float32)
    params = fields(Mode=MODES[0], Direction=direction)
    ignored = oracle.evaluate("CONVOLUTION", (x, w, b), "float32", **oracle_params({**params, "Mode": MODES[1]}))
    assert d3d_failures((x, w, b), params, "float32", ignored) > 0
