"""The normalizations (MEAN_VARIANCE_NORMALIZATION, 1 and 2, BATCH_NORMALIZATION, BATCH_NORMALIZATION_TRAINING,
LOCAL_RESPONSE_NORMALIZATION, LP_NORMALIZATION): the oracles against values worked by hand from the pages'
formulas (the pages give no examples), simulated correct devices passing the sound d3d bound on >= 10^5 outputs
(Mean and Variance summed sequentially, pairwise, blocked and strided, by two passes or one, rounding or
truncating, / sqrt or * rsqrt; batch normalization's per-channel factor precomputed, with a fused mad or not;
float16 summed in float32), and the faults caught: Epsilon ignored where the variance lies far below it, float16
summed in half without ALLOW_HALF_PRECISION_COMPUTATION, the sample variance (n - 1) for the population's, LRN's
window ignored, LP's P ignored."""
import sys
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import specs  # noqa: F401  (the registry before the judge, as the CLI imports them)
from conformance.judge.accumulated import compare_accumulated
from conformance.specs import get
from conformance.specs.base import NotReachable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from accumulation_devices import rounded, store, sum_rows  # noqa: E402

MVN1, BN, BNT = "MEAN_VARIANCE_NORMALIZATION1", "BATCH_NORMALIZATION", "BATCH_NORMALIZATION_TRAINING"
LRN, LP = "LOCAL_RESPONSE_NORMALIZATION", "LP_NORMALIZATION"
HALF = "ALLOW_HALF_PRECISION_COMPUTATION"


def fields(op, **given) -> dict:
    return {**get(op).defaults(), **given}


def failed(op, inputs, params, actual, dtype="float32", output=None) -> int:
    """How many elements the d3d model rejects (compare_accumulated's verdict, the judge's own)."""
    expected = oracle.evaluate(op, inputs if len(inputs) > 1 else inputs[0], dtype, **params)
    reference = oracle.reference(op, inputs if len(inputs) > 1 else inputs[0], dtype, **params)
    if output is not None:
        expected, reference = expected[output], reference[output]
    result = compare_accumulated(get(op), inputs, params, dtype, expected, reference, np.asarray(actual),
                                 ulp_tolerance=0, output=output or 0)
    return result.d3d["failed"]


def mvn_device(x, epsilon, order="sequential", rounding="nearest", precision="float32", one_pass=False,
               use_rsqrt=True, sample=False):
    """Mean and Variance of each row of x (float64 values of the tensor type), every operation rounded once to
    precision; sample: divides the squares' sum by n - 1 (a fault)."""
    def r(v):
        return rounded(v, precision, rounding)
    n = x.shape[1]
    mean = r(sum_rows(x, order, precision, rounding) / n)[:, None]
    centred = r(x - mean)
    if one_pass:
        variance = r(r(sum_rows(r(x * x), order, precision, rounding) / n)[:, None] - r(mean * mean))
    else:
        variance = r(sum_rows(r(centred * centred), order, precision, rounding) / (n - 1 if sample else n))[:, None]
    spread = r(variance + epsilon)
    if use_rsqrt:
        return r(centred * r(1 / np.sqrt(spread))), mean, variance
    return r(centred / r(np.sqrt(spread))), mean, variance


# ---- the oracles, against the pages' formulas worked by hand --------------------------------------------------

def test_mean_variance_normalization_oracles_by_hand():
    x = np.array([[1.0, 2, 3, 4]])
    root = np.sqrt(1.25)
    got = oracle.evaluate(MVN1, x, "float32", Axes=[1], Epsilon=0, ScaleTensor="absent", BiasTensor="absent")
    np.testing.assert_allclose(got, np.float32([[-1.5, -0.5, 0.5, 1.5]]) / np.float32(root), rtol=1e-7)
    got = oracle.evaluate(MVN1, (x, np.array([[2.0]]), np.array([[1.0]])), "float32", Axes=[1], NormalizeVariance=0)
    np.testing.assert_array_equal(got, [[-2, 0, 2, 4]])  # Scale * (Input - Mean) + Bias
    got = oracle.evaluate("MEAN_VARIANCE_NORMALIZATION2", x, "float32", Axes=[1], UseMean=0, Epsilon=0,
                          ScaleTensor="absent", BiasTensor="absent")  # RMS: x / sqrt(mean of x^2 = 7.5)
    np.testing.assert_allclose(got, x / np.sqrt(7.5), rtol=1e-7)
    image = np.array([[[[1.0, 3]], [[2, 6]]]])  # channel 0: mean 2, variance 1; channel 1: mean 4, variance 4
    got = oracle.evaluate("MEAN_VARIANCE_NORMALIZATION", image, "float32", CrossChannel=0, Epsilon=0,
                          ScaleTensor="absent", BiasTensor="absent")
    np.testing.assert_array_equal(got.reshape(-1), [-1, 1, -1, 1])
    got = oracle.evaluate(MVN1, x, "float32", Axes=[1], Epsilon=0, ScaleTensor="absent", BiasTensor="absent",
                          FusedActivation={"Type": "ACTIVATION_RELU"})
    np.testing.assert_allclose(got, np.maximum(np.float32([[-1.5, -0.5, 0.5, 1.5]]) / np.float32(root), 0), rtol=1e-7)


def test_batch_normalization_oracles_by_hand():
    one = lambda v: np.array([[v]])  # noqa: E731
    got = oracle.evaluate(BN, (one(2.0), one(1.0), one(3.0), one(3.0), one(0.5)), "float32", Epsilon=1)
    assert got.item() == 2.0  # 3 * (2 - 1) / sqrt(3 + 1) + 0.5
    x = np.array([[1.0], [3.0]])  # statistics over dimension 0, where Scale's size is 1: mean 2, variance 1
    output, mean, variance = oracle.evaluate(BNT, (x, one(2.0), one(0.0), np.array([[1.0], [1.0]])), "float32",
                                             Epsilon=0)
    np.testing.assert_array_equal(output, [[-1], [3]])  # 2 * (x - 2) / 1 + 0 + FusedAdd 1
    assert (mean.item(), variance.item()) == (2.0, 1.0)


def test_local_response_and_lp_normalization_oracles_by_hand():
    x = np.array([1.0, 2, 3]).reshape(1, 3, 1, 1)
    got = oracle.evaluate(LRN, x, "float32", CrossChannel=1, LocalSize=3, Alpha=3, Beta=1, Bias=1)
    np.testing.assert_allclose(got.reshape(-1), [1 / 6, 2 / 15, 3 / 14], rtol=1e-7)  # windows 1+4, 1+4+9, 4+9
    got = oracle.evaluate(LRN, x, "float32", CrossChannel=1, LocalSize=2, Alpha=2, Beta=1, Bias=1)
    np.testing.assert_allclose(got.reshape(-1), [1 / 6, 2 / 14, 3 / 10], rtol=1e-7)  # even: c to c + 1
    image = np.array([1.0, 2, 3, 4]).reshape(1, 1, 2, 2)  # within the channel: every 3x3 window holds all four
    got = oracle.evaluate(LRN, image, "float32", CrossChannel=0, LocalSize=3, Alpha=3, Beta=1, Bias=1)
    np.testing.assert_allclose(got.reshape(-1), [1 / 31, 2 / 31, 3 / 31, 4 / 31], rtol=1e-7)
    pair = np.array([[3.0, 4.0]])
    np.testing.assert_allclose(oracle.evaluate(LP, pair, "float32", Axis=1, P=2, Epsilon=0), [[0.6, 0.8]], rtol=1e-7)
    np.testing.assert_allclose(oracle.evaluate(LP, pair, "float32", Axis=1, P=1, Epsilon=0), [[3 / 7, 4 / 7]],
                               rtol=1e-7)


# ---- sound: simulated correct devices pass -------------------------------------------------------------------

@pytest.mark.parametrize("order,rounding,one_pass,use_rsqrt", [
    ("sequential", "zero", False, True), ("pairwise", "nearest", True, False),
    ("blocked256", "nearest", False, False), ("strided32", "zero", True, True)])
def test_correct_float32_devices_pass_on_102400_outputs(order, rounding, one_pass, use_rsqrt):
    x = np.random.default_rng(26).uniform(-1, 2, (25, 4096)).astype(np.float32)
    params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent")
    y, _, _ = mvn_device(x.astype(np.float64), float(np.float32(params["Epsilon"])), order, rounding,
                         one_pass=one_pass, use_rsqrt=use_rsqrt)
    assert failed(MVN1, (x,), params, y.astype(np.float32)) == 0


@pytest.mark.parametrize("association", ["factor", "fused", "page", "folded", "folded-fused"])
def test_correct_batch_normalization_devices_pass_on_131072_outputs(association):
    """(x - Mean) * (Scale * rsqrt(Variance + Epsilon)) + Bias with the per-channel factor precomputed (with a
    fused mad or not), in the page's order, or folded into x * f + (Bias - Mean * f) (DirectML on lavapipe),
    every operation truncated."""
    rng = np.random.default_rng(6)
    x = rng.uniform(-10, 10, (8, 64, 16, 16)).astype(np.float32)
    mean, variance, scale, bias = (rng.uniform(lo, hi, (1, 64, 1, 1)).astype(np.float32)
                                   for lo, hi in ((-2, 2), (0, 4), (-2, 2), (-1, 1)))
    params = fields(BN)

    def r(v):
        return rounded(v, "float32", "zero")
    d, m, v, s, b = (a.astype(np.float64) for a in (x, mean, variance, scale, bias))
    inverse = r(1 / np.sqrt(r(v + np.float32(params["Epsilon"]))))
    y = {"factor": lambda: r(r(r(d - m) * r(s * inverse)) + b), "fused": lambda: r(r(d - m) * r(s * inverse) + b),
         "page": lambda: r(r(s * r(r(d - m) * inverse)) + b),
         "folded": lambda: r(r(d * r(s * inverse)) + r(b - r(m * r(s * inverse)))),
         "folded-fused": lambda: r(d * r(s * inverse) + r(b - r(m * r(s * inverse))))}[association]()
    assert failed(BN, (x, mean, variance, scale, bias), params, y.astype(np.float32)) == 0


def test_float16_summed_in_float32_passes_and_in_half_only_with_the_permission():
    x = np.random.default_rng(16).uniform(0.5, 2, (4, 4096)).astype(np.float16)
    epsilon = float(np.float32(1e-5))
    in_float = store(mvn_device(x.astype(np.float64), epsilon)[0], "float16")
    in_half = store(mvn_device(x.astype(np.float64), epsilon, precision="float16")[0], "float16")
    for flags in ("NONE", HALF):
        params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent", ExecutionFlags=flags)
        assert failed(MVN1, (x,), params, in_float, "float16") == 0, flags
    params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent", ExecutionFlags=HALF)
    assert failed(MVN1, (x,), params, in_half, "float16") == 0
    # sharp: without the permission, half sums of 4096 terms are caught
    params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent")
    assert failed(MVN1, (x,), params, in_half, "float16") == x.size


# ---- sharp: the faults are caught ----------------------------------------------------------------------------

def test_epsilon_ignored_is_caught_where_the_variance_is_far_below_it():
    x = np.random.default_rng(5).uniform(-1e-4, 1e-4, (64, 64)).astype(np.float32)
    params = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent")
    kept = mvn_device(x.astype(np.float64), float(np.float32(params["Epsilon"])))[0].astype(np.float32)
    ignored = mvn_device(x.astype(np.float64), 0.0)[0].astype(np.float32)
    assert failed(MVN1, (x,), params, kept) == 0
    assert failed(MVN1, (x,), params, ignored) == x.size
    # batch normalization: a zero variance divided by sqrt(Epsilon), not by 0
    ones = lambda v: np.full((1, 4, 1, 1), v, np.float32)  # noqa: E731
    data = np.random.default_rng(7).uniform(-1, 1, (2, 4, 3, 3)).astype(np.float32)
    inputs = (data, ones(0.25), ones(0.0), ones(1.0), ones(0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        no_epsilon = (data.astype(np.float64) - 0.25) / np.sqrt(0.0)
        assert failed(BN, inputs, fields(BN, Epsilon=0.001), no_epsilon.astype(np.float32)) == data.size


def test_the_sample_variance_is_caught():
    """OutputVariance and Output: sum / (n - 1) in place of the population's sum / n, over 8 terms."""
    x = np.random.default_rng(8).uniform(-3, 3, (8, 3)).astype(np.float32)
    scale, bias = np.ones((1, 3), np.float32), np.zeros((1, 3), np.float32)
    params = fields(BNT, FusedAddTensor="absent")
    inputs = (x, scale, bias)
    epsilon = float(np.float32(params["Epsilon"]))
    for sample in (False, True):
        y, mean, variance = mvn_device(x.T.astype(np.float64), epsilon, sample=sample)
        wrong = [failed(BNT, inputs, params, a.astype(np.float32), output=k)
                 for k, a in enumerate((y.T, mean.T, variance.T))]
        assert wrong == ([0, 0, 0] if not sample else [x.size, 0, 3]), (sample, wrong)


def test_lrn_window_and_lp_order_ignored_are_caught():
    x = np.random.default_rng(9).uniform(-10, 10, (2, 6, 4, 5)).astype(np.float32)
    for cross in (1, 0):
        params = fields(LRN, CrossChannel=cross, LocalSize=3, Alpha=1.0)
        right = oracle.evaluate(LRN, x, "float32", **params)
        only_itself = oracle.evaluate(LRN, x, "float32", **{**params, "LocalSize": 1, "Alpha": 1.0 / 3})
        assert failed(LRN, (x,), params, right) == 0
        assert failed(LRN, (x,), params, only_itself) > 0.9 * x.size, cross
    params = fields(LP, Axis=3, P=2)
    assert failed(LP, (x,), params, oracle.evaluate(LP, x, "float32", **params)) == 0
    assert failed(LP, (x,), params, oracle.evaluate(LP, x, "float32", **{**params, "P": 1})) == x.size


def test_correct_lrn_and_lp_devices_pass_on_100352_outputs():
    """LRN's window sums and LP's norms in float32 (sequential, truncating), the power as exp2(Beta * log2(base))
    rounded once per operation, the division by the power or the product with its inverse."""
    x = np.random.default_rng(12).uniform(-10, 10, (2, 64, 28, 28)).astype(np.float32)

    def r(v):
        return rounded(v, "float32", "zero")
    d = x.astype(np.float64)
    for cross in (1, 0):
        params = fields(LRN, CrossChannel=cross, LocalSize=5, Alpha=0.5, Beta=0.75, Bias=2.0)
        axis_terms = np.moveaxis(r(d * d), 1, -1) if cross else None
        if cross:  # each channel window summed left to right
            padded = np.pad(axis_terms, [(0, 0)] * 3 + [(2, 2)])
            windows = np.stack([padded[..., c:c + 5] for c in range(64)], axis=-2).reshape(-1, 5)
            sums = np.moveaxis(sum_rows(windows, "sequential", "float32", "zero").reshape(axis_terms.shape), -1, 1)
        else:  # the 5 x 5 window of the channel, row by row
            padded = np.pad(r(d * d), [(0, 0), (0, 0), (2, 2), (2, 2)])
            windows = np.stack([padded[:, :, i:i + 5, j:j + 5].reshape(2, 64, 25)
                                for i in range(28) for j in range(28)], axis=-2).reshape(-1, 25)
            sums = sum_rows(windows, "sequential", "float32", "zero").reshape(2, 64, 28, 28)
        base = r(2.0 + r(np.float32(0.5 / 5) * sums))
        power = r(np.exp2(r(0.75 * r(np.log2(base)))))
        assert failed(LRN, (x,), params, r(d / power).astype(np.float32)) == 0, cross
    params = fields(LP, Axis=1, P=2)
    norm = r(np.sqrt(sum_rows(np.moveaxis(r(d * d), 1, -1).reshape(-1, 64), "pairwise", "float32", "zero")))
    norm = np.moveaxis(norm.reshape(2, 28, 28, 1), -1, 1)
    assert failed(LP, (x,), params, r(d / r(norm + np.float32(params["Epsilon"]))).astype(np.float32)) == 0


def test_the_mvn_onnx_route_is_the_node_whose_formula_is_the_case_s():
    spec = get(MVN1)
    per_channel = (np.zeros((2, 3, 4, 5)), np.ones((1, 3, 1, 1)), np.zeros((1, 3, 1, 1)))
    params = fields(MVN1, Axes=[2, 3])
    assert spec.to_onnx("float32", params).op_type == "InstanceNormalization"
    assert spec.onnx_undefined(per_channel, "float32", params) is None
    assert spec.onnx_shapes([a.shape for a in per_channel], params) == ((2, 3, 4, 5), (3,), (3,))
    assert spec.onnx_undefined((per_channel[0], np.ones((1, 1, 4, 5)), np.ones((1, 1, 4, 5))), "float32", params)
    trailing = (np.zeros((1, 128, 768)), np.ones((1, 1, 768)), np.zeros((1, 1, 768)))
    layer = fields(MVN1, Axes=[2])
    node = spec.to_onnx("float32", layer)
    assert (node.op_type, node.attributes["axis"]) == ("LayerNormalization", 2)
    assert spec.onnx_shapes([a.shape for a in trailing], layer) == ((1, 128, 768), (768,), (768,))
    bare = fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent", Epsilon=0)
    assert spec.to_onnx("float32", bare).op_type == "MeanVarianceNormalization"
    for refused in (fields(MVN1, Axes=[1], ScaleTensor="absent", BiasTensor="absent"),  # an epsilon ONNX lacks
                    fields(MVN1, Axes=[2, 3], NormalizeVariance=0),
                    fields(MVN1, Axes=[2, 3], FusedActivation={"Type": "ACTIVATION_RELU"})):
        with pytest.raises(NotReachable):
            spec.to_onnx("float32", refused)
