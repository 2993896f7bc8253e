"""TOP_K and TOP_K1, the first operators of several outputs (values and indices): the oracle against
the pages' examples, every case exact through the oracle and ONNX Runtime's CPU provider (a type it has
no kernel for: unsupported, never a pass), the real DirectML under Wine, cases refused at load, the
injected faults caught and named by output, and the reports of several outputs."""
import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.caseset.selection import select
from conformance.run import runner
from conformance.run.results import ResultsWriter

ROOT = Path(__file__).parent.parent
TOP_K = load_file(ROOT / "cases/top_k.yaml") + load_file(ROOT / "cases/top_k1.yaml")
INCREASING = "AxisDirection=DML_AXIS_DIRECTION_INCREASING"
# The pages' input of examples 1 and 2, and of examples 3 and 4 (tied values)
EXAMPLE = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], dtype=np.float32)
TIED = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], dtype=np.float32)


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


@pytest.mark.parametrize("op", ["TOP_K", "TOP_K1"])
def test_the_oracle_gives_the_pages_examples(op):
    values, indices = oracle.evaluate(op, EXAMPLE, "float32", Axis=3, K=2)
    assert values[0, 0].tolist() == [[11, 10], [9, 8], [7, 6]] and indices[0, 0].tolist() == [[3, 2], [2, 3], [3, 2]]
    assert indices.dtype == np.uint32 and values.dtype == np.float32
    values, indices = oracle.evaluate(op, EXAMPLE, "float32", Axis=2, K=2)
    assert values[0, 0].tolist() == [[4, 5, 10, 11], [3, 2, 9, 8]] and indices[0, 0].tolist() == [[2, 2, 0, 0], [1, 1, 1, 1]]
    values, indices = oracle.evaluate(op, TIED, "float32", Axis=3, K=3)  # ties: the lower index first
    assert values[0, 0].tolist() == [[3, 2, 2], [5, 5, 4], [6, 6, 6]] and indices[0, 0].tolist() == [[3, 1, 2], [2, 3, 1], [0, 1, 2]]


def test_top_k1_increasing_is_the_pages_example_4_and_keeps_bits():
    values, indices = oracle.evaluate("TOP_K1", TIED, "float32", Axis=3, K=3, AxisDirection="DML_AXIS_DIRECTION_INCREASING")
    assert values[0, 0].tolist() == [[1, 2, 2], [3, 4, 5], [6, 6, 6]] and indices[0, 0].tolist() == [[0, 1, 2]] * 3
    bits = np.array([0x80000000, 0x00000000, 0x7FC00123, 0x3F800000], dtype=np.uint32)  # -0, +0, a NaN, 1
    values, indices = oracle.evaluate("TOP_K", bits.view(np.float32), "float32", Axis=0, K=3, IndexType="uint64")
    assert values.view(np.uint32).tolist() == [0x7FC00123, 0x3F800000, 0x80000000] and indices.dtype == np.uint64
    big = np.array([2**63 - 1, -2**63, 2**63 - 2], dtype=np.int64)
    assert oracle.evaluate("TOP_K", big, "int64", Axis=0, K=2)[0].tolist() == [2**63 - 1, 2**63 - 2]


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert 150 < len([c for c in TOP_K if c.op == "TOP_K"]) <= 250 and 150 < len([c for c in TOP_K if c.op == "TOP_K1"]) <= 250
    assert {r["status"] for r in run("python:oracle:evaluate", TOP_K)} == {statuses.PASS}
    records = run("cpu", TOP_K)
    passed = [r for r in records if r["status"] == statuses.PASS]
    refused = [r for r in records if r["status"] != statuses.PASS]
    # ONNX Runtime's CPU TopK has kernels for some types only: the others are unsupported, never passes
    assert len(passed) > 250 and {r["status"] for r in refused} == {statuses.UNSUPPORTED_REQUIRED}
    assert all("Could not find an implementation for TopK" in r["message"] for r in refused)
    assert {r["dtype"] for r in refused} and not {r["dtype"] for r in refused} & {r["dtype"] for r in passed}
    record = next(r for r in passed if r["id"] == "TOP_K/float32/rank4[1x1x3x4]/Axis=3,K=3/values")
    assert record["output_shapes"] == [[1, 1, 3, 3]] * 2 and record["elements"] == 18
    assert [(o["name"], o["dtype"]) for o in record["output_tensors"]] == [("OutputValueTensor", "float32"),
                                                                         ("OutputIndexTensor", "uint32")]
    assert [(o["name"], o["mismatches"]) for o in record["outputs"]] == [("OutputValueTensor", 0), ("OutputIndexTensor", 0)]
    uint64 = next(r for r in passed if "int32/rank2[4x6]/Axis=1,K=2,IndexType=uint64" in r["id"])
    assert uint64["output_tensors"][1]["dtype"] == "uint64" and uint64["feature_level"] == "5_0"


@pytest.mark.parametrize("params, said", [
    ("{Axis: 3, K: 2}", "Axis 3 must be less than InputTensor.DimensionCount 3"),
    ("{Axis: 1, K: 0}", "K 0 must be greater than 0 and less than InputTensor.Sizes[Axis] 3"),
    ("{Axis: 2, K: 4}", "K 4 must be greater than 0 and less than InputTensor.Sizes[Axis] 4"),
    ("{K: 1}", "Axis and K are required")])
def test_a_case_whose_axis_or_k_does_not_fit_is_refused_at_load(tmp_path, params, said):
    path = tmp_path / "top_k.yaml"
    path.write_text(f"operator: TOP_K1\ngroups:\n  - dtypes: [float32]\n    shapes: [[2, 3, 4]]\n    params: {params}\n"
                    "    inputs: [{kind: uniform}]\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert f"{path}:4:" in str(error.value) and said in str(error.value), str(error.value)  # the group's shapes


def _failed(records):
    return {r["id"] for r in records if r["status"] == statuses.FAIL}


def test_the_two_outputs_swapped_are_caught_in_both_outputs():
    records = run("python:faults_top_k:top_k_outputs_swapped", TOP_K)
    assert _failed(records) == {r["id"] for r in records}
    record = next(r for r in records if r["id"] == "TOP_K/float32/rank4[1x1x3x4]/Axis=3,K=2/values")
    assert [o["mismatches"] for o in record["outputs"]] == [6, 6]
    assert {w["output"] for w in record["worst"]} == {"OutputValue", "OutputIndex"}
    assert "at OutputValue(0, 0, 0, 0): copied from Input(0, 0, 0, 3) = 11.0" in record["message"]


def test_a_saved_failure_keeps_each_output_by_its_name(tmp_path):
    chosen = select(TOP_K, "TOP_K/float32/rank4[1x1x3x4]/Axis=3,K=2/values")
    record = runner.run(chosen, backends.create("python:faults_top_k:top_k_outputs_swapped"), "6_0", ResultsWriter(None),
                        save_failures=tmp_path).records[0]
    saved = np.load(Path(record["repro"]) / "tensors.npz")
    assert {k: (saved[k].dtype.name, saved[k].shape) for k in saved} == {
        "input": ("float32", (1, 1, 3, 4)), **{f"{side}_{name}": (dtype, (1, 1, 3, 2)) for side in ("expected", "actual")
                                                for name, dtype in (("OutputValue", "float32"), ("OutputIndex", "uint32"))}}
    assert saved["expected_OutputIndex"].tolist() == saved["actual_OutputValue"].astype(np.uint32).tolist()


def test_ties_broken_the_wrong_way_are_caught_where_there_are_ties_alone():
    records = run("python:faults_top_k:top_k_ties_broken_the_wrong_way", TOP_K)
    failed = _failed(records)
    ties = [c for c in TOP_K if "values" in c.id or "integer_extremes" in c.id]
    assert "TOP_K/float32/rank4[1x1x3x4]/Axis=3,K=3/values" in failed  # the page's example 3
    assert f"TOP_K1/float32/rank4[1x1x3x4]/Axis=3,K=3,{INCREASING}/values" in failed  # example 4
    assert all("K=5" not in i or i in failed for i in (c.id for c in ties if "rank2[3x6]" in c.id))
    # float32 values drawn at random have no ties: a correct tie rule there is not flagged
    assert not [i for i in failed if i.startswith("TOP_K/float32/") and "uniform" in i]
    record = next(r for r in records if r["id"] == "TOP_K/float32/rank4[1x1x3x4]/Axis=3,K=3/values")
    assert [o["mismatches"] for o in record["outputs"]][0] == 0  # equal values: only the indices differ
    worst = record["worst"][0]
    assert worst["output"] == "OutputIndex" and worst["allowed"] == [worst["expected"]] != [worst["actual"]]


def test_the_smallest_where_the_largest_were_asked_is_caught():
    records = run("python:faults_top_k:top_k_smallest_where_largest_asked", TOP_K)
    failed = _failed(records)
    increasing = {c.id for c in TOP_K if INCREASING in c.id}
    assert failed == {c.id for c in TOP_K} - increasing  # where the smallest were asked it is right


def test_the_reports_name_each_output(tmp_path):
    tests = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))}
    conformance = [sys.executable, "-m", "conformance"]
    for name, backend in (("faulty", "python:faults_top_k:top_k_ties_broken_the_wrong_way"), ("good", "cpu")):
        done = subprocess.run(conformance + ["run", "cases/top_k.yaml", "-k", "rank4 and values", "--backend", backend,
                                             "--results", str(tmp_path / f"{name}.jsonl")],
                              capture_output=True, text=True, env=env, cwd=ROOT)
        assert done.returncode == (1 if name == "faulty" else 0), done.stderr
    faulty, good = tmp_path / "faulty.jsonl", tmp_path / "good.jsonl"
    done = subprocess.run(conformance + ["report", str(faulty), "--html", str(tmp_path / "r.html"), "--markdown",
                                         str(tmp_path / "r.md"), "--junit", str(tmp_path / "r.xml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    row = r"OutputIndex\[0, 0, \d, \d\] +\| Input\[[^]]*\], allowed \d: at \d = [\d.]+, at \d = [\d.]+"
    assert re.search(row, (tmp_path / "r.md").read_text())
    assert re.search(r"OutputIndex\[0, 0, \d, \d\]</td>", (tmp_path / "r.html").read_text())
    assert re.search(r"at OutputIndex\(0, 0, \d, \d\): Input\[", (tmp_path / "r.xml").read_text())
    for command in (["diff", str(good), str(faulty)], ["compare", str(good), str(faulty)]):
        done = subprocess.run(conformance + command, capture_output=True, text=True)
        assert "TOP_K" in done.stdout and "Traceback" not in done.stderr, done.stderr


# Through the real DirectML under Wine: every data type, each direction, ties, specials, UINT64 indices
WINE_SAMPLE = f"rank4[1x1x3x4] or specials or IndexType=uint64 or rank4[2x3x4x5]/Axis=3,K=3,{INCREASING}"


def test_a_sample_passes_exactly_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine on lavapipe: TopK's values and int64 indices."""
    from needs import missing
    from conformance.backends import dml_wine
    lane, why = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned: {why}")
    chosen = select(TOP_K, WINE_SAMPLE)
    records = run("dml-wine", chosen)
    assert len(records) > 30 and len({r["dtype"] for r in records}) == 10
    assert {r["status"] for r in records} == {statuses.PASS}, [(r["id"], r["message"]) for r in records
                                                              if r["status"] != statuses.PASS][:3]


class _TopK1(ctypes.Structure):
    """DirectML.h's DML_TOP_K1_OPERATOR_DESC, written here from the header, not from abi.py."""
    _fields_ = [("InputTensor", ctypes.c_void_p), ("OutputValueTensor", ctypes.c_void_p),
                ("OutputIndexTensor", ctypes.c_void_p), ("Axis", ctypes.c_uint), ("K", ctypes.c_uint),
                ("AxisDirection", ctypes.c_int)]


def test_dml_direct_describes_both_outputs_byte_for_byte_as_the_header_lays_out_top_k1():
    from conformance.dmldirect import abi, layout
    from conformance.dmldirect.describe import OperatorDescription
    params = {"Axis": 1, "K": 2, "AxisDirection": "DML_AXIS_DIRECTION_INCREASING", "IndexType": "uint64"}
    request = layout.request("TOP_K1", "float16", (3, 5), params, output_shape=(3, 2), output_shapes=((3, 2), (3, 2)))
    assert [f for f, _ in request["desc"]["fields"]] == [f for f, _ in _TopK1._fields_]
    d = OperatorDescription.from_case(request)
    assert d.desc.Type == abi.ENUMS["DML_OPERATOR_TOP_K1"] and ctypes.sizeof(d.struct) == ctypes.sizeof(_TopK1) == 40
    header = _TopK1(d.inputs[0].address, d.outputs[0].address, d.outputs[1].address, 1, 2, 0)  # INCREASING: 0
    assert ctypes.string_at(d.desc.Desc, 36) == bytes(header)[:36]
    values, indices = (t.buffer for t in d.outputs)
    assert (values.DataType, indices.DataType) == (abi.DATA_TYPES["float16"], abi.DATA_TYPES["uint64"])
    assert list(values.Sizes[:2]) == list(indices.Sizes[:2]) == [3, 2] and d.outputs[1].total_bytes == 6 * 8
    assert d.key != OperatorDescription.from_case(layout.request("TOP_K1", "float16", (3, 5), {**params, "IndexType": None},
                                                                  output_shape=(3, 2), output_shapes=((3, 2),) * 2)).key


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe here): both output tensors bound, each read back."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", TOP_K)
    assert {r["status"] for r in records} == {statuses.PASS}, [(r["id"], r["message"]) for r in records
                                                              if r["status"] != statuses.PASS][:3]
    assert {r["dtype"] for r in records} == {"float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32",
                                             "uint16", "uint8"}


def test_conformance_specs_lists_each_level_s_index_types():
    done = subprocess.run([sys.executable, "-m", "conformance", "specs", "TOP_K1"], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith("DML_FEATURE_LEVEL_")}
    assert set(rows) == {"DML_FEATURE_LEVEL_5_0", "DML_FEATURE_LEVEL_3_1", "DML_FEATURE_LEVEL_2_1"}
    assert "OutputIndexTensor data type" in done.stdout and rows["DML_FEATURE_LEVEL_5_0"].endswith("UINT32, UINT64")
    assert rows["DML_FEATURE_LEVEL_3_1"].endswith("UINT32") and "INT64" not in rows["DML_FEATURE_LEVEL_3_1"]


def test_a_device_giving_one_output_of_two_fails_saying_so():
    from conformance.judge.entry import compare_case
    case = select(TOP_K, "TOP_K/float32/rank4[1x1x3x4]/Axis=3,K=2/values")[0]
    x = case.make_input()
    values, indices = oracle.evaluate(case.op, x, case.dtype, **case.params)
    for given, wrong in ((values, 12), ((values,), 12), ((values, indices.astype(np.int64)), 6)):
        comparison = compare_case(case, x, given)
        assert not comparison.passed and comparison.elements == 12 and comparison.mismatches == wrong
    assert compare_case(case, x, values).problem == "1 output(s), expected 2 (OutputValueTensor, OutputIndexTensor)"
    assert compare_case(case, x, (values, indices.astype(np.int64))).problem == \
        "OutputIndex: output data type int64, expected uint32"
    assert compare_case(case, x, (values, indices)).passed


def test_onnx_indices_outside_directml_s_index_type_are_not_wrapped_into_it():
    from conformance.backends.onnx_models import outputs_as_directml
    node = specs.get("TOP_K").to_onnx("float32", {"Axis": 0, "K": 2})
    values = np.zeros(2, np.float32)
    assert outputs_as_directml(node, [values, np.array([1, 0])])[1].dtype == np.uint32
    for wrong in ([-1, 0], [2**32 + 1, 0]):  # kept in ONNX's int64: the judge says the type is wrong
        assert outputs_as_directml(node, [values, np.array(wrong)])[1].tolist() == wrong
