"""The oracles of the one-input element-wise operators IDENTITY, ABS, ACOS, ACOSH, ASIN, ASINH, ATAN,
ATANH, CEIL, CLIP1, COS, COSH, ERF, EXP, FLOOR and IS_INFINITY against WebNN's test vectors, Python
integers and hand-checked edges.

tests/data/webnn/*.json are WebNN's conformance vectors (web-platform-tests/wpt at 0556bbc4,
webnn/conformance_tests/*.https.any.js, BSD-3-Clause), each case with the tolerance WebNN judges it
by: ULP (measured here with the harness's own ULP distance, sign included) or ATOL.
"""
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import specs
from conformance.judge.ulp import ulp_distance
from every import Failures

WEBNN = Path(__file__).parent / "data" / "webnn"
# WebNN operator -> DirectML operator; the semantics agree on every case of these files.
WEBNN_TO_DML = {"abs": "ELEMENT_WISE_ABS", "ceil": "ELEMENT_WISE_CEIL", "cos": "ELEMENT_WISE_COS",
                "erf": "ELEMENT_WISE_ERF", "exp": "ELEMENT_WISE_EXP", "floor": "ELEMENT_WISE_FLOOR",
                "identity": "ELEMENT_WISE_IDENTITY"}


def _number(value):
    return float(value) if isinstance(value, str) else value  # "Infinity", "-Infinity", "NaN"


def _array(operand) -> np.ndarray:
    values = [_number(v) for v in operand["data"]]
    dtype = np.dtype(operand["dataType"])
    if dtype.kind in "iu":
        return np.array(values, dtype=dtype).reshape(operand["shape"])
    return np.array(values, dtype=np.float64).astype(dtype).reshape(operand["shape"])


def _webnn_cases(operators):
    found = []
    for name in operators:
        for case in json.loads((WEBNN / f"{name}.json").read_text())["cases"]:
            found.append(case)
    return found


def _within_webnn_tolerance(expected: np.ndarray, actual: np.ndarray, tolerance: dict) -> np.ndarray:
    both_nan = np.isnan(expected) & np.isnan(actual) if expected.dtype.kind == "f" else False
    if tolerance["metricType"] == "ULP":
        distance = np.where(both_nan, 0, ulp_distance(expected, actual))
        return distance <= tolerance["value"]
    difference = np.abs(expected.astype(np.float64) - actual.astype(np.float64))
    return both_nan | (difference <= tolerance["value"])


def test_webnn_vectors():
    """Every vector of the mapped WebNN operators, one test; a failure names the vector."""
    failures = Failures()
    for case in _webnn_cases(WEBNN_TO_DML):
        with failures.check(f"{case['operator']}: {case['name']}"):
            (operand,) = case["inputs"]
            x = _array(operand)
            expected = _array(case["expected"])
            actual = oracle.evaluate(WEBNN_TO_DML[case["operator"]], x, operand["dataType"])
            assert actual.dtype == expected.dtype and actual.shape == expected.shape
            ok = _within_webnn_tolerance(expected, actual, case["tolerance"])
            assert ok.all(), (f"{(~ok).sum()} elements outside WebNN's {case['tolerance']['metricType']} "
                              f"{case['tolerance']['value']}: x={x[~ok][:4]}, oracle={actual[~ok][:4]}, "
                              f"webnn={expected[~ok][:4]}")
    failures.assert_none("WebNN vectors")
    assert failures.checked > 20, failures.checked


def _clamp_bounds(case, dtype):
    """WebNN's clamp bounds as CLIP1's fields: an omitted float bound is WebNN's -inf / +inf."""
    arguments = case["arguments"]
    unset = (-math.inf, math.inf) if np.dtype(dtype).kind == "f" else (None, None)
    return ({"Min": arguments.get("minValue", unset[0]), "Max": arguments.get("maxValue", unset[1])})


def test_webnn_clamp_vectors_as_clip1():
    """WebNN's clamp is CLIP1 with bounds of the tensor's type, except for NaN: WebNN propagates
    it, DirectML's max(Min, min(x, Max)) with Direct3D's min/max gives max(Min, Max) instead."""
    failures = Failures()
    for case in _webnn_cases(["clamp"]):
        with failures.check(f"clamp: {case['name']}"):
            (operand,) = case["inputs"]
            dtype = operand["dataType"]
            x, expected = _array(operand), _array(case["expected"])
            bounds = _clamp_bounds(case, dtype)
            strict = oracle.evaluate("ELEMENT_WISE_CLIP1", x, dtype, nan_rule="propagate", **bounds)
            assert _within_webnn_tolerance(expected, strict, case["tolerance"]).all()
            direct3d = oracle.evaluate("ELEMENT_WISE_CLIP1", x, dtype, **bounds)
            nan_input = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, dtype=bool)
            assert _within_webnn_tolerance(expected[~nan_input], direct3d[~nan_input], case["tolerance"]).all()
            assert (direct3d[nan_input] == max(bounds["Min"], bounds["Max"])).all()
    failures.assert_none("WebNN clamp vectors")
    assert failures.checked > 5, failures.checked


def test_clip1_int64_bounds_keep_every_bit():
    x = np.array([2 ** 62, 2 ** 53 + 2, -(2 ** 53) - 2, 0], dtype=np.int64)
    out = oracle.evaluate("ELEMENT_WISE_CLIP1", x, "int64", Min=-(2 ** 53) - 1, Max=2 ** 53 + 1)
    assert out.tolist() == [2 ** 53 + 1, 2 ** 53 + 1, -(2 ** 53) - 1, 0]
    top = np.iinfo(np.uint64).max
    out = oracle.evaluate("ELEMENT_WISE_CLIP1", np.array([top, 3], np.uint64), "uint64", Min=5, Max=top - 1)
    assert out.tolist() == [top - 1, 5]


def test_clip1_float16_bounds_are_float16_values():
    x = np.array([0.0, 0.2, np.nan], np.float16)
    out = oracle.evaluate("ELEMENT_WISE_CLIP1", x, "float16", Min=0.1, Max=0.15)
    assert out.tolist() == [float(np.float16(0.1)), float(np.float16(0.15)), float(np.float16(0.15))]


@pytest.mark.parametrize("mode, signs", [("DML_IS_INFINITY_MODE_EITHER", (1, -1)),
                                         ("DML_IS_INFINITY_MODE_POSITIVE", (1,)),
                                         ("DML_IS_INFINITY_MODE_NEGATIVE", (-1,))])
def test_is_infinity_on_every_float16_pattern(mode, signs):
    x = np.arange(65536, dtype=np.uint16).view(np.float16)
    out = oracle.evaluate("ELEMENT_WISE_IS_INFINITY", x, "float16", InfinityMode=mode)
    assert out.dtype == np.uint8
    hits = {int(bits) for bits in np.flatnonzero(out)}
    assert hits == {0x7C00 for s in signs if s > 0} | {0xFC00 for s in signs if s < 0}


def test_webnn_vectors_cover_both_float_types():
    types = {c["expected"]["dataType"] for c in _webnn_cases(WEBNN_TO_DML)}
    assert types == {"float32", "float16"}


# --- integer operators against Python integers -----------------------------------------------

SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")


def _extremes(dtype):
    info = np.iinfo(dtype)
    values = {info.min, info.min + 1, info.min // 2, -1, 0, 1, info.max // 2 + 1, info.max - 1, info.max}
    return sorted(v for v in values if info.min <= v <= info.max)


def _wrap(value: int, dtype) -> int:
    bits = np.iinfo(dtype).bits
    value &= (1 << bits) - 1
    return value - (1 << bits) if np.iinfo(dtype).min < 0 and value >= 1 << (bits - 1) else value


@pytest.mark.parametrize("dtype", SIGNED)
def test_abs_of_integers_is_python_abs_wrapped(dtype):
    values = _extremes(dtype)
    out = oracle.evaluate("ELEMENT_WISE_ABS", np.array(values, dtype=dtype), dtype)
    assert out.dtype == np.dtype(dtype)
    assert out.tolist() == [_wrap(abs(v), dtype) for v in values]
    assert out[0] == np.iinfo(dtype).min  # |INT_MIN| wraps to INT_MIN (the documented choice)


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED)
def test_identity_of_integers_is_exact(dtype):
    values = _extremes(dtype)
    out = oracle.evaluate("ELEMENT_WISE_IDENTITY", np.array(values, dtype=dtype), dtype)
    assert out.dtype == np.dtype(dtype) and out.tolist() == values


@pytest.mark.parametrize("dtype", ("int64", "uint64", "int32", "uint8"))
@pytest.mark.parametrize("scale, bias", [(0.5, -3.0), (-2.0, 1.5), (1.0, 0.25)])
def test_identity_scale_bias_on_integers_truncates_then_saturates(dtype, scale, bias):
    values = _extremes(dtype)
    out = oracle.evaluate("ELEMENT_WISE_IDENTITY", np.array(values, dtype=dtype), dtype,
                          ScaleBias={"Scale": scale, "Bias": bias})
    info = np.iinfo(dtype)
    expected = []
    for v in values:
        numerator, denominator = (Fraction(v) * Fraction(scale) + Fraction(bias)).as_integer_ratio()
        truncated = abs(numerator) // denominator * (1 if numerator >= 0 else -1)  # toward zero
        expected.append(min(max(truncated, info.min), info.max))
    assert out.tolist() == expected


def test_abs_scale_bias_on_int64_keeps_every_bit():
    x = np.array([2 ** 62 + 1, -(2 ** 62) - 3], dtype=np.int64)  # not representable in float64
    out = oracle.evaluate("ELEMENT_WISE_ABS", x, "int64", ScaleBias={"Scale": 1.0, "Bias": -1.0})
    assert out.tolist() == [2 ** 62, 2 ** 62 + 4]


# --- hand-checked edges of the float operators --------------------------------------------------

def f32(values):
    return np.array(values, dtype=np.float32)


def test_inverse_trigonometry_domain_ends():
    one_up = float(np.nextafter(np.float32(1), np.float32(2)))
    acos = oracle.evaluate("ELEMENT_WISE_ACOS", f32([1.0, -1.0, one_up, 0.0]), "float32")
    assert acos[0] == 0.0 and acos[1] == np.float32(math.pi) and np.isnan(acos[2])
    assert acos[3] == np.float32(math.pi / 2)
    asin = oracle.evaluate("ELEMENT_WISE_ASIN", f32([-1.0, -0.0, -one_up]), "float32")
    assert asin[0] == np.float32(-math.pi / 2) and math.copysign(1, asin[1]) == -1 and np.isnan(asin[2])


def test_inverse_hyperbolic_domain_ends():
    below_one = float(np.nextafter(np.float32(1), np.float32(0)))
    acosh = oracle.evaluate("ELEMENT_WISE_ACOSH", f32([1.0, below_one, np.inf]), "float32")
    assert acosh[0] == 0.0 and np.isnan(acosh[1]) and acosh[2] == np.inf
    atanh = oracle.evaluate("ELEMENT_WISE_ATANH", f32([1.0, -1.0, 1.5, below_one]), "float32")
    assert atanh[0] == np.inf and atanh[1] == -np.inf and np.isnan(atanh[2])
    assert atanh[3] == np.float32(math.atanh(below_one))


def test_asinh_is_odd_where_the_literal_formula_cancels():
    x = f32([-1e10, 1e10, 1e-30])
    out = oracle.evaluate("ELEMENT_WISE_ASINH", x, "float32")
    assert out[0] == -out[1] == np.float32(-math.asinh(1e10))
    assert out[2] == np.float32(1e-30)  # ln(x + sqrt(x * x + 1)) in float64 would give 0


def test_ceil_and_floor_keep_the_sign_of_zero():
    ceil = oracle.evaluate("ELEMENT_WISE_CEIL", f32([-0.5, 0.5, -0.0, 8388607.5]), "float32")
    assert ceil.tolist() == [0.0, 1.0, 0.0, 8388608.0] and math.copysign(1, ceil[0]) == -1
    floor = oracle.evaluate("ELEMENT_WISE_FLOOR", f32([-0.5, 0.5, -0.0, -8388607.5]), "float32")
    assert floor.tolist() == [-1.0, 0.0, 0.0, -8388608.0] and math.copysign(1, floor[2]) == -1


@pytest.mark.parametrize("dtype", ("float32", "float16"))
def test_exp_special_values_straddle_overflow_and_underflow(dtype):
    values = np.array(specs.get("ELEMENT_WISE_EXP").special_values(dtype, {}), dtype=dtype)
    out = oracle.evaluate("ELEMENT_WISE_EXP", values, dtype)
    finite, tiny = np.isfinite(out), np.finfo(dtype).smallest_normal
    assert finite.any() and (~finite).any()  # both sides of ln(max)
    assert ((out > 0) & (out < tiny)).any() and (out == 0).any()  # subnormal results and underflow


@pytest.mark.parametrize("dtype", ("float32", "float16"))
def test_cosh_special_values_straddle_its_overflow(dtype):
    values = np.array(specs.get("ELEMENT_WISE_COSH").special_values(dtype, {}), dtype=dtype)
    out = oracle.evaluate("ELEMENT_WISE_COSH", values, dtype)
    finite = np.isfinite(out)
    big = np.abs(values) > math.log(float(np.finfo(dtype).max))  # past where exp(x) alone overflows
    assert (finite & big).any() and (~finite).any()


def test_cos_special_values_straddle_the_sincos_accuracy_range():
    edge = 100 * math.pi
    near = [v for v in specs.get("ELEMENT_WISE_COS").special_values("float32", {}) if abs(abs(v) - edge) < 1e-3]
    assert any(abs(v) < edge for v in near) and any(abs(v) > edge for v in near)


def test_erf_saturates_and_is_odd():
    out = oracle.evaluate("ELEMENT_WISE_ERF", f32([6.0, -6.0, 0.5, -0.5, np.inf, -0.0]), "float32")
    assert out[0] == 1.0 and out[1] == -1.0 and out[2] == -out[3] == np.float32(math.erf(0.5))
    assert out[4] == 1.0 and math.copysign(1, out[5]) == -1


def test_scale_bias_comes_before_the_function():
    x = f32([0.0, 1.0, -1.0])
    out = oracle.evaluate("ELEMENT_WISE_EXP", x, "float32", ScaleBias={"Scale": 2.0, "Bias": 1.0})
    assert out.tolist() == f32([math.e, math.exp(3.0), math.exp(-1.0)]).tolist()


def test_identity_keeps_float64_bits():
    x = np.array([1 + 2 ** -52, -0.0, 5e-324, np.inf], dtype=np.float64)
    out = oracle.evaluate("ELEMENT_WISE_IDENTITY", x, "float64")
    assert out.dtype == np.float64 and out.tobytes() == x.tobytes()
