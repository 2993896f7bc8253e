"""The oracles of the activations ELU, GELU, HARD_SIGMOID, HARD_SWISH, IDENTITY, LEAKY_RELU, LINEAR,
PARAMETRIC_SOFTPLUS, RELU, SCALED_TANH, SHRINK, SIGMOID, SOFTPLUS, SOFTSIGN, SWISH, TANH and
THRESHOLDED_RELU against WebNN's test vectors (tests/webnn.py), Python integers and hand-checked edges.
"""
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

import numpy as np
import pytest

import oracle
from conformance.caseset import caseload
from tests import webnn
from tests.high_precision import DIGITS, erf, nearest
from tests.every import Failures

F32 = np.float32

# WebNN file -> (WebNN operator, [(DirectML operator, its fields from WebNN's arguments)]). WebNN's
# arguments are doubles and DirectML's fields float32: the oracle rounds them, as DirectML does.
MAPPING = {
    "elu": [("ACTIVATION_ELU", lambda a: {"Alpha": a.get("alpha", 1.0)})],
    "gelu": [("ACTIVATION_GELU", lambda a: {})],
    "hard_sigmoid": [("ACTIVATION_HARD_SIGMOID", lambda a: {"Alpha": a.get("alpha", 0.2), "Beta": a.get("beta", 0.5)})],
    "hard_swish": [("ACTIVATION_HARD_SWISH", lambda a: {"Alpha": 1 / 6, "Beta": 0.5})],
    "identity": [("ACTIVATION_IDENTITY", lambda a: {})],
    "leaky_relu": [("ACTIVATION_LEAKY_RELU", lambda a: {"Alpha": a.get("alpha", 0.01)})],
    "linear": [("ACTIVATION_LINEAR", lambda a: {"Alpha": a.get("alpha", 1.0), "Beta": a.get("beta", 0.0)})],
    "relu": [("ACTIVATION_RELU", lambda a: {})],
    "sigmoid": [("ACTIVATION_SIGMOID", lambda a: {})],
    "softplus": [("ACTIVATION_SOFTPLUS", lambda a: {"Steepness": 1.0}),
                 ("ACTIVATION_PARAMETRIC_SOFTPLUS", lambda a: {"Alpha": 1.0, "Beta": 1.0})],
    "softsign": [("ACTIVATION_SOFTSIGN", lambda a: {})],
    "tanh": [("ACTIVATION_TANH", lambda a: {}), ("ACTIVATION_SCALED_TANH", lambda a: {"Alpha": 1.0, "Beta": 1.0})],
}


def _params():
    """(WebNN vector, DirectML operator, its fields) of every mapped vector."""
    return [(case, op, fields(case["arguments"])) for name, targets in MAPPING.items()
            for case in webnn.cases(name) for op, fields in targets]


def test_webnn_vectors():
    """Every mapped WebNN vector, one test; a failure names the operator and the vector."""
    failures = Failures()
    for case, op, fields in _params():
        with failures.check(f"{op}: {case['name']}"):
            (operand,) = case["inputs"]
            x, expected = webnn.array(operand), webnn.array(case["expected"])
            actual = oracle.evaluate(op, x, operand["dataType"], **fields)
            assert actual.dtype == expected.dtype and actual.shape == expected.shape
            ok = webnn.within_tolerance(expected, actual, case["tolerance"])
            assert ok.all(), (f"{(~ok).sum()} elements outside WebNN's {case['tolerance']['metricType']} "
                              f"{case['tolerance']['value']}: x={x[~ok][:4]}, oracle={actual[~ok][:4]}, "
                              f"webnn={expected[~ok][:4]}")
    failures.assert_none("WebNN vectors")
    assert failures.checked > 100, failures.checked


def test_every_mapped_operator_has_vectors_in_both_float_types():
    types = {}
    for case, op, _ in _params():
        types.setdefault(op, set()).add(case["inputs"][0]["dataType"])
    assert set(types) == {op for targets in MAPPING.values() for op, _ in targets}
    assert all(found == {"float32", "float16"} for op, found in types.items() if op != "ACTIVATION_LINEAR"), types


# --- independent high precision (tests/high_precision.py): every float16 input, float32 samples ---

def _sigmoid(x: Decimal) -> Decimal:
    return 1 / (1 + (-x).exp())


def _softplus(t: Decimal) -> Decimal:
    return (1 + t.exp()).ln()


def _tanh(x: Decimal) -> Decimal:
    e = (-2 * x).exp()
    return (1 - e) / (1 + e)


HIGH_PRECISION = {  # operator, fields, f(x, fields as float32) in Decimal, input range
    "elu": ("ACTIVATION_ELU", {"Alpha": 0.7}, lambda x, p: x if x >= 0 else p["Alpha"] * (x.exp() - 1), 16),
    "gelu": ("ACTIVATION_GELU", {}, lambda x, p: x / 2 * (1 + erf(x / Decimal(2).sqrt())), 9),
    "sigmoid": ("ACTIVATION_SIGMOID", {}, lambda x, p: _sigmoid(x), 40),
    "swish": ("ACTIVATION_SWISH", {"SigmoidInputScale": 1.702}, lambda x, p: x * _sigmoid(p["SigmoidInputScale"] * x), 40),
    "tanh": ("ACTIVATION_TANH", {}, lambda x, p: _tanh(x), 12),
    "scaled_tanh": ("ACTIVATION_SCALED_TANH", {"Alpha": 1.7159, "Beta": 2 / 3},
                    lambda x, p: p["Alpha"] * _tanh(p["Beta"] * x), 12),
    "softplus": ("ACTIVATION_SOFTPLUS", {"Steepness": 3.0},
                 lambda x, p: _softplus(p["Steepness"] * x) / p["Steepness"], 40),
    "parametric_softplus": ("ACTIVATION_PARAMETRIC_SOFTPLUS", {"Alpha": -0.5, "Beta": 0.25},
                            lambda x, p: p["Alpha"] * _softplus(p["Beta"] * x), 90),
    "softsign": ("ACTIVATION_SOFTSIGN", {}, lambda x, p: x / (1 + abs(x)), 1e6),
    "hard_swish": ("ACTIVATION_HARD_SWISH", {"Alpha": 1 / 6, "Beta": 0.5},
                   lambda x, p: x * max(Decimal(0), min(p["Alpha"] * x + p["Beta"], Decimal(1))), 5),
    "linear": ("ACTIVATION_LINEAR", {"Alpha": -7.4, "Beta": 5.9}, lambda x, p: p["Alpha"] * x + p["Beta"], 8e3),
}


def _inputs(dtype: str, reach: float) -> np.ndarray:
    if dtype == "float16":
        every = np.arange(65536, dtype=np.uint16).view(np.float16)
        return every[np.isfinite(every) & (np.abs(every.astype(np.float64)) <= reach)][::7]  # every 7th in range
    rng = np.random.default_rng(7)
    return np.concatenate([rng.uniform(-reach, reach, 300), rng.uniform(-1, 1, 100) * 1e-3]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_oracle_is_the_exactly_rounded_value(dtype):
    """Every operator of HIGH_PRECISION, one test a type; a failure names the operator."""
    failures = Failures()
    for name in sorted(HIGH_PRECISION):
        op, fields, exact, reach = HIGH_PRECISION[name]
        with failures.check(f"{name} ({op}) {dtype}"):
            x = _inputs(dtype, reach)
            as_decimal = {k: Decimal(float(F32(v))) for k, v in fields.items()}  # a FLOAT field holds a float32
            out = oracle.evaluate(op, x, dtype, **fields)
            with localcontext() as context:
                context.prec = DIGITS
                expected = [nearest(exact(Decimal(float(v)), as_decimal), dtype) for v in x]
            wrong = [(float(v), float(o), e) for v, o, e in zip(x, out, expected) if float(o) != e]
            assert not wrong, f"(x, oracle, exact) {wrong[:5]}"
    failures.assert_none("operators whose oracle is not the exactly rounded value")


# --- integers against Python integers -------------------------------------------------------

def _extremes(dtype):
    info = np.iinfo(dtype)
    values = {info.min, info.min + 1, -101, -3, -2, -1, 0, 1, 2, 3, 101, info.max - 1, info.max}
    return sorted(v for v in values if info.min <= v <= info.max)


@pytest.mark.parametrize("dtype", ["int32", "int16", "int8"])
def test_relu_of_integers_is_exact(dtype):
    values = _extremes(dtype)
    out = oracle.evaluate("ACTIVATION_RELU", np.array(values, dtype=dtype), dtype)
    assert out.dtype == np.dtype(dtype) and out.tolist() == [max(0, v) for v in values]


@pytest.mark.parametrize("dtype", ["int32", "int16", "int8", "uint32", "uint16", "uint8"])
@pytest.mark.parametrize("bias, threshold", [(0.0, 0.5), (2.0, 3.0), (0.7, 1.5), (-2.5, -1.9), (-100.0, 1.0),
                                             (100.0, 1.0), (1e10, 1e10), (0.5, 0.0)])
def test_shrink_of_integers_is_exact_then_rounded_half_even_and_saturated(dtype, bias, threshold):
    info = np.iinfo(dtype)
    b, t = Decimal(float(F32(bias))), Decimal(float(F32(threshold)))

    def expected(v):
        exact = v - b if v > t else v + b if v < -t else Decimal(0)
        return min(max(int(exact.quantize(Decimal(1), rounding=ROUND_HALF_EVEN)), info.min), info.max)

    values = _extremes(dtype)
    out = oracle.evaluate("ACTIVATION_SHRINK", np.array(values, dtype=dtype), dtype, Bias=bias, Threshold=threshold)
    assert out.dtype == np.dtype(dtype) and out.tolist() == [expected(v) for v in values]


def test_shrink_of_integers_rounds_ties_to_even_and_saturates():
    out = oracle.evaluate("ACTIVATION_SHRINK", np.array([54, 55, 2, 127, -128], np.int8), "int8", Bias=-2.5, Threshold=1.5)
    assert out.tolist() == [56, 58, 4, 127, -128]  # 56.5 -> 56, 57.5 -> 58, 4.5 -> 4; 129.5 and -130.5 saturate


# --- hand-checked edges ---------------------------------------------------------------------

def _f32(values):
    return np.array(values, F32)


class TestEdges:
    def test_nan_follows_each_formula(self):
        nan = _f32([np.nan])
        assert oracle.evaluate("ACTIVATION_RELU", nan, "float32").tolist() == [0.0]  # Direct3D max
        assert np.isnan(oracle.evaluate("ACTIVATION_RELU", nan, "float32", nan_rule="propagate")).all()
        assert oracle.evaluate("ACTIVATION_HARD_SIGMOID", nan, "float32").tolist() == [1.0]  # min(NaN, 1) = 1
        assert oracle.evaluate("ACTIVATION_THRESHOLDED_RELU", nan, "float32").tolist() == [0.0]  # NaN > Alpha: false
        assert oracle.evaluate("ACTIVATION_SHRINK", nan, "float32").tolist() == [0.0]  # neither branch
        for op in ("ACTIVATION_ELU", "ACTIVATION_GELU", "ACTIVATION_HARD_SWISH", "ACTIVATION_IDENTITY",
                   "ACTIVATION_LEAKY_RELU", "ACTIVATION_SIGMOID", "ACTIVATION_TANH", "ACTIVATION_SWISH"):
            assert np.isnan(oracle.evaluate(op, nan, "float32")).all(), op

    def test_infinity_times_zero_is_nan_as_written(self):
        for op in ("ACTIVATION_GELU", "ACTIVATION_HARD_SWISH", "ACTIVATION_SWISH"):
            assert np.isnan(oracle.evaluate(op, _f32([-np.inf]), "float32")).all(), op
        assert np.isnan(oracle.evaluate("ACTIVATION_SOFTSIGN", _f32([np.inf, -np.inf]), "float32")).all()
        assert oracle.evaluate("ACTIVATION_TANH", _f32([-np.inf, -50.0]), "float32").tolist() == [-1.0, -1.0]

    def test_no_cancellation_near_zero(self):
        tiny = _f32([-1e-30])
        assert oracle.evaluate("ACTIVATION_ELU", tiny, "float32", Alpha=2.0).tolist() == [float(F32(-2e-30))]
        assert oracle.evaluate("ACTIVATION_TANH", tiny, "float32").tolist() == [float(tiny[0])]
        assert oracle.evaluate("ACTIVATION_GELU", tiny, "float32").tolist() == [float(F32(-5e-31))]

    def test_no_overflow_inside_the_formulas(self):
        big = _f32([100.0, 1000.0])
        assert oracle.evaluate("ACTIVATION_SOFTPLUS", big, "float32").tolist() == [100.0, 1000.0]
        assert oracle.evaluate("ACTIVATION_SWISH", big, "float32").tolist() == [100.0, 1000.0]
        # exp(-x) overflows float32 at -88.7; sigmoid(-100) = e^-100 is still a float32 subnormal
        assert oracle.evaluate("ACTIVATION_SIGMOID", _f32([-100.0]), "float32").tolist() == [float(F32(np.exp(-100.0)))]

    def test_signed_zeros(self):
        zeros = _f32([0.0, -0.0])
        assert np.signbit(oracle.evaluate("ACTIVATION_RELU", zeros, "float32")).tolist() == [False, False]
        assert np.signbit(oracle.evaluate("ACTIVATION_LEAKY_RELU", zeros, "float32")).tolist() == [False, True]
        assert np.signbit(oracle.evaluate("ACTIVATION_IDENTITY", zeros, "float32")).tolist() == [False, True]

    def test_thresholded_relu_compares_with_the_float32_alpha(self):
        # float16(0.9999) is 1.0: a float16 1.0 is above the float32 Alpha, so it passes through.
        out = oracle.evaluate("ACTIVATION_THRESHOLDED_RELU", np.array([1.0, 0.9995], np.float16), "float16", Alpha=0.9999)
        assert out.tolist() == [1.0, 0.0]

    def test_shrink_takes_the_first_branch_when_they_overlap(self):
        out = oracle.evaluate("ACTIVATION_SHRINK", _f32([0.0, 2.0, -3.0]), "float32", Bias=0.25, Threshold=-1.0)
        assert out.tolist() == [-0.25, 1.75, -2.75]

    def test_hard_sigmoid_clamps_to_zero_and_one(self):
        out = oracle.evaluate("ACTIVATION_HARD_SIGMOID", _f32([-3.0, -2.5, 0.0, 2.5, 3.0]), "float32")
        assert out.tolist() == [0.0, 0.0, 0.5, 1.0, 1.0]


def test_steepness_below_one_requires_feature_level_6_4():
    by_steepness = {}
    for case in caseload.load_paths([caseload.SHIPPED_CASES / "activation_softplus.yaml"]):
        by_steepness.setdefault(case.params["Steepness"], set()).add(case.required_level)
    assert by_steepness[0.5] == by_steepness[0.125] == {"6_4"}
    assert by_steepness[1.0] == {"1_0", "2_0", "3_0"}
