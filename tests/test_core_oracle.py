"""The oracle against hand-checked values and an independent high-precision computation."""
import math
from decimal import Decimal, getcontext

import numpy as np
import pytest

import oracle
from tests.high_precision import nearest

F32 = np.float32


def f32(value):
    return float(np.float32(value))


class TestHandChecked:
    def test_celu_negative_is_alpha_expm1(self):
        out = oracle.evaluate("ACTIVATION_CELU", np.array([-1.0, -2.0], F32), "float32", Alpha=1.0)
        assert out.dtype == np.float32
        assert out.tolist() == [f32(math.expm1(-1.0)), f32(math.expm1(-2.0))]

    def test_celu_alpha_scales_both_inside_and_outside(self):
        out = oracle.evaluate("ACTIVATION_CELU", np.array([-1.0, 3.0], F32), "float32", Alpha=2.0)
        assert out.tolist() == [f32(2.0 * math.expm1(-0.5)), 3.0]

    def test_celu_default_alpha_is_one(self):
        x = np.array([-0.75], F32)
        assert oracle.evaluate("ACTIVATION_CELU", x, "float32").tolist() == [f32(math.expm1(-0.75))]

    def test_celu_nan_follows_direct3d_min_max(self):
        x = np.array([np.nan], F32)
        assert oracle.evaluate("ACTIVATION_CELU", x, "float32").tolist() == [0.0]
        assert np.isnan(oracle.evaluate("ACTIVATION_CELU", x, "float32", nan_rule="propagate")).all()

    def test_scaled_elu_uses_float32_fields(self):
        gamma, alpha = float(F32(1.0507)), float(F32(1.6732))
        out = oracle.evaluate("ACTIVATION_SCALED_ELU", np.array([1.0, -1.0, 0.0], F32), "float32")
        assert out.tolist() == [f32(gamma), f32(gamma * alpha * math.expm1(-1.0)), 0.0]

    def test_scaled_elu_tiny_negative_input_keeps_precision(self):
        # Alpha * e^x - Alpha computed literally in float64 would give 0 here.
        x = np.array([-1e-30], F32)
        expected = f32(float(F32(1.0507)) * float(F32(1.6732)) * float(x[0]))
        assert oracle.evaluate("ACTIVATION_SCALED_ELU", x, "float32").tolist() == [expected]

    def test_clip_min_above_max_returns_min(self):
        out = oracle.evaluate("ELEMENT_WISE_CLIP", np.array([-5, 0, 5], F32), "float32", Min=2.0, Max=-1.0)
        assert out.tolist() == [2.0, 2.0, 2.0]

    def test_clip_nan_goes_to_max_under_direct3d_rule(self):
        x = np.array([np.nan], F32)
        assert oracle.evaluate("ELEMENT_WISE_CLIP", x, "float32", Min=-1.0, Max=3.0).tolist() == [3.0]
        assert np.isnan(oracle.evaluate("ELEMENT_WISE_CLIP", x, "float32", Min=-1.0, Max=3.0,
                                        nan_rule="propagate")).all()

    def test_clip_integer_bounds_truncate_toward_zero(self):
        x = np.array([-10, -3, 0, 5, 6, 127], np.int8)
        out = oracle.evaluate("ELEMENT_WISE_CLIP", x, "int8", Min=-3.7, Max=5.9)
        assert out.dtype == np.int8 and out.tolist() == [-3, -3, 0, 5, 5, 5]

    def test_clip_bounds_outside_unsigned_range_saturate(self):
        x = np.array([0, 7, 255], np.uint8)
        assert oracle.evaluate("ELEMENT_WISE_CLIP", x, "uint8", Min=-3.7, Max=1e30).tolist() == [0, 7, 255]

    def test_clip_float16_bound_rounds_half_to_even(self):
        # 2049 lies halfway between float16 2048 and 2050: the even one, 2048, is the bound.
        out = oracle.evaluate("ELEMENT_WISE_CLIP", np.array([4000.0], np.float16), "float16", Max=2049.0)
        assert out.tolist() == [2048.0]

    def test_clip_int64_is_exact_at_the_extremes(self):
        x = np.array([2**63 - 1, -2**63, 2**53 + 1], np.int64)
        out = oracle.evaluate("ELEMENT_WISE_CLIP", x, "int64", Min=-1e30, Max=1e30)
        assert out.tolist() == [2**63 - 1, -2**63, 2**53 + 1]

    def test_clip_scale_bias_applies_before_clipping(self):
        out = oracle.evaluate("ELEMENT_WISE_CLIP", np.array([1.0, 3.0], F32), "float32",
                              Min=0.0, Max=4.0, ScaleBias={"Scale": 2.0, "Bias": -0.5})
        assert out.tolist() == [1.5, 4.0]

    def test_clip_scale_bias_on_integers_truncates_toward_zero(self):
        x = np.array([2, -1, 1], np.int32)
        out = oracle.evaluate("ELEMENT_WISE_CLIP", x, "int32", Min=-10.0, Max=10.0,
                              ScaleBias={"Scale": 2.0, "Bias": -0.5})
        assert out.tolist() == [3, -2, 1]

    def test_pow_negative_base_integral_exponent(self):
        out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", np.array([-2.0, -0.5], F32), "float32", Exponent=3.0)
        assert out.tolist() == [-8.0, -0.125]

    def test_pow_negative_base_non_integral_exponent_is_nan(self):
        out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", np.array([-4.0, 4.0], F32), "float32", Exponent=0.5)
        assert np.isnan(out[0]) and out[1] == 2.0

    def test_pow_exponent_is_a_float32_field(self):
        out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", np.array([10.0], F32), "float32", Exponent=0.1)
        assert out.tolist() == [f32(10.0 ** float(F32(0.1)))]

    def test_pow_scale_bias(self):
        out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", np.array([1.0], F32), "float32", Exponent=2.0,
                              ScaleBias={"Scale": 3.0, "Bias": 1.0})
        assert out.tolist() == [16.0]

    @pytest.mark.parametrize("exponent,expected", [(0.5, 0.0), (-0.5, np.inf), (2.0, 0.0), (3.0, -0.0),
                                                   (-1.0, -np.inf), (-2.0, np.inf), (0.0, 1.0)])
    def test_pow_of_negative_zero_follows_ieee(self, exponent, expected):
        out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", np.array([-0.0], F32), "float32", Exponent=exponent)
        assert out.tolist() == [expected] and np.signbit(out[0]) == np.signbit(expected)

    def test_pow_overflow_goes_to_inf(self):
        out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", np.array([1e20], F32), "float32", Exponent=2.0)
        assert out.tolist() == [np.inf]


class TestRounding:
    def test_float32_ties_to_even(self):
        x = np.array([1 + 2**-24, 1 + 3 * 2**-24], np.float64)
        assert oracle.round_to(x, "float32").tolist() == [1.0, 1 + 2**-22]

    def test_float16_subnormal_and_overflow(self):
        x = np.array([2**-25, 2**-25 * 1.0000001, 65520.0, 65519.99], np.float64)
        assert oracle.round_to(x, "float16").tolist() == [0.0, 2**-24, np.inf, 65504.0]


class TestEntryPoint:
    def test_accepts_directml_spellings(self):
        x = np.array([-1.0], F32)
        a = oracle.evaluate("DML_ACTIVATION_CELU_OPERATOR_DESC", x, "float32")
        assert a.tolist() == oracle.evaluate("ACTIVATION_CELU", x, "float32").tolist()

    def test_unknown_operator_names_the_known_ones(self):
        with pytest.raises(KeyError, match="ACTIVATION_CELU"):
            oracle.evaluate("ACTIVATION_NOT_AN_OPERATOR", np.zeros(1, F32), "float32")

    def test_unknown_parameter_is_an_error(self):
        with pytest.raises(TypeError, match="Beta"):
            oracle.evaluate("ACTIVATION_CELU", np.zeros(1, F32), "float32", Beta=1.0)

    @pytest.mark.parametrize("dtype", ["float32", "float16"])
    def test_result_has_the_target_type(self, dtype):
        out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", np.ones(3, dtype), dtype, Exponent=2.0)
        assert out.dtype == np.dtype(dtype) and out.shape == (3,)


# --- independent high precision: Python's decimal at 60 digits, rounded to the nearest float ---

getcontext().prec = 60


def _decimal_celu(x, alpha):
    x, alpha = Decimal(x), Decimal(alpha)
    return max(Decimal(0), x) + min(Decimal(0), alpha * ((x / alpha).exp() - 1))


def _decimal_scaled_elu(x, alpha, gamma):
    x, alpha, gamma = Decimal(x), Decimal(alpha), Decimal(gamma)
    return gamma * x if x > 0 else gamma * (alpha * x.exp() - alpha)


def _decimal_pow(x, exponent):
    return Decimal(x) ** Decimal(exponent)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("float16")])
def test_celu_matches_high_precision(dtype):
    rng = np.random.default_rng(1)
    x = rng.uniform(-12, 6, 400).astype(dtype)
    alpha = float(F32(0.7))
    out = oracle.evaluate("ACTIVATION_CELU", x, str(dtype), Alpha=0.7)
    expected = [nearest(_decimal_celu(float(v), alpha), dtype) for v in x]
    assert out.astype(np.float64).tolist() == expected


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("float16")])
def test_scaled_elu_matches_high_precision(dtype):
    rng = np.random.default_rng(2)
    x = rng.uniform(-10, 4, 400).astype(dtype)
    alpha, gamma = float(F32(1.6732)), float(F32(1.0507))
    out = oracle.evaluate("ACTIVATION_SCALED_ELU", x, str(dtype))
    expected = [nearest(_decimal_scaled_elu(float(v), alpha, gamma), dtype) for v in x]
    assert out.astype(np.float64).tolist() == expected


@pytest.mark.parametrize("exponent", [0.5, 1.5, -1.0, 3.0, 2.2])
def test_pow_matches_high_precision(exponent):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.01, 8, 300).astype(np.float32)
    out = oracle.evaluate("ELEMENT_WISE_CONSTANT_POW", x, "float32", Exponent=exponent)
    e = float(F32(exponent))
    expected = [nearest(_decimal_pow(float(v), e), np.dtype("float32")) for v in x]
    assert out.astype(np.float64).tolist() == expected


def test_signed_zeros_through_min_and_max_do_not_depend_on_array_position():
    from oracle.minmax import dml_max, dml_min
    a = np.array([0.0, -0.0, 0.0, -0.0] * 9)
    b = np.array([0.0, 0.0, -0.0, -0.0] * 9)
    assert np.signbit(dml_max(a, b)).tolist() == [False, False, False, True] * 9
    assert np.signbit(dml_min(a, b)).tolist() == [False, True, True, True] * 9
    clipped = oracle.evaluate("ELEMENT_WISE_CLIP", np.array([np.nan, -0.0], F32), "float32", Min=-0.0, Max=0.0)
    assert clipped.tolist() == [0.0, 0.0] and not np.signbit(clipped[0])
