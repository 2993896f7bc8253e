"""ELEMENT_WISE IS_NAN, LOG, LOGICAL_NOT, NEGATE, RECIP, ROUND, SIGN, SIN, SINH, SQRT, TAN, TANH,
THRESHOLD, BIT_NOT, BIT_COUNT: the oracle against WebNN's vectors, against Python integers and
float bit patterns computed independently, and the output types through the real runner."""
import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.backends.onnx_models import as_directml
from conformance.caseset.case import Case
from conformance.caseset.caseload import load_paths
from conformance.caseset.selection import select
from conformance.judge.expected import expected_and_reference, interval_judge
from conformance.judge.ulp import ulp_distance
from conformance.run import runner
from conformance.run.results import ResultsWriter
from every import Failures

WEBNN = Path(__file__).resolve().parent / "data" / "wpt-webnn"
# WebNN operator file -> DirectML operator
WEBNN_OPERATORS = {"log": "ELEMENT_WISE_LOG", "neg": "ELEMENT_WISE_NEGATE", "reciprocal": "ELEMENT_WISE_RECIP",
                   "sign": "ELEMENT_WISE_SIGN", "sin": "ELEMENT_WISE_SIN", "logical_not": "ELEMENT_WISE_LOGICAL_NOT",
                   "sqrt": "ELEMENT_WISE_SQRT", "tan": "ELEMENT_WISE_TAN", "tanh": "ELEMENT_WISE_TANH"}
INTEGER_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _number(value):
    return float(value) if isinstance(value, str) else value  # "Infinity", "-Infinity", "NaN"


def _webnn_cases():
    for name, op in sorted(WEBNN_OPERATORS.items()):
        for case in json.loads((WEBNN / f"{name}.json").read_text())["cases"]:
            yield name, op, case


def test_the_oracle_gives_webnns_expected_outputs_within_webnns_tolerance():
    """Every vector of the mapped WebNN operators, one test; a failure names the vector."""
    failures = Failures()
    for name, op, case in _webnn_cases():
        with failures.check(f"{name}: {case['name']}"):
            (given,) = case["inputs"]
            x = np.array([_number(v) for v in given["data"]], dtype=given["dataType"]).reshape(given["shape"])
            ours = oracle.evaluate(op, x, given["dataType"])
            wanted = case["expected"]
            expected = np.array([_number(v) for v in wanted["data"]], dtype=wanted["dataType"]).reshape(wanted["shape"])
            assert ours.dtype == expected.dtype and ours.shape == expected.shape
            tolerance = case["tolerance"]
            both_nan = np.isnan(ours.astype(np.float64)) & np.isnan(expected.astype(np.float64))
            if tolerance["metricType"] == "ULP":
                error = np.where(both_nan, 0, ulp_distance(expected, ours))
            else:
                with np.errstate(invalid="ignore"):
                    error = np.where(both_nan | (ours == expected), 0.0,
                                     np.abs(ours.astype(np.float64) - expected.astype(np.float64)))
            assert error.max(initial=0) <= tolerance["value"], (x, ours, expected)
    failures.assert_none("WebNN vectors")
    assert failures.checked > 20, failures.checked


def test_the_webnn_vectors_reach_every_operator_they_name():
    counts = {name: len(json.loads((WEBNN / f"{name}.json").read_text())["cases"]) for name in WEBNN_OPERATORS}
    assert min(counts.values()) >= 7, counts


# -- integers against Python's own integers ----------------------------------------------------------
def _samples(dtype):
    """Every extreme and its neighbours, and random values over the whole range, as Python ints."""
    info = np.iinfo(dtype)
    values = {info.min, info.min + 1, info.min + 2, -1, 0, 1, 2, info.max - 1, info.max}
    rng = np.random.default_rng(7)
    values |= {int(v) for v in rng.integers(info.min, info.max, size=500, dtype=dtype, endpoint=True)}
    return sorted(v for v in values if info.min <= v <= info.max)


def _wrap(value, dtype):
    """A Python integer in dtype's two's complement (or modular, unsigned) range."""
    bits = np.dtype(dtype).itemsize * 8
    value %= 1 << bits
    return value - (1 << bits) if np.dtype(dtype).kind == "i" and value >= 1 << (bits - 1) else value


def _run(op, values, dtype, **params):
    out = oracle.evaluate(op, np.array(values, dtype=dtype), dtype, **params)
    return out, [int(v) for v in out.tolist()]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_negate_wraps_the_most_negative_integer_and_is_exact_elsewhere(dtype):
    values = _samples(dtype)
    out, got = _run("ELEMENT_WISE_NEGATE", values, dtype)
    assert out.dtype == np.dtype(dtype)
    assert got == [_wrap(-v, dtype) for v in values]
    assert got[0] == values[0] == int(np.iinfo(dtype).min)  # INT_MIN -> INT_MIN


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_bit_not_of_every_integer_type_is_pythons_complement(dtype):
    values = _samples(dtype)
    out, got = _run("ELEMENT_WISE_BIT_NOT", values, dtype)
    bits = np.dtype(dtype).itemsize * 8
    assert out.dtype == np.dtype(dtype)
    assert got == [_wrap(~v, dtype) if np.dtype(dtype).kind == "i" else v ^ ((1 << bits) - 1) for v in values]


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_bit_count_of_every_integer_type_counts_the_twos_complement_bits(dtype):
    values = _samples(dtype)
    out, got = _run("ELEMENT_WISE_BIT_COUNT", values, dtype)
    bits = np.dtype(dtype).itemsize * 8
    assert out.dtype == np.dtype("uint32" if bits >= 32 else "uint8")
    assert got == [bin(v % (1 << bits)).count("1") for v in values]
    if np.dtype(dtype).kind == "i":
        assert got[values.index(-1)] == bits and got[values.index(int(np.iinfo(dtype).min))] == 1


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_sign_of_every_integer_type(dtype):
    values = _samples(dtype)
    _, got = _run("ELEMENT_WISE_SIGN", values, dtype)
    assert got == [(v > 0) - (v < 0) for v in values]


@pytest.mark.parametrize("dtype", ["uint8", "uint32"])
def test_logical_not_is_one_for_zero_only(dtype):
    values = _samples(dtype)
    out, got = _run("ELEMENT_WISE_LOGICAL_NOT", values, dtype)
    assert out.dtype == np.dtype(dtype) and got == [int(v == 0) for v in values]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint16", "uint32"])
@pytest.mark.parametrize("minimum", [-3.7, 2.0, 3.7, -1e30, 1e30])
def test_threshold_of_integers_casts_min_toward_zero_and_saturates(dtype, minimum):
    info = np.iinfo(dtype)
    low = min(max(math.trunc(float(np.float32(minimum))), int(info.min)), int(info.max))
    values = _samples(dtype)
    _, got = _run("ELEMENT_WISE_THRESHOLD", values, dtype, Min=minimum)
    assert got == [max(v, low) for v in values]


# -- float bit patterns, computed with struct ------------------------------------------------------------
FLOAT_FORMATS = {"float16": ("e", "H", 16), "float32": ("f", "I", 32), "float64": ("d", "Q", 64)}


def _bits(values, dtype):
    float_code, int_code, _ = FLOAT_FORMATS[dtype]
    return [struct.unpack("<" + int_code, struct.pack("<" + float_code, v))[0] for v in values]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_bitwise_operators_read_a_floats_encoding_signalling_nans_included(dtype):
    _, int_code, width = FLOAT_FORMATS[dtype]
    patterns = [0, 1 << (width - 1), 1, (1 << (width - 1)) - 1, (1 << width) - 1]
    exponent = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}[width]
    patterns += [exponent, exponent | 1, exponent | (exponent >> 1) & ~exponent | 1]  # inf, sNaN, a NaN
    x = np.array(patterns, dtype=f"u{width // 8}").view(dtype)
    inverted = oracle.evaluate("ELEMENT_WISE_BIT_NOT", x, dtype)
    assert inverted.dtype == np.dtype(dtype)
    assert inverted.view(f"u{width // 8}").tolist() == [p ^ ((1 << width) - 1) for p in patterns]
    counts = oracle.evaluate("ELEMENT_WISE_BIT_COUNT", x, dtype)
    assert counts.tolist() == [bin(p).count("1") for p in patterns]


def test_bit_not_of_one_is_the_pages_example():
    assert _bits(oracle.evaluate("ELEMENT_WISE_BIT_NOT", np.array([1.0], np.float32), "float32").tolist(),
                 "float32") == [0xC07FFFFF]
    out = oracle.evaluate("ELEMENT_WISE_BIT_NOT", np.array([0, 128, 42, 255], np.uint8), "uint8")
    assert out.tolist() == [255, 127, 213, 0]  # the page's example
    counts = oracle.evaluate("ELEMENT_WISE_BIT_COUNT", np.array([0, 123, 456, 789], np.uint32), "uint32")
    assert counts.tolist() == [0, 6, 4, 5] and counts.dtype == np.uint32  # the page's example


def test_is_nan_marks_exactly_the_nan_encodings_of_every_float16():
    every = np.arange(1 << 16, dtype=np.uint16)
    out = oracle.evaluate("ELEMENT_WISE_IS_NAN", every.view(np.float16), "float16")
    nan_by_bits = [int((b & 0x7C00) == 0x7C00 and (b & 0x03FF) != 0) for b in range(1 << 16)]
    assert out.dtype == np.uint8 and out.tolist() == nan_by_bits


# -- float semantics the pages state -----------------------------------------------------------------
ROUNDING_PAGE = {  # the DML_ROUNDING_MODE page's table
    "DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN": [-2, -2, -2, -1, 0, 1, 2, 2, 2],
    "DML_ROUNDING_MODE_TOWARD_ZERO": [-2, -1, -1, -1, 0, 1, 1, 1, 2],
    "DML_ROUNDING_MODE_TOWARD_INFINITY": [-3, -2, -2, -1, 0, 1, 2, 2, 3],
}


@pytest.mark.parametrize("mode", sorted(ROUNDING_PAGE))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_round_follows_the_rounding_mode_pages_table(mode, dtype):
    x = np.array([-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5], dtype)
    assert oracle.evaluate("ELEMENT_WISE_ROUND", x, dtype, RoundingMode=mode).tolist() == ROUNDING_PAGE[mode]


def test_round_halves_away_from_zero_just_below_a_half_and_at_the_largest_fraction():
    below_half = float(np.nextafter(np.float32(0.5), np.float32(0)))
    x = np.array([below_half, -below_half, 8388607.5, -8388607.5, np.inf, -np.inf], np.float32)
    out = oracle.evaluate("ELEMENT_WISE_ROUND", x, "float32", RoundingMode="DML_ROUNDING_MODE_TOWARD_INFINITY")
    assert out.tolist() == [0.0, 0.0, 8388608.0, -8388608.0, np.inf, -np.inf]


def test_float_edges_the_pages_state():
    x = np.array([-1.0, 0.0, -0.0, np.nan, np.inf], np.float32)
    log = oracle.evaluate("ELEMENT_WISE_LOG", x, "float32")
    assert np.isnan(log[0]) and log[1] == log[2] == -np.inf and np.isnan(log[3]) and log[4] == np.inf
    assert oracle.evaluate("ELEMENT_WISE_SIGN", x, "float32").tolist() == [-1.0, 0.0, 0.0, 0.0, 1.0]
    threshold = oracle.evaluate("ELEMENT_WISE_THRESHOLD", x, "float32", Min=0.5)
    assert threshold.tolist()[:4] == [0.5, 0.5, 0.5, 0.5]  # Direct3D max: NaN gives Min
    assert np.isnan(oracle.evaluate("ELEMENT_WISE_THRESHOLD", x, "float32", Min=0.5, nan_rule="propagate")[3])


# -- output types through the runner and ONNX Runtime ---------------------------------------------------------
def _records(backend, expression):
    chosen = select(load_paths(), expression)
    assert chosen, expression
    return runner.run(chosen, backend, "5_0", ResultsWriter(None)).records


def test_is_nan_through_onnx_runtime_gives_uint8_and_passes():
    records = _records(backends.create("cpu"), "ELEMENT_WISE_IS_NAN and specials")
    assert records and {r["status"] for r in records} == {statuses.PASS}


def test_a_float_output_where_uint8_is_due_fails():
    def as_float(op, x, dtype, **params):
        return oracle.evaluate(op, x, dtype, **params).astype(np.float32)
    backend = backends.create("python:oracle:evaluate")
    backend.function = as_float
    records = _records(backend, "ELEMENT_WISE_IS_NAN and float16 and specials")
    assert records and {r["status"] for r in records} == {statuses.FAIL}
    assert all("output data type float32, expected uint8" in r["message"] for r in records)


def test_an_onnx_bool_is_read_as_directmls_uint8_bytes():
    raw = np.array([0, 1, 255], np.uint8).view(np.bool_)
    assert as_directml(raw).tolist() == [0, 1, 255] and as_directml(raw).dtype == np.uint8
    floats = np.zeros(2, np.float32)
    assert as_directml(floats) is floats


# -- the d3d formulas are sound: the exactly rounded value lies in its interval ----------------------------
FORMULA_CASES = [("ELEMENT_WISE_LOG", {}), ("ELEMENT_WISE_NEGATE", {}), ("ELEMENT_WISE_RECIP", {}),
                 ("ELEMENT_WISE_SQRT", {}), ("ELEMENT_WISE_SIGN", {}), ("ELEMENT_WISE_SIN", {}),
                 ("ELEMENT_WISE_TAN", {}), ("ELEMENT_WISE_SINH", {}), ("ELEMENT_WISE_TANH", {}),
                 ("ELEMENT_WISE_THRESHOLD", {"Min": 0.5}), ("ELEMENT_WISE_THRESHOLD", {"Min": -1e-40})]
FORMULA_CASES += [("ELEMENT_WISE_ROUND", {"RoundingMode": mode}) for mode in sorted(ROUNDING_PAGE)]


def _unsound(op, params, x, dtype):
    case = Case(id="sound", op=op, dtype=dtype, shape=x.shape, params={**oracle.defaults(op), **params},
                generator={"kind": "values"}, required_level="1_0", tolerance=0)
    expected, _ = expected_and_reference(case, x)
    lo, hi, num, may_nan = interval_judge(case).bounds(x, expected)
    e = expected.astype(np.float64)
    inside = np.where(np.isnan(e), may_nan, num & (lo <= e) & (e <= hi))
    return x[~inside]


def _assert_formulas_sound(dtype, x):
    """Every FORMULA_CASES operator's exact values on x inside their d3d intervals; a failure names it.
    (exp's float32 log2(e) is held both rounded and exact, primitives.rounded_constant: SINH's large
    arguments are inside too.)"""
    failures = Failures()
    for op, params in FORMULA_CASES:
        with failures.check(f"{op} {dtype} {params}"), np.errstate(all="ignore"):
            outside = _unsound(op, params, x, dtype)
            assert outside.size == 0, f"{outside.size} exact values outside, e.g. x={outside[:8]}"
    failures.assert_none(f"formulas with {dtype} exact values outside their d3d intervals")


def test_every_float16_exact_value_lies_in_its_d3d_interval():
    _assert_formulas_sound("float16", np.arange(1 << 16, dtype=np.uint16).view(np.float16))


def test_float32_exact_values_lie_in_their_d3d_intervals():
    rng = np.random.default_rng(3)
    sample = np.concatenate([rng.integers(0, 1 << 32, size=1 << 16, dtype=np.uint64).astype(np.uint32),
                             np.arange(0x42000000, 0x42B40000, 97, dtype=np.uint32)]).view(np.float32)
    _assert_formulas_sound("float32", sample)


# -- case files name enum fields by their value names ------------------------------------------------------------
ROUND_FILE = """operator: ELEMENT_WISE_ROUND
groups:
  - dtypes: [float32]
    shapes: [[3]]
    params: {{RoundingMode: {modes}}}
    inputs: [{{kind: uniform}}]
"""


def test_an_enum_field_takes_its_value_names_and_the_case_id_shows_them(write_case_file):
    path = write_case_file(ROUND_FILE.format(modes="[DML_ROUNDING_MODE_TOWARD_ZERO, DML_ROUNDING_MODE_TOWARD_INFINITY]"))
    ids = [case.id for case in load_paths([path])]
    assert ids == ["ELEMENT_WISE_ROUND/float32/rank1[3]/RoundingMode=DML_ROUNDING_MODE_TOWARD_ZERO/uniform[-10,10]",
                   "ELEMENT_WISE_ROUND/float32/rank1[3]/RoundingMode=DML_ROUNDING_MODE_TOWARD_INFINITY/uniform[-10,10]"]


@pytest.mark.parametrize("value, message", [("DML_ROUNDING_MODE_UP", "must be one of DML_ROUNDING_MODE_HALVES"),
                                            ("2", "must be one of"), ("2.0", "must be one of")])
def test_an_enum_field_refuses_other_names_and_numbers(write_case_file, value, message):
    from conformance.caseset.caseload import CaseFileError
    with pytest.raises(CaseFileError) as error:
        load_paths([write_case_file(ROUND_FILE.format(modes=f"[{value}]"))])
    assert message in str(error.value) and ":5:" in str(error.value)


def test_a_float_field_refuses_a_name(write_case_file):
    from conformance.caseset.caseload import CaseFileError
    text = ROUND_FILE.replace("ELEMENT_WISE_ROUND", "ELEMENT_WISE_THRESHOLD").format(modes="[low]")
    with pytest.raises(CaseFileError) as error:
        load_paths([write_case_file(text.replace("RoundingMode", "Min"))])
    assert "Min must be a number, not 'low'" in str(error.value)
