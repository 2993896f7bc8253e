"""REDUCE, the first accumulation: the oracle against the page's examples and every function, every case
through the oracle (inside its own bound) and ONNX Runtime's CPU provider, a selection through the real
DirectML (dml-direct under Wine), the tables chosen by Function, and the judge catching what the page
forbids: LOG_SUM_EXP overflowing where its result is finite, a term dropped, half-precision sums without
the permission."""
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import get

CASES = load_file(Path(__file__).resolve().parent.parent / "cases" / "reduce.yaml")
SPEC = get("REDUCE")
PAGE = np.array([[1, 2, 3], [3, 0, 4], [2, 4, 2]], dtype=np.float32)
F = "DML_REDUCE_FUNCTION_"


def run(name, chosen):
    return {r["id"]: r for r in runner.run(chosen, backends.create(name, announce=lambda m: None), "6_0",
                                           ResultsWriter(None)).records}


def verdict(x, params, actual, dtype="float32"):
    """(d3d failed elements, ulp mismatches) of a device output."""
    x = np.asarray(x, dtype=dtype)
    exact = oracle.reference("REDUCE", x, dtype, **params)
    rounded = oracle.evaluate("REDUCE", x, dtype, **params)
    result = compare_accumulated(SPEC, (x,), params, dtype, rounded, exact, np.asarray(actual, dtype=dtype),
                                 ulp_tolerance=0)
    return result.d3d["failed"], result.mismatches


def test_the_oracle_is_the_pages_examples_and_each_functions_formula():
    for axes, want in (([0], [[6, 6, 9]]), ([1], [[6], [7], [8]]), ([0, 1], [[21]])):
        assert oracle.evaluate("REDUCE", PAGE, "float32", Function=F + "SUM", Axes=axes).tolist() == want
    row = np.array([[3.0, -4.0, 0.5, 2.0]])
    formulas = {"AVERAGE": 0.375, "L1": 9.5, "L2": np.sqrt(29.25), "SUM_SQUARE": 29.25, "MULTIPLY": -12.0,
                "MAX": 3.0, "MIN": -4.0, "LOG_SUM_EXP": np.log(np.exp(row).sum())}
    for name, want in formulas.items():
        got = oracle.reference("REDUCE", row, "float32", Function=F + name, Axes=[1])
        assert got.shape == (1, 1) and got[0, 0] == pytest.approx(want, rel=1e-15), name
    assert oracle.evaluate("REDUCE", row, "float32", Function=F + "ARGMIN", Axes=[1]).dtype == np.uint32
    wrapped = oracle.evaluate("REDUCE", np.array([[2**31 - 1, 1]], dtype=np.int32), "int32", Function=F + "SUM",
                              Axes=[1])
    assert wrapped.tolist() == [[-2**31]]


def test_every_case_passes_through_the_oracle_inside_its_own_bound_and_the_cpu_provider_agrees():
    oracle_records = run("python:oracle:evaluate", CASES)
    assert {r["status"] for r in oracle_records.values()} == {statuses.PASS} and len(oracle_records) >= 140
    records = run("cpu", CASES)
    counts = {s: sum(r["status"] == s for r in records.values()) for s in statuses.ALL}
    assert counts[statuses.PASS] >= 95 and counts[statuses.NOT_REACHABLE] >= 30
    # ONNX Runtime's CPU ReduceSum of int64 is no two's complement sum of integer_extremes, and its float16
    # ReduceLogSumExp overflows at logits of 1e4 (findings: docs/findings/issue26-accumulations.md)
    failed = {i for i, r in records.items() if r["status"] == statuses.FAIL}
    assert failed == {"REDUCE/int64/rank2[3x7]/Function=DML_REDUCE_FUNCTION_SUM,Axes=[1]/integer_extremes",
                      "REDUCE/float16/rank2[2x4]/Function=DML_REDUCE_FUNCTION_LOG_SUM_EXP,Axes=[1]/big-logits"}


def test_the_tables_are_chosen_by_function():
    assert SPEC.required_level("float32", 4, {"Function": F + "SUM", "Axes": [0]}) == "1_0"
    assert SPEC.required_level("int32", 4, {"Function": F + "SUM", "Axes": [0]}) == "2_1"
    assert SPEC.required_level("int32", 4, {"Function": F + "L1", "Axes": [0]}) == "5_0"
    assert SPEC.required_level("int8", 2, {"Function": F + "MAX", "Axes": [0]}) == "3_0"
    assert SPEC.required_level("int8", 2, {"Function": F + "SUM", "Axes": [0]}) is None
    index = {"Function": F + "ARGMAX", "Axes": [0], "OutputType": "int64"}
    assert SPEC.required_level("float32", 4, index) == "3_0"
    assert SPEC.required_level("float32", 4, {**index, "OutputType": "uint32"}) == "1_0"


def test_a_bad_function_is_refused_with_its_file_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("operator: REDUCE\ngroups:\n  - dtypes: [float32]\n    shapes: [[3, 3]]\n    params:\n"
                    "      Function: DML_REDUCE_FUNCTION_MEDIAN\n      Axes: {array: [0]}\n"
                    "    inputs:\n      - {kind: uniform, low: -1, high: 1}\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert "bad.yaml:" in str(error.value) and "DML_REDUCE_FUNCTION_MEDIAN" in str(error.value)


def test_log_sum_exp_overflowing_where_its_result_is_finite_is_caught_and_a_stable_result_passes():
    logits = np.array([[10000.0, 9999.0, 9990.0, -10000.0], [100.0, 90.0, 95.0, 99.5]])
    params = {"Function": F + "LOG_SUM_EXP", "Axes": [1]}
    assert verdict(logits, params, [[np.inf], [np.inf]])[0] == 2  # what DirectML gives on lavapipe (docs/findings)
    stable = logits.max(axis=1, keepdims=True) + np.log(np.exp(logits - logits.max(axis=1, keepdims=True)).sum(
        axis=1, keepdims=True))
    assert verdict(logits, params, stable.astype(np.float32))[0] == 0
    # below the overflow both methods are allowed: the page's literal formula summed in float32
    small = np.array([[3.0, 1.5, -2.0, 0.25]])
    literal = np.log(np.exp(small.astype(np.float32)).sum(dtype=np.float32, axis=1, keepdims=True))
    assert verdict(small, params, literal)[0] == 0


def test_a_dropped_term_and_a_half_precision_sum_without_the_permission_are_caught():
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, (4, 8192)).astype(np.float16)
    params = {"Function": F + "SUM", "Axes": [1]}
    in_float32 = x.astype(np.float32).sum(axis=1, keepdims=True, dtype=np.float32).astype(np.float16)
    in_half = np.zeros((4, 1), dtype=np.float16)
    for column in x.T:  # sequential float16 sums stall at 2048, far from the exact ~4096
        in_half[:, 0] = (in_half[:, 0] + column).astype(np.float16)
    assert verdict(x, params, in_float32, "float16")[0] == 0
    assert verdict(x, params, in_half, "float16")[0] == 4
    allowed = {**params, "ExecutionFlags": "ALLOW_HALF_PRECISION_COMPUTATION"}
    assert verdict(x, allowed, in_half, "float16")[0] == 0
    # a bound sound for every order is gamma(n - 1) * sum |x| (0.78 % of it at n = 2^16 in float32): a
    # dropped term is caught where it is larger than that, as one of 4096 among 2^16 of [-1, 1] is
    y = rng.uniform(-1, 1, (2, 65536)).astype(np.float32)
    y[:, 0] = 4096
    dropped = (y[:, 1:].astype(np.float64).sum(axis=1, keepdims=True)).astype(np.float32)
    bounds = interval(SPEC, (y,), params, "float32")
    assert np.all(bounds.hi - bounds.lo < 2 * 4096 * 0.1)
    assert verdict(y, params, dropped)[0] == 2


def test_real_directml_under_wine_passes_a_selection_of_every_function_and_says_whether_it_has_metacommands():
    chosen = [c for c in CASES if "2x3x4x5" in c.id and "Axes=[3]" in c.id and c.dtype == "float32"]
    backend = backends.create("dml-direct", announce=lambda m: None)
    try:
        records = {r["id"]: r for r in runner.run(chosen, backend, "6_0", ResultsWriter(None)).records}
        metacommands = backend.metadata()["metacommands"]
    finally:
        backend.close()
    assert len(records) == len(chosen) >= 11
    assert {r["status"] for r in records.values()} == {statuses.PASS}, \
        {i: r["message"] for i, r in records.items() if r["status"] != statuses.PASS}
    # the driver's count (ID3D12Device5::EnumerateMetaCommands), or why there is none: Wine's vkd3d has no
    # ID3D12Device5, so DirectML runs its own shaders whatever DISABLE_META_COMMANDS says
    assert isinstance(metacommands["count"], int) or "ID3D12Device5" in metacommands["reason"]


def test_conformance_specs_gives_every_accumulation_its_bound_in_words_and_a_worked_example(capsys):
    import argparse

    from conformance import specs
    from conformance.cli.command import cmd_specs
    chosen = sorted(name for name, spec in specs.SPECS.items() if spec.accumulation)
    assert len(chosen) >= 30
    cmd_specs(argparse.Namespace(operators=chosen))
    printed = capsys.readouterr().out.split("\n\nDML_")
    assert len(printed) == len(chosen)
    for text in printed:
        name = text.split("_OPERATOR_DESC", 1)[0].removeprefix("DML_")
        assert "d3d: a sound interval for every order of summation" in text, name
        assert "sum of n terms, any order" in text and "worked example: " in text, name
        assert "output[0]: exact " in text, name
