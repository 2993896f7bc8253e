"""CONVOLUTION: the oracle against hand-worked sums and a loop written from the definition, and the
d3d judge (conformance/judge/accumulated.py) against simulated devices: correct float32 and float16
ones pass, the faults of issue 26 (groups mapped to the wrong channels, TF32-like products, Mode
ignored, float16 accumulation without the flag) fail."""
import itertools

import numpy as np
import pytest

import accumulation_devices as dev
import oracle
from conformance import specs
from conformance.judge.accumulated import compare_accumulated
from oracle.convolution import DIRECTIONS, MODES

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


def factor_rows(inputs):
    """Each output's products as two (outputs, C * taps) arrays of factors, rows in the output's order
    (batch, output channel, y, x): the simulated devices' dot products."""
    x, w, _ = inputs
    kernel = w.shape[2]
    pad = kernel // 2
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))),
                                                       (kernel, kernel), axis=(2, 3))  # N, C, H, W, kh, kw
    n, c, h, width = windows.shape[:4]
    per_output = np.moveaxis(windows, 1, 3).reshape(n, 1, h, width, c * kernel * kernel)
    a = np.broadcast_to(per_output, (n, w.shape[0], h, width, c * kernel * kernel))
    b = np.broadcast_to(w.reshape(1, w.shape[0], 1, 1, -1), a.shape)
    return a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])


def simulated(inputs, order, rounding="nearest", fused=False, flush=False, precision="float32") -> np.ndarray:
    """A device's output: each output's products summed in `order` (tests/accumulation_devices.py), the
    bias added with one more rounding, stored in the tensor's type."""
    x, w, b = inputs
    sums = dev.sum_rows(factor_rows(inputs), order, precision, rounding, fused, flush)
    shape = (x.shape[0], w.shape[0], x.shape[2], x.shape[3])
    total = dev.rounded(sums.reshape(shape) + b.astype(np.float64), precision, rounding, flush)
    return dev.store(total, x.dtype.name)


def test_every_legal_float32_device_passes():
    """Every order, rounding (nearest, toward zero), fused or unfused mad and flushing of the simulator."""
    rng = np.random.default_rng(1)
    inputs, params = padded_case(rng, np.float32, channels=16, size=8, outputs=4)
    for device in dev.devices("float32", fused_too=True):
        assert d3d_failures(inputs, params, "float32", simulated(inputs, *device)) == 0, f"device {device}"


def test_float32_devices_pass_on_a_hundred_thousand_outputs():
    rng = np.random.default_rng(2)
    inputs, params = padded_case(rng, np.float32, channels=16, size=40, outputs=32, kernel=1)
    for device in (("sequential", "zero"), ("blocked32", "nearest", True), ("pairwise", "zero")):
        actual = simulated(inputs, *device)
        assert actual.size >= 10 ** 5
        assert d3d_failures(inputs, params, "float32", actual) == 0, f"device {device}"


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
