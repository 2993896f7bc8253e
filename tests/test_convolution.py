"""CONVOLUTION: the oracle against hand-worked sums and a loop written from the definition, and the
d3d judge (conformance/judge/accumulated.py) against simulated devices: correct float32 and float16
ones pass, the faults of issue 26 (groups mapped to the wrong channels, TF32-like products, Mode
ignored, float16 accumulation without the flag) fail."""
import itertools

import numpy as np
import pytest

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
    """One output element at a time, from the sums as the spec's formula states them."""
    backward, groups = p["Direction"] == DIRECTIONS[1], p["GroupCount"]
    if p["Mode"] == MODES[0]:
        w = w[(slice(None), slice(None)) + (slice(None, None, -1),) * (x.ndim - 2)]
    per_group = x.shape[1] // groups
    out_channels = w.shape[1] * groups if backward else w.shape[0]
    out_per_group = out_channels // groups
    shape = SPEC.output_shapes((x.shape, w.shape), p)[0]
    out = np.zeros(shape)
    for n, m, *o in itertools.product(*(range(s) for s in shape)):
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


def model_case(rng, dtype, channels=16, size=56, outputs=16, flags="NONE"):
    """A 3x3 stride-1 padded convolution of batch 2: 2 * outputs * size^2 outputs of channels * 9 products."""
    x = rng.uniform(-1, 1, (2, channels, size, size)).astype(dtype)
    w = rng.uniform(-1, 1, (outputs, channels, 3, 3)).astype(dtype)
    b = rng.uniform(-1, 1, (1, outputs, 1, 1)).astype(dtype)
    return (x, w, b), fields(StartPadding=[1, 1], EndPadding=[1, 1], ExecutionFlags=flags)


def chopped(values) -> np.ndarray:
    """float64 values to float32 toward zero (Direct3D lets float32 arithmetic truncate)."""
    nearest = values.astype(np.float32)
    beyond = np.abs(nearest.astype(np.float64)) > np.abs(values)
    return np.where(beyond, np.nextafter(nearest, np.float32(0)), nearest)


def device(inputs, accumulate, products=np.float32, block=None, truncate=False) -> np.ndarray:
    """A simulated device: each output's products (in `products`) summed in `accumulate` one term at a
    time over (tap, channel), or by blocks of `block` terms, each block summed then the partial sums
    in turn; the bias added last; truncate: every float32 product and add rounded toward zero.
    Forward, stride 1, padding 1, 3x3, one group."""
    x, w, b = inputs
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    size = x.shape[2]
    terms = [(c, i, j) for i in range(3) for j in range(3) for c in range(x.shape[1])]
    total = np.zeros((x.shape[0], w.shape[0], size, size), dtype=accumulate)
    partial = np.zeros_like(total)
    if truncate:
        add = lambda a, c: chopped(a.astype(np.float64) + c.astype(np.float64))  # noqa: E731
    else:
        add = lambda a, c: (a + c).astype(accumulate)  # noqa: E731
    for k, (c, i, j) in enumerate(terms):
        left, right = padded[:, c:c + 1, i:i + size, j:j + size], w[None, :, c, i, j, None, None]
        if truncate:
            product = chopped(left.astype(np.float64) * right.astype(np.float64))
        else:
            product = (left.astype(products) * right.astype(products)).astype(accumulate)
        partial = add(partial, product)
        if block is None or (k + 1) % block == 0 or k + 1 == len(terms):
            total, partial = add(total, partial), np.zeros_like(partial)
    return add(total, b.astype(accumulate)).astype(x.dtype)


def test_correct_float32_devices_pass_on_a_hundred_thousand_outputs():
    rng = np.random.default_rng(1)
    inputs, params = model_case(rng, np.float32)
    for block in (None, 32):
        actual = device(inputs, np.float32, block=block)
        assert actual.size >= 10 ** 5
        assert d3d_failures(inputs, params, "float32", actual) == 0, f"block {block}"


def test_a_truncating_float32_device_passes_close_to_the_bound():
    """Post-ReLU activations and positive weights summed one at a time, every operation truncated: the
    error runs one way, a sizeable fraction of gamma(n) * sum |products| (a bound several times tighter
    rejects it)."""
    rng = np.random.default_rng(6)
    inputs, params = model_case(rng, np.float32, channels=64, size=40, outputs=32)
    inputs = tuple(np.abs(v) for v in inputs)
    actual = device(inputs, np.float32, truncate=True)
    assert actual.size >= 10 ** 5
    assert d3d_failures(inputs, params, "float32", actual) == 0
    assert judged(inputs, params, "float32", actual).d3d["bound_fraction"] > 0.125


def test_float16_summed_in_float32_passes_summed_in_float16_only_with_the_flag():
    rng = np.random.default_rng(2)
    inputs, params = model_case(rng, np.float16, channels=32, size=16)
    assert d3d_failures(inputs, params, "float16", device(inputs, np.float32)) == 0
    in_half = device(inputs, np.float16, products=np.float16)
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
    """float32 values rounded to a 10-bit mantissa (nearest, ties away), as TF32 tensor cores read them."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


def test_tf32_products_of_a_3x3x256_filter_fail():
    """Post-ReLU activations and weights whose TF32 rounding errs upward alike (just above a midpoint of
    the 10-bit grid): the error grows with every product, past gamma(n) * sum |products|."""
    rng = np.random.default_rng(4)
    def above_midpoints(shape):
        return np.ldexp(1 + 2.0 ** -11 + rng.uniform(0, 2.0 ** -13, shape), rng.integers(-2, 2, shape)).astype(
            np.float32)
    x, w = above_midpoints((1, 256, 5, 5)), above_midpoints((4, 256, 3, 3))
    b = np.zeros((1, 4, 1, 1), dtype=np.float32)
    params = fields(StartPadding=[1, 1], EndPadding=[1, 1])
    assert not np.array_equal(tf32(x), x)
    faulty = oracle.evaluate("CONVOLUTION", (tf32(x), tf32(w), b), "float32", **oracle_params(params))
    assert d3d_failures((x, w, b), params, "float32", faulty) > 0
    correct = oracle.evaluate("CONVOLUTION", (x, w, b), "float32", **oracle_params(params))
    assert d3d_failures((x, w, b), params, "float32", correct) == 0


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_mode_ignored_fails(direction):
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (1, 3, 6, 6)).astype(np.float32)
    w = rng.uniform(-1, 1, (3, 2, 3, 3) if direction == DIRECTIONS[1] else (2, 3, 3, 3)).astype(np.float32)
    b = np.zeros((1, 2, 1, 1), dtype=np.float32)
    params = fields(Mode=MODES[0], Direction=direction)
    ignored = oracle.evaluate("CONVOLUTION", (x, w, b), "float32", **oracle_params({**params, "Mode": MODES[1]}))
    assert d3d_failures((x, w, b), params, "float32", ignored) > 0
