"""Operators of no input tensor (issue 25, the GENERATOR family): FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE,
DIAGONAL_MATRIX and DIAGONAL_MATRIX1 (its InputTensor optional). The oracles against the pages' examples; every
case through the oracle, ONNX Runtime's CPU provider where ONNX reaches it, dml-direct and dml-wine (the real
DirectML.dll under Wine); bad cases refused at load with file and line; injected faults caught."""
import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.caseset.selection import select
from conformance.dmldirect import layout
from conformance.run import runner
from conformance.run.results import ResultsWriter

FILES = {"FILL_VALUE_CONSTANT": "cases/fill_value_constant.yaml", "FILL_VALUE_SEQUENCE": "cases/fill_value_sequence.yaml",
         "DIAGONAL_MATRIX": "cases/diagonal_matrix.yaml", "DIAGONAL_MATRIX1": "cases/diagonal_matrix1.yaml"}
CASES = {op: load_file(path) for op, path in FILES.items()}
ALL = [c for cases in CASES.values() for c in cases]


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def test_the_oracles_are_the_pages_examples():
    def evaluate(op, dtype, sizes, x=(), **fields):
        return oracle.evaluate(op, x, dtype, OutputSizes=sizes, **fields)
    constant = evaluate("FILL_VALUE_CONSTANT", "float32", [1, 1, 2, 4], Value=13.0)
    assert constant.dtype == np.float32 and constant.tolist() == [[[[13.0] * 4] * 2]]
    assert evaluate("FILL_VALUE_SEQUENCE", "float32", [1, 1, 1, 3], ValueStart=3, ValueDelta=2).tolist() == [[[[3, 5, 7]]]]
    # example 2's ValueDelta -2 in a UINT8 union: 254
    assert evaluate("FILL_VALUE_SEQUENCE", "uint8", [1, 1, 2, 2], ValueStart=10, ValueDelta=254).tolist() == \
        [[[[10, 8], [6, 4]]]]
    for offset, sizes, rows in ((0, [1, 1, 3, 3], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
                                (1, [1, 1, 3, 3], [[0, 1, 0], [0, 0, 1], [0, 0, 0]]),
                                (-1, [1, 1, 3, 2], [[0, 0], [1, 0], [0, 1]]),
                                (-3, [1, 1, 3, 2], [[0, 0], [0, 0], [0, 0]])):
        assert evaluate("DIAGONAL_MATRIX", "float32", sizes, Offset=offset, Value=1.0)[0, 0].tolist() == rows
    assert evaluate("DIAGONAL_MATRIX", "int32", [2, 2], Value=10.6).tolist() == [[10, 0], [0, 10]]  # truncated
    page = np.array([[4, 7, 3, 7, 9], [1, 2, 8, 6, 9], [9, 4, 1, 8, 7], [4, 3, 4, 2, 4]], dtype=np.float32)
    strip = evaluate("DIAGONAL_MATRIX1", "float32", [4, 5], Value=7, DiagonalFillBegin=0, DiagonalFillEnd=3)
    assert strip.tolist() == [[7, 7, 7, 0, 0], [0, 7, 7, 7, 0], [0, 0, 7, 7, 7], [0, 0, 0, 7, 7]]
    upper = evaluate("DIAGONAL_MATRIX1", "float32", [4, 5], page, Value=0, DiagonalFillBegin=-2**31, DiagonalFillEnd=1,
                     InputTensor="present")
    assert upper.tolist() == [[0, 7, 3, 7, 9], [0, 0, 8, 6, 9], [0, 0, 0, 8, 7], [0, 0, 0, 0, 4]]
    diagonal = evaluate("DIAGONAL_MATRIX1", "float32", [4, 5], page, Value=0, DiagonalFillBegin=1, DiagonalFillEnd=0,
                        InputTensor="present")
    assert diagonal.tolist() == [[4, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 2, 0]]


def test_a_value_keeps_its_type_to_the_last_bit():
    big = 2**53 + 1
    assert oracle.evaluate("FILL_VALUE_CONSTANT", (), "int64", Value=big, OutputSizes=[2]).tolist() == [big, big]
    top = 2**64 - 1
    assert oracle.evaluate("FILL_VALUE_SEQUENCE", (), "uint64", ValueStart=top - 1, ValueDelta=1,
                           OutputSizes=[3]).tolist() == [top - 1, top, 0]  # wrapped
    assert np.signbit(oracle.evaluate("FILL_VALUE_CONSTANT", (), "float16", Value=-0.0, OutputSizes=[1])[0])


def test_a_case_of_no_input_has_no_input_anywhere():
    case = select(ALL, "FILL_VALUE_CONSTANT/float32/rank4[1x1x2x4]/Value=13")[0]
    assert case.no_input and case.make_input() == () and case.input_shapes == () and case.outputs == ((1, 1, 2, 4),)
    assert case.params["OutputSizes"] == [1, 1, 2, 4] and not case.id.endswith("/")
    record, = run("python:oracle:evaluate", [case])
    assert record["status"] == statuses.PASS and record["input_shapes"] == [] and record["elements"] == 8
    # the description: no input tensor field, OutputTensor first; DIAGONAL_MATRIX1's absent InputTensor NULL
    assert layout.layout(specs.get("FILL_VALUE_CONSTANT"))["fields"] == [
        ["OutputTensor", "tensor"], ["ValueDataType", "data_type"], ["Value", "scalar"]]
    spec = specs.get("DIAGONAL_MATRIX1")
    assert layout.layout(spec, spec.absent_tensors({"InputTensor": "absent"}))["fields"][:2] == [
        ["InputTensor", "absent_tensor"], ["OutputTensor", "tensor"]]


@pytest.mark.parametrize("op, group, said", [
    ("FILL_VALUE_CONSTANT", "    shapes: [[2, 3]]\n    inputs: [{kind: uniform}]\n",
     "FILL_VALUE_CONSTANT has no input tensor: give no inputs"),
    ("FILL_VALUE_SEQUENCE", "    shapes: [auto]\n", "give OutputTensor's sizes as a list, not 'auto'"),
    ("FILL_VALUE_CONSTANT", "    shapes: [[2, 3]]\n    params: {Value: 300}\n", "Value 300 is not a int8 value"),
    ("DIAGONAL_MATRIX", "    shapes: [[2, 3, 4, 5, 6]]\n", "DIAGONAL_MATRIX never allows 5 dimensions"),
    ("DIAGONAL_MATRIX1", "    shapes: [[2, 3]]\n    params: {InputTensor: present}\n",
     "DIAGONAL_MATRIX1 takes Input in this case: give its generator"),
    ("DIAGONAL_MATRIX1", "    shapes: [[2, 3]]\n    inputs: [{kind: uniform}]\n",
     "DIAGONAL_MATRIX1 has no input tensor in this case: give no inputs"),
])
def test_a_bad_case_is_refused_at_load_naming_file_and_line(tmp_path, op, group, said):
    path = tmp_path / "bad.yaml"
    path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [int8]\n{group}")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert len(error.value.problems) == 1 and error.value.problems[0].startswith(f"{path}:")
    assert said in error.value.problems[0], error.value.problems[0]


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert all(100 <= len(cases) <= 250 for cases in CASES.values())
    assert {r["status"] for r in run("python:oracle:evaluate", ALL)} == {statuses.PASS}
    records = {r["id"]: r for r in run("cpu", CASES["FILL_VALUE_CONSTANT"] + CASES["FILL_VALUE_SEQUENCE"]
                                       + CASES["DIAGONAL_MATRIX"][:3] + CASES["DIAGONAL_MATRIX1"][:3])}
    assert {r["status"] for r in records.values()} == {statuses.PASS, statuses.NOT_REACHABLE}
    # ConstantOfShape reaches every constant; Range only 1-D sequences of its kernel's types; no node the diagonals
    for record in records.values():
        reachable = {"FILL_VALUE_CONSTANT": True, "FILL_VALUE_SEQUENCE": len(record["output_shapes"][0]) == 1 and
                     record["dtype"] in ("float32", "int32", "int16", "int64")}.get(record["op"], False)
        assert reachable or record["status"] == statuses.NOT_REACHABLE, record["id"]
    assert all(r["status"] == statuses.PASS for r in records.values() if r["op"] == "FILL_VALUE_CONSTANT")
    assert sum(r["status"] == statuses.PASS for r in records.values() if r["op"] == "FILL_VALUE_SEQUENCE") >= 20
    long_one = records["FILL_VALUE_SEQUENCE/float32/rank1[4096]/ValueStart=1000.25,ValueDelta=0.3"]
    assert long_one["status"] == statuses.PASS and long_one["output_shapes"] == [[4096]]


def _lane():
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe here): no input bound, the output of the case's sizes, the
    DML_SCALAR_UNION of ValueDataType; DIAGONAL_MATRIX1 with its InputTensor NULL or bound."""
    _lane()
    records = run("dml-direct", ALL)
    assert {r["status"] for r in records} == {statuses.PASS}, [(r["id"], r["message"]) for r in records
                                                               if r["status"] != statuses.PASS][:3]
    assert max(r["max_ulp"] for r in records if r["op"] != "FILL_VALUE_SEQUENCE") == 0


def test_onnx_runtime_s_directml_provider_never_runs_them():
    """ONNX Runtime's DirectML provider under Wine: a ConstantOfShape or Range of initializers alone is not in the
    provider's profile (cpu-fallback, its values right), the diagonals have no ONNX node: never a pass."""
    from needs import missing
    from conformance.backends import dml_wine
    lane, reason = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({reason})")
    chosen = select(ALL, "FILL_VALUE_CONSTANT/float32/rank4[1x1x2x4] or int32/rank1[100] or rank1[4096]/ValueStart=1000.25 "
                         "or rank4[1x1x3x3] or page")
    records = run("dml-wine", chosen)
    assert {r["op"] for r in records} == set(FILES) and len(records) >= 10
    for record in records:
        if record["op"].startswith("FILL_VALUE"):
            assert record["status"] == statuses.CPU_FALLBACK and "not in the profile" in record["message"], record["id"]
            assert record["max_ulp"] == 0 or record["op"] == "FILL_VALUE_SEQUENCE"
        else:
            assert record["status"] == statuses.NOT_REACHABLE, (record["id"], record["message"])


def _changed(case, fault):
    """Whether the fault's output differs from the oracle's (NaN equal to NaN, -0 to +0)."""
    import faults_zero_input
    x = case.make_input()
    good = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
    bad = getattr(faults_zero_input, fault)(case.op, x, case.dtype, **case.oracle_params())
    return not np.array_equal(good, bad, equal_nan=good.dtype.kind == "f")


@pytest.mark.parametrize("fault, ops", [("diagonal_one_column_off", ("DIAGONAL_MATRIX", "DIAGONAL_MATRIX1")),
                                        ("delta_applied_once_too_many", ("FILL_VALUE_SEQUENCE",)),
                                        ("value_type_ignored", ("FILL_VALUE_CONSTANT",))])
def test_a_fault_is_caught_exactly_where_it_changes_the_output(fault, ops):
    chosen = [c for op in ops for c in CASES[op]]
    records = {r["id"]: r for r in run(f"python:faults_zero_input:{fault}", chosen)}
    failed = {i for i, r in records.items() if r["status"] == statuses.FAIL}
    changed = {c.id for c in chosen if _changed(c, fault)}
    assert failed == changed and len(failed) >= 7, sorted(failed ^ changed)[:5]
    assert {r["status"] for i, r in records.items() if i not in failed} == {statuses.PASS}


def test_a_wrong_element_is_named_by_its_output_index_and_the_page_s_value():
    case = select(ALL, "DIAGONAL_MATRIX/float32/rank4[1x1x3x3]/Offset=0")[0]
    record, = run("python:faults_zero_input:diagonal_one_column_off", [case])
    worst = record["d3d"]["worst"]
    assert record["status"] == statuses.FAIL and record["mismatches"] == 5
    for item in worst:
        n, c, y, x = item["index"]
        assert item["source"] is None and item["expected"] == (1.0 if x == y else 0.0) != item["actual"]
    case = select(ALL, "FILL_VALUE_CONSTANT/int64/rank2[2x3]/Value=9007199254740993")[0]
    record, = run("python:faults_zero_input:value_type_ignored", [case])
    assert record["status"] == statuses.FAIL and record["d3d"]["worst"][0]["expected"] == 2**53 + 1
    assert record["d3d"]["worst"][0]["actual"] == 2**53


def test_the_reports_name_the_page_s_constant_where_there_is_no_input(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    tests = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))}
    conformance = [sys.executable, "-m", "conformance"]
    results = tmp_path / "faulty.jsonl"
    done = subprocess.run(conformance + ["run", "cases/diagonal_matrix.yaml", "-k", "rank4[1x1x3x3]", "--backend",
                                         "python:faults_zero_input:diagonal_one_column_off", "--results", str(results)],
                          capture_output=True, text=True, env=env, cwd=Path(tests).parent)
    assert done.returncode == 1, done.stderr
    done = subprocess.run(conformance + ["report", str(results), "--markdown", str(tmp_path / "r.md"), "--html",
                                         str(tmp_path / "r.html")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # the element's output index, no input element: the value the page fills there
    assert "| [0, 0, 0, 0] | the page's constant 1.0 `0x3f800000` | 1.0 `0x3f800000` | 0.0 `0x00000000` |" in \
        (tmp_path / "r.md").read_text()
    assert "DIAGONAL_MATRIX/float32/rank4[1x1x3x3]/Offset=0" in (tmp_path / "r.html").read_text()


def test_diagonal_matrix1_s_description_byte_for_byte_as_the_header_lays_it_out():
    """DirectML.h: { _Maybenull_ const DML_TENSOR_DESC* InputTensor; const DML_TENSOR_DESC* OutputTensor;
    DML_TENSOR_DATA_TYPE ValueDataType; DML_SCALAR_UNION Value; INT DiagonalFillBegin; INT DiagonalFillEnd; }:
    InputTensor NULL where absent, Value an INT64 no double holds."""
    import ctypes as C
    import struct
    from conformance.dmldirect import abi
    from conformance.dmldirect.describe import OperatorDescription

    class Header(C.Structure):
        _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("ValueDataType", C.c_int),
                    ("Value", C.c_byte * 8), ("DiagonalFillBegin", C.c_int), ("DiagonalFillEnd", C.c_int)]
    params = {"Value": 2**53 + 1, "DiagonalFillBegin": -1, "DiagonalFillEnd": 2, "OutputSizes": [3, 4],
              "InputTensor": "absent"}
    d = OperatorDescription.from_case(layout.request("DIAGONAL_MATRIX1", "int64", (3, 4), params))
    assert d.desc.Type == abi.DML_OPERATOR_DIAGONAL_MATRIX1 and C.sizeof(d.struct) == C.sizeof(Header) == 40
    raw = C.string_at(d.desc.Desc, 40)
    assert struct.unpack_from("<QQi", raw, 0) == (0, d.output.address, abi.DML_TENSOR_DATA_TYPE_INT64)
    assert struct.unpack_from("<qii", raw, 24) == (2**53 + 1, -1, 2) and d.inputs == []
    assert list(d.output.buffer.Sizes[:2]) == [3, 4] and d.input_slots == [False] and d.output_slots == [True]
