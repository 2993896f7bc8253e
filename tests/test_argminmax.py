"""ARGMIN and ARGMAX, the first index outputs: the oracle against the pages' examples, every case through
the oracle and ONNX Runtime's CPU provider, a selection through the real DirectML (dml-direct and
dml-wine), bad cases refused at load, the set-valued index judge (ties exact, NaN wide), and the
injected faults caught with their slices named."""
import ctypes as C
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.caseset.selection import select
from conformance.judge.entry import compare_case
from conformance.judge.indices import allowed_for, compare_indices
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import get
from oracle.arg_extreme import DECREASING, INCREASING

CASE_FILES = Path(__file__).resolve().parent.parent / "cases"
CASES = load_file(CASE_FILES / "argmax.yaml") + load_file(CASE_FILES / "argmin.yaml")
PAGE = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], dtype=np.float32)


def run(name, chosen):
    return runner.run(chosen, backends.create(name, announce=lambda m: None), "6_0", ResultsWriter(None)).records


def by_id(records):
    return {r["id"]: r for r in records}


@pytest.mark.parametrize("op, columns, rows, whole", [("ARGMAX", [[1, 2, 1]], [[2], [2], [1]], [[7]]),
                                                     ("ARGMIN", [[0, 1, 2]], [[0], [1], [0]], [[4]])])
def test_the_oracle_is_the_pages_examples(op, columns, rows, whole):
    for axes, want in (([0], columns), ([1], rows), ([0, 1], whole)):
        got = oracle.evaluate(op, PAGE, "float32", Axes=axes, OutputType="uint32")
        assert got.dtype == np.uint32 and got.tolist() == want
    ties = np.array([3, 2, 1, 2, 3] if op == "ARGMAX" else [1, 2, 3, 2, 1], dtype=np.float32)
    assert [int(oracle.evaluate(op, ties, "float32", Axes=[0], AxisDirection=d)[0]) for d in (INCREASING, DECREASING)] \
        == [0, 4]


def test_every_case_passes_through_the_oracle_and_the_cpu_provider_or_is_not_reachable():
    assert 150 <= len([c for c in CASES if c.op == "ARGMAX"]) <= 250
    assert by_id(run("python:oracle:evaluate", CASES)).keys() == {c.id for c in CASES}
    assert {r["status"] for r in run("python:oracle:evaluate", CASES)} == {statuses.PASS}
    records = by_id(run("cpu", CASES))
    passed = [r for r in records.values() if r["status"] == statuses.PASS]
    assert len(passed) >= 150 and max(r["max_ulp"] for r in passed) == 0
    assert {r["status"] for r in records.values()} == {statuses.PASS, statuses.NOT_REACHABLE}
    # ONNX's ArgMax takes one axis and writes INT64: several axes or another index type are not reachable
    for record in records.values():
        several_axes = len(record["params"]["Axes"]) > 1
        if several_axes or record["params"]["OutputType"] != "int64" or record["dtype"] in ("uint32", "int16"):
            assert record["status"] == statuses.NOT_REACHABLE, record["id"]
    record = records["ARGMAX/float16/rank3[4x4x3]/Axes=[1],AxisDirection=DML_AXIS_DIRECTION_DECREASING/ties"]
    assert record["status"] == statuses.PASS and record["output_shapes"] == [[4, 1, 3]] and record["elements"] == 12


def test_a_bad_case_is_refused_at_load_naming_file_and_line(tmp_path):
    path = tmp_path / "argmax.yaml"
    for axes, shape, said in (("[2]", "[3, 4]", "values must be in the range [0, InputTensor.DimensionCount - 1] = [0, 1]"),
                              ("[1, 1]", "[3, 4]", "names an axis twice"),
                              ("[]", "[3, 4]", "at least one axis"),
                              ("[0]", "[0, 4]", "a slice with no element has no index")):
        path.write_text("operator: ARGMAX\ngroups:\n  - dtypes: [float32]\n"
                        f"    shapes: [{shape}]\n    params:\n      Axes: {{array: {axes}}}\n"
                        "    inputs: [{kind: uniform}]\n")
        with pytest.raises(CaseFileError) as refused:
            load_file(path)
        assert f"{path}:4: " in str(refused.value) and said in str(refused.value), str(refused.value)
    path.write_text("operator: ARGMIN\ngroups:\n  - dtypes: [float32]\n    shapes: [[3]]\n    params:\n"
                    "      Axes: {array: [0]}\n      OutputType: float32\n    inputs: [{kind: uniform}]\n")
    with pytest.raises(CaseFileError, match="one of int64, int32, uint64, uint32"):
        load_file(path)


def _judged(op, x, actual, **params):
    spec = get(op)
    params = {"AxisDirection": INCREASING, **params}
    allowed = allowed_for(spec.outputs[0].allowed, (x,), params, flush_allowed=params.pop("flush", False))
    return compare_indices(oracle.evaluate(op, x, str(x.dtype), **params), np.asarray(actual, dtype=np.int64),
                           allowed, x)


def test_the_judge_is_exact_on_ties_and_wide_where_the_page_is_silent():
    ties = np.array([[3, 1, 3, 2]], dtype=np.float32)
    assert _judged("ARGMAX", ties, [[0]], Axes=[1]).passed
    assert not _judged("ARGMAX", ties, [[2]], Axes=[1]).passed  # the last of equal maxima: INCREASING says the first
    assert _judged("ARGMAX", ties, [[2]], Axes=[1], AxisDirection=DECREASING).passed
    zeros = np.array([-0.0, 0.0, -0.0], dtype=np.float32)
    assert [_judged("ARGMAX", zeros, [k], Axes=[0]).passed for k in range(3)] == [True, False, False]
    # NaN: the extreme of the other values (by direction) or any NaN; never another number
    nan = np.array([[3, np.nan, 3, 2, np.nan]], dtype=np.float32)
    assert [_judged("ARGMAX", nan, [[k]], Axes=[1]).passed for k in range(5)] == [True, True, False, False, True]
    assert [_judged("ARGMIN", nan, [[k]], Axes=[1]).passed for k in range(5)] == [False, True, False, True, True]
    assert [_judged("ARGMAX", nan, [[k]], Axes=[1], AxisDirection=DECREASING).passed
            for k in range(5)] == [False, True, True, False, True]
    # Axes not ascending: either order of counting; ascending Axes: the tensor's own order alone
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert _judged("ARGMAX", x, [[5]], Axes=[0, 1]).passed and not _judged("ARGMAX", x, [[5 - 1]], Axes=[0, 1]).passed
    x = np.array([[0, 1, 9], [2, 3, 4]], dtype=np.int32)  # the maximum at [0, 2]: 2 ascending, 4 in Axes' order
    assert oracle.evaluate("ARGMAX", x, "int32", Axes=[1, 0]).tolist() == [[2]]
    assert [_judged("ARGMAX", x, [[k]], Axes=[1, 0]).passed for k in range(6)] == [False, False, True, False, True, False]
    # a float32 subnormal a flushing device reads as 0: its index, or a zero's, where flushing is allowed
    tiny = np.array([0.0, float(np.finfo(np.float32).smallest_subnormal), -1.0], dtype=np.float32)
    assert not _judged("ARGMAX", tiny, [0], Axes=[0]).passed and _judged("ARGMAX", tiny, [0], Axes=[0], flush=True).passed
    # beyond the slice, wrapped negative: never allowed
    assert not _judged("ARGMAX", ties, [[4]], Axes=[1]).passed and not _judged("ARGMAX", ties, [[-1]], Axes=[1]).passed


def _failed(records):
    return {r["id"]: r for r in records if r["status"] == statuses.FAIL}


def test_the_last_of_equal_maxima_is_caught_naming_slice_indices_and_values():
    chosen = [c for c in CASES if c.op == "ARGMAX" and c.id.endswith("/ties")]
    records = run("python:faults_argminmax:last_of_equal_extremes", chosen)
    failed = _failed(records)
    assert len(failed) == len(chosen)  # every tie case has slices of equal maxima
    record = failed["ARGMAX/float32/rank3[4x4x3]/Axes=[1],AxisDirection=DML_AXIS_DIRECTION_INCREASING/ties"]
    worst = record["d3d"]["worst"][0]
    case = select(CASES, record["id"])[0]
    x = case.make_input()
    row, _, column = worst["index"]
    assert worst["slice"] == f"Input[{row}, 0:4, {column}]" and worst["allowed"] == [worst["expected"]]
    assert worst["actual"] > worst["expected"] and x[row, worst["actual"], column] == x[row, worst["expected"], column]
    assert worst["input"] == {"expected": float(x[row, worst["expected"], column]),
                              "actual": float(x[row, worst["actual"], column])}
    line = record["message"].splitlines()[1]
    assert line.startswith(f"  at ({row}, 0, {column}): Input[{row}, 0:4, {column}], allowed {worst['expected']}: at "
                           f"{worst['expected']} = ") and line.endswith(f"; expected {worst['expected']}, actual "
                                                                        f"{worst['actual']}"), line
    # a slice without equal values has one answer either way: not flagged
    distinct = [c for c in CASES if c.op == "ARGMAX" and c.id.endswith("/page-example")]
    assert {r["status"] for r in run("python:faults_argminmax:last_of_equal_extremes", distinct)} == {statuses.PASS}


def test_an_index_counted_along_the_wrong_axis_is_caught():
    chosen = [c for c in CASES if (c.op, c.shape) in (("ARGMAX", (4, 4, 3)), ("ARGMIN", (2, 3, 4, 5)), ("ARGMAX", (3, 3)))]
    failed = _failed(run("python:faults_argminmax:index_along_the_wrong_axis", chosen))
    for key in ("ARGMAX/int8/rank3[4x4x3]/Axes=[1],AxisDirection=DML_AXIS_DIRECTION_INCREASING/ties",
                "ARGMAX/uint64/rank3[4x4x3]/Axes=[0,2],AxisDirection=DML_AXIS_DIRECTION_DECREASING/ties",
                "ARGMIN/float32/rank4[2x3x4x5]/Axes=[0,1,2,3]/uniform[-100,100]",
                "ARGMIN/int32/rank4[2x3x4x5]/Axes=[1,3]/uniform[-100,100]",
                "ARGMAX/float32/rank2[3x3]/Axes=[0],OutputType=uint32/page-example"):
        assert key in failed, key
    # Axes [3, 1] counts either way (the page does not say which): the fault is inside what it allows
    assert not [i for i in failed if "Axes=[3,1]" in i or "Axes=[2,0]" in i]


def test_an_index_off_by_one_is_caught_and_a_correct_device_is_not():
    failed = _failed(run("python:faults_argminmax:index_off_by_one", CASES))
    assert set(failed) == {c.id for c in CASES if c.elements}
    record = failed["ARGMIN/float32/rank2[3x3]/Axes=[0,1],OutputType=uint32/page-example"]
    assert record["max_ulp"] == 1 and record["d3d"]["worst"][0]["slice"] == "Input[0:3, 0:3]"
    assert record["d3d"]["worst"][0]["input"] == {"expected": 0.0, "actual": 4.0}


def test_an_index_beyond_its_slice_is_named_as_such():
    case = select(CASES, "ARGMAX/float32/rank2[3x3]/Axes=[1],OutputType=uint32/page-example")[0]
    x = case.make_input()
    comparison = compare_case(case, x, np.array([[2], [3], [1]], dtype=np.uint32))
    assert comparison.mismatches == 1 and comparison.worst[0]["input"]["actual"] is None
    assert comparison.worst[0]["slice"] == "Input[1, 0:3]"


def _device_selection():
    """Every data type with equal extremes both ways, the pages' examples, special values, integer
    extremes and every rank in float32; the rest of the rank and type grid runs in the full run
    (docs/findings/issue25-argminmax.md)."""
    def wanted(case):
        label = case.id.rsplit("/", 1)[-1]
        if label in ("ties", "page-example", "page-ties", "specials", "signed-zeros"):
            return case.op == "ARGMAX" or case.dtype in ("float32", "int64")
        return case.dtype == "float32" and case.op == "ARGMIN" or label == "integer_extremes" and case.op == "ARGMIN"
    return [c for c in CASES if wanted(c)]


def test_the_selection_passes_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe here): Axes as AxisCount and a pointer, AxisDirection,
    each OutputType, every input type, several axes, NaN inside the set the judge allows."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    chosen = _device_selection()
    records = run("dml-direct", chosen)
    assert {r["status"] for r in records} == {statuses.PASS}, [r["message"] for r in records if r["status"] != "pass"][:3]
    assert {r["dtype"] for r in records} == set(get("ARGMAX").dtypes)
    assert {r["params"]["OutputType"] for r in records} == {"int64", "int32", "uint64", "uint32"}


def test_the_selection_passes_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine: the cases ONNX reaches (one axis, INT64 indices)."""
    from test_dml_wine import lane_or_skip
    lane_or_skip()
    chosen = [c for c in _device_selection() if c.dtype in ("float32", "float16") and c.op == "ARGMAX" or c.smoke]
    records = run("dml-wine", chosen)
    reached = [r for r in records if r["status"] != statuses.NOT_REACHABLE]
    assert len(reached) >= 20 and {r["status"] for r in reached} == {statuses.PASS}, \
        [r["message"] for r in reached if r["status"] != "pass"][:3]
    assert any("specials" in r["id"] for r in reached) and any("DECREASING" in r["id"] for r in reached)


def test_the_reports_name_a_wrong_index_by_its_slice_and_values(tmp_path):
    import os
    import subprocess
    import sys
    tests = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))}
    conformance = [sys.executable, "-m", "conformance"]
    results = tmp_path / "faulty.jsonl"
    done = subprocess.run(conformance + ["run", str(CASE_FILES / "argmax.yaml"), "-k", "float32 and ties", "--backend",
                                         "python:faults_argminmax:last_of_equal_extremes", "--results", str(results)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 1, done.stderr
    done = subprocess.run(conformance + ["report", str(results), "--html", str(tmp_path / "r.html"), "--markdown",
                                         str(tmp_path / "r.md")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # the page's tie example: 3 at index 0 and at index 4, INCREASING allows 0 alone
    row = "Input[0:5], allowed 0: at 0 = 3.0, at 4 = 3.0"
    assert f"| [0]     | {row} |        0 |      4 |" in (tmp_path / "r.md").read_text()
    assert row in (tmp_path / "r.html").read_text()


class _ArgDesc(C.Structure):
    """DirectML.h's DML_ARGMAX_OPERATOR_DESC (and DML_ARGMIN_OPERATOR_DESC, the same fields)."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("AxisCount", C.c_uint),
                ("Axes", C.POINTER(C.c_uint)), ("AxisDirection", C.c_int)]


@pytest.mark.parametrize("op", ["ARGMAX", "ARGMIN"])
def test_dml_direct_describes_the_struct_byte_for_byte_as_the_header_lays_it_out(op):
    import json
    import struct

    from conformance.dmldirect import abi, layout
    from conformance.dmldirect.describe import OperatorDescription
    request = layout.request(get(op), "float16", (2, 3, 4), {"Axes": [2, 0], "AxisDirection": DECREASING,
                                                            "OutputType": "uint64"}, output_shape=(1, 3, 1))
    d = OperatorDescription.from_case(json.loads(json.dumps(request)))
    assert d.desc.Type == getattr(abi, f"DML_OPERATOR_{op}") and C.sizeof(d.struct) == C.sizeof(_ArgDesc) == 40
    raw = C.string_at(d.desc.Desc, 40)
    axes = (C.c_uint * 2)(2, 0)
    header = _ArgDesc(d.inputs[0].address, d.output.address, 2, C.cast(axes, C.POINTER(C.c_uint)), 1)
    assert raw[:20] == bytes(header)[:20] and raw[32:36] == bytes(header)[32:36]  # AxisDirection 1: DECREASING
    assert list((C.c_uint * 2).from_address(struct.unpack_from("<Q", raw, 24)[0])) == [2, 0]
    assert list(d.output.buffer.Sizes[:3]) == [1, 3, 1] and d.output.buffer.DataType == abi.DML_TENSOR_DATA_TYPE_UINT64


def test_conformance_specs_prints_the_tables_with_the_output_types_and_the_index_judge():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "conformance", "specs", "ARGMAX", "ARGMIN"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    for struct in ("DML_ARGMAX_OPERATOR_DESC", "DML_ARGMIN_OPERATOR_DESC"):
        text = done.stdout.split(struct, 1)[1]
        assert "family: reduction" in text.split("\n\n")[0]
        assert "DML_FEATURE_LEVEL_4_1  1 to 8              FLOAT32, FLOAT16, INT64, UINT64, INT32, INT16, INT8, " \
               "UINT32, UINT16, UINT8  INT64, INT32, UINT64, UINT32 (OutputType)" in text
        assert "DML_FEATURE_LEVEL_3_0  1 to 8              FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, " \
               "UINT8                 INT64, INT32, UINT64, UINT32 (OutputType)" in text
        assert "d3d: OutputTensor: each element one of the indices the page allows there" in text
