"""ONE_HOT, NONZERO_COORDINATES and MAX_UNPOOLING (issue 25, the index family): the oracles against the
pages' examples, every case through the oracle, ONNX Runtime's CPU provider (where ONNX reaches it),
dml-direct and dml-wine on the real DirectML.dll, judged exactly (MAX_UNPOOLING's colliding writes: any of
them; NONZERO_COORDINATES' rows past the count: any value, as the pages say), bad cases refused at load,
and the faults of tests/faults_one_hot_nonzero.py caught."""
import numpy as np
import pytest

import faults_one_hot_nonzero as faults
import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.judge.compare import differing
from conformance.run import runner
from conformance.run.results import ResultsWriter

OPERATORS = ("ONE_HOT", "NONZERO_COORDINATES", "MAX_UNPOOLING")
CASES = load_paths([f"cases/{op.lower()}.yaml" for op in OPERATORS])
BY_OP = {op: [c for c in CASES if c.op == op] for op in OPERATORS}
# DirectML reads a 64-bit signed index by its low 32 bits: 2^62 lands on element 0
# (docs/findings/issue25-one_hot_nonzero.md)
LOW_BITS = {f"ONE_HOT/{t}/rank3[Indices=2x4x1,Values=1x1x2]/Axis=2,IndicesType=int64,OutputSizes=[2,4,3]/int64-largest"
            for t in ("float32", "int16")}


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def statuses_of(records) -> set:
    return {r["status"] for r in records}


def test_the_oracles_are_the_pages_examples():
    def one_hot(indices, values, axis, sizes, index_type="uint32"):
        x = (np.array(indices, dtype=index_type), np.array(values, dtype=np.float32))
        return oracle.evaluate("ONE_HOT", x, "float32", Axis=axis, OutputSizes=sizes).tolist()
    assert one_hot([[[[0], [3], [2]]]], [[[[0, 1]]]], 3, [1, 1, 3, 4]) == \
        [[[[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]]]
    assert one_hot([[[[0, 2, 1, 0]]]], [[[[0, 1]]]], 2, [1, 1, 3, 4]) == \
        [[[[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]]]]
    assert one_hot([[[[0], [3], [2]]]], [[[[4], [2], [9]]]], 3, [1, 1, 3, 4]) == \
        [[[[2, 4, 4, 4], [4, 4, 4, 2], [4, 4, 2, 4]]]]
    assert one_hot([[[[-3], [100], [3]]]], [[[[0, 1]]]], 3, [1, 1, 3, 4], "int32") == \
        [[[[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]]]
    x = np.array([[[[1.0, 0.0, 0.0, 2.0], [-0.0, 3.5, 0.0, -5.2]]]], dtype=np.float32)
    count, rows = oracle.evaluate("NONZERO_COORDINATES", x, "float32", OutputCoordinatesSizes=[1, 1, 8, 3])
    assert count.tolist() == [[[[4]]]] and count.dtype == rows.dtype == np.uint32
    assert rows[0, 0, :4].tolist() == [[0, 0, 0], [0, 0, 3], [0, 1, 1], [0, 1, 3]]
    # the page's order: non-zero values at {1,0}, {1,2} and {0,5} are written [[0,5], [1,0], [1,2]]
    x = np.zeros((2, 6), dtype=np.float32)
    x[1, 0] = x[1, 2] = x[0, 5] = 1
    assert oracle.evaluate("NONZERO_COORDINATES", x, "float32")[1][:3].tolist() == [[0, 5], [1, 0], [1, 2]]
    # no example on MAX_UNPOOLING's page: a 4x4 max pooled by 2x2 windows, unpooled
    x = (np.array([[[[5, 6], [7, 8]]]], dtype=np.float32), np.array([[[[1, 7], [8, 14]]]], dtype=np.uint32))
    got = oracle.evaluate("MAX_UNPOOLING", x, "float32", OutputSizes=[1, 1, 4, 4])
    assert got.reshape(-1).tolist() == [0, 5, 0, 0, 0, 0, 0, 6, 7, 0, 0, 0, 0, 0, 8, 0]


def test_the_oracles_copy_bits_and_ignore_indices_beyond_the_sequence():
    bits = np.array([0x7FC00123, 0x80000000], dtype=np.uint32)
    x = (np.array([[0], [5], [4294967295]], dtype=np.uint32), bits.view(np.float32).reshape(1, 2))
    got = oracle.evaluate("ONE_HOT", x, "float32", Axis=1, OutputSizes=[3, 2]).view(np.uint32)
    assert got.tolist() == [[0x80000000, 0x7FC00123], [0x7FC00123] * 2, [0x7FC00123] * 2]
    x = (bits.view(np.float32).reshape(1, 1, 1, 2), np.array([[[[3, 0]]]], dtype=np.uint64))
    got = oracle.evaluate("MAX_UNPOOLING", x, "float32", OutputSizes=[1, 1, 2, 2]).view(np.uint32)
    assert got.reshape(-1).tolist() == [0x80000000, 0, 0, 0x7FC00123]


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert {op: len(BY_OP[op]) for op in OPERATORS} == {"ONE_HOT": 175, "NONZERO_COORDINATES": 111,
                                                        "MAX_UNPOOLING": 70}
    assert statuses_of(run("python:oracle:evaluate", CASES)) == {statuses.PASS}
    records = run("cpu", CASES)
    passed = [r for r in records if r["status"] == statuses.PASS]
    assert {r["op"] for r in passed} == set(OPERATORS) and len(passed) > 120
    assert max(r["max_ulp"] for r in passed) == 0
    for record in records:  # what ONNX cannot say, or ONNX Runtime's CPU provider does not have: never a pass
        if record["status"] == statuses.NOT_REACHABLE:
            assert "ONNX's" in record["message"], (record["id"], record["message"])
        elif record["status"] != statuses.PASS:
            assert record["status"] == "unsupported-required" and "NOT_IMPLEMENTED" in record["message"], \
                (record["id"], record["status"], record["message"][:200])


def test_every_table_has_cases_on_both_sides_of_its_level_boundaries():
    levels = {(c.op, c.required_level) for c in CASES}
    assert {("ONE_HOT", "2_0"), ("ONE_HOT", "2_1"), ("ONE_HOT", "3_0"), ("ONE_HOT", "4_1"),
            ("NONZERO_COORDINATES", "3_0"), ("NONZERO_COORDINATES", "4_0"), ("MAX_UNPOOLING", "3_0"),
            ("MAX_UNPOOLING", "5_0")} == levels
    level = {c.id.split("/", 1)[1]: c.required_level for c in BY_OP["NONZERO_COORDINATES"]}
    # 3_0 allows 4 or 5 dimensions for every tensor: coordinates of 2 (of a 4-D input) need 4_0
    assert level["float32/rank4[1x1x3x4]/OutputCoordinatesSizes=[1,1,12,4]/zeros-among-7"] == "3_0"
    assert level["float32/rank4[1x1x3x4]/OutputCoordinatesSizes=[12,2]/zeros-among-7"] == "4_0"
    level = {c.id.split("/", 1)[1]: c.required_level for c in BY_OP["ONE_HOT"]}
    assert level["float32/rank4[Indices=1x1x3x1,Values=1x1x1x2]/Axis=3,IndicesType=uint32,OutputSizes=[1,1,3,4]/"
                 "page-example-1"] == "2_0"
    assert level["float32/rank4[Indices=1x1x3x1,Values=1x1x1x2]/Axis=3,IndicesType=int32,OutputSizes=[1,1,3,4]/"
                 "page-example-1"] == "3_0"


def test_nonzero_through_onnx_is_read_as_directmls_count_and_rows():
    """NonZero's [DimensionCount, count] through the CPU provider: the count, then the coordinates one row
    each, the last N columns (N below the DimensionCount)."""
    case, = select(CASES, "NONZERO_COORDINATES/float32/rank4[1x1x2x4]/OutputCoordinatesSizes=[1,1,8,3]/page-example")
    record, = run("cpu", [case])
    assert record["status"] == statuses.PASS and record["output_shapes"] == [[1, 1, 1, 1], [1, 1, 8, 3]]
    assert [o["name"] for o in record["outputs"]] == ["OutputCountTensor", "OutputCoordinatesTensor"]


GROUP = "operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [{shapes}]\n    params: {{{params}}}\n" \
        "    inputs: [{inputs}]\n"
ONE_HOT_INPUTS = "{each: {Indices: {kind: indices}, Values: {kind: uniform}}}"


@pytest.mark.parametrize("op, shapes, params, inputs, said", [
    ("ONE_HOT", "{Indices: [2, 3], Values: [1, 2]}", "Axis: 1, OutputSizes: {array: [2, 4]}", ONE_HOT_INPUTS,
     "IndicesTensor.Sizes[Axis] is 3: the size of the Axis dimension must be 1"),
    ("ONE_HOT", "{Indices: [2, 1], Values: [1, 2]}", "Axis: 1, OutputSizes: {array: [3, 4]}", ONE_HOT_INPUTS,
     "must equal IndicesTensor.Sizes [2, 1] except along Axis 1"),
    ("ONE_HOT", "{Indices: [2, 1], Values: [1, 1]}", "Axis: 1, OutputSizes: {array: [2, 4]}", ONE_HOT_INPUTS,
     "it must contain at least two"),
    ("ONE_HOT", "{Indices: [2, 1], Values: [1, 2]}", "Axis: 2, OutputSizes: {array: [2, 4]}", ONE_HOT_INPUTS,
     "Axis 2 must be less than IndicesTensor.DimensionCount 2"),
    ("ONE_HOT", "{Indices: [2, 1], Values: [1, 2]}", "Axis: 1", ONE_HOT_INPUTS, "OutputSizes is required"),
    ("ONE_HOT", "{Indices: [2, 1], Values: [1, 2]}", "Axis: 1, OutputSizes: {array: [2, 4]}",
     "{each: {Indices: {kind: indices, negative: true}, Values: {kind: uniform}}}", "negative indices need a signed"),
    ("NONZERO_COORDINATES", "[2, 3, 4]", "OutputCoordinatesSizes: {array: [1, 20, 3]}", "{kind: uniform}",
     "with M = 24, the InputTensor's element count"),
    ("NONZERO_COORDINATES", "[1, 2, 3, 4]", "OutputCoordinatesSizes: {array: [24, 2]}", "{kind: uniform}",
     "N 2 must be from the InputTensor's effective rank 3 up to its DimensionCount 4"),
    ("MAX_UNPOOLING", "{Input: [1, 1, 2, 2], Indices: [1, 1, 2, 2]}", "IndicesType: uint32",
     "{each: {Input: {kind: uniform}, Indices: {kind: indices}}}", "OutputSizes is required"),
    ("MAX_UNPOOLING", "{Input: [1, 1, 2, 2], Indices: [1, 1, 2, 2]}", "OutputSizes: {array: [1, 1, 2, 3]}",
     "{each: {Input: {kind: uniform}, Indices: {kind: values, values: [0, 6]}}}",
     "Indices[0, 0, 0, 1] = 6 is out of range: the dimension it addresses has 6 elements"),
    ("MAX_UNPOOLING", "{Input: [1, 1, 2, 2], Indices: [1, 1, 2, 1]}", "OutputSizes: {array: [1, 1, 4, 4]}",
     "{each: {Input: {kind: uniform}, Indices: {kind: indices}}}", "must be InputTensor.Sizes [1, 1, 2, 2]"),
])
def test_a_bad_case_is_refused_at_load_in_one_line_naming_file_and_line(tmp_path, op, shapes, params, inputs, said):
    path = tmp_path / f"{op.lower()}.yaml"
    path.write_text(GROUP.format(op=op, shapes=shapes, params=params, inputs=inputs))
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    message = str(error.value)
    assert message.count("\n") == 0 and f"{path}:" in message and said in message, message


def test_source_index_names_the_element_each_output_element_copies_in_every_case():
    for case in BY_OP["ONE_HOT"] + BY_OP["MAX_UNPOOLING"]:
        spec, x = specs.get(case.op), case.make_input()
        expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
        which, source = spec.source_index(np.indices(expected.shape, sparse=False), x, case.params)
        which = np.broadcast_to(which, expected.shape)
        copied = np.zeros_like(expected)  # -1: MAX_UNPOOLING's untouched zero
        for k in set(np.unique(which)) - {-1}:
            copied[which == k] = x[k][tuple(np.broadcast_to(s, expected.shape)[which == k] for s in source)]
        assert copied.tobytes() == expected.tobytes(), case.id


def _failed(records) -> set:
    return {r["id"] for r in records if r["status"] == statuses.FAIL}


def _changes(fault, case) -> bool:
    """Whether the fault's output differs from the oracle's anywhere (as the exact judge compares: NaN
    equal to NaN)."""
    x = case.make_input()
    got, expected = fault(case.op, x, case.dtype, **case.params), oracle.evaluate(case.op, x, case.dtype, **case.params)
    return bool(differing(np.ravel(expected), np.ravel(got)).any())


def test_on_and_off_values_swapped_are_caught_where_they_differ():
    records = run("python:faults_one_hot_nonzero:one_hot_with_on_and_off_swapped", CASES)
    failed = _failed(records)
    for case in BY_OP["ONE_HOT"]:
        assert (case.id in failed) == _changes(faults.one_hot_with_on_and_off_swapped, case), case.id
    assert len(failed) > 150
    record = next(r for r in records
                  if r["id"].endswith("Axis=3,IndicesType=int32,OutputSizes=[1,1,3,4]/page-example-1"))
    worst = record["d3d"]["worst"][0]
    assert worst["source_input"] == "Values" and worst["input"] == worst["expected"] != worst["actual"]
    assert not failed - {c.id for c in BY_OP["ONE_HOT"]}  # the other operators as the oracle


def test_nonzeros_transposed_coordinates_and_count_off_by_one_are_caught():
    nonzero = BY_OP["NONZERO_COORDINATES"]
    transposed = _failed(run("python:faults_one_hot_nonzero:nonzero_with_coordinates_transposed", nonzero))
    for case in nonzero:
        count, rows = oracle.evaluate(case.op, case.make_input(), case.dtype, **case.oracle_params())
        square = rows.reshape(rows.shape[-2:])
        changed = not np.array_equal(square.T.reshape(square.shape)[:int(count.flat[0])], square[:int(count.flat[0])])
        assert (case.id in transposed) == changed, case.id
    assert len(transposed) > 80
    records = run("python:faults_one_hot_nonzero:nonzero_with_its_count_off_by_one", nonzero)
    assert statuses_of(records) == {statuses.FAIL}
    worst = records[0]["d3d"]["worst"][0]
    assert worst["output"] == "OutputCount" and worst["actual"] == worst["expected"] + 1 == 5


def test_undefined_rows_and_colliding_writes_accept_any_value_the_pages_leave_open():
    records = run("python:faults_one_hot_nonzero:rows_past_the_count_filled", BY_OP["NONZERO_COORDINATES"])
    assert statuses_of(records) == {statuses.PASS}
    records = run("python:faults_one_hot_nonzero:colliding_writes_first_wins", BY_OP["MAX_UNPOOLING"])
    assert statuses_of(records) == {statuses.PASS}


def test_unpooling_at_the_inputs_own_index_is_caught_naming_the_source():
    unpooling = BY_OP["MAX_UNPOOLING"]
    records = run("python:faults_one_hot_nonzero:unpooling_at_the_inputs_index", unpooling)
    failed = _failed(records)
    assert failed == {c.id for c in unpooling if _changes(faults.unpooling_at_the_inputs_index, c)}
    assert len(failed) > 60
    record = next(r for r in records if r["id"].endswith("/pooled-2x2"))
    sources = {tuple(w["index"]): w for w in record["d3d"]["worst"]}
    assert sources[(0, 0, 0, 1)]["source"] == [0, 0, 0, 0] and sources[(0, 0, 0, 1)]["expected"] == 5


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe here): each input with its own sizes and type, the
    outputs with theirs (NONZERO_COORDINATES' two UINT32 outputs); the findings page's exceptions."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", CASES)
    bad = [(r["id"], r["status"], r["message"][:200]) for r in records if r["status"] != statuses.PASS
           and r["id"] not in LOW_BITS]
    assert not bad, bad[:3]
    assert {r["id"] for r in records if r["status"] == statuses.FAIL} == LOW_BITS
    assert max(r["max_ulp"] for r in records if r["status"] == statuses.PASS) == 0


def test_the_smoke_cases_and_a_sample_pass_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine: OneHot, NonZero (alone: docs/findings) and MaxUnpool."""
    from needs import missing
    from conformance.backends import dml_wine
    lane, why = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned: {why}")
    chosen = [c for c in CASES if c.smoke or "page-example" in c.id or "beyond" in c.id]
    assert {c.op for c in chosen if c.smoke} == set(OPERATORS)
    records = run("dml-wine", chosen)
    assert {r["status"] for r in records if r["id"] not in LOW_BITS} <= {statuses.PASS, statuses.NOT_REACHABLE}
    passed = [r for r in records if r["status"] == statuses.PASS]
    assert {r["op"] for r in passed} == set(OPERATORS) and len(passed) > 20
    assert all(set(r["placement"].values()) == {"DmlExecutionProvider"} for r in passed)


def test_the_reports_name_a_wrong_count_by_its_output(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    tests = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))}
    conformance, results = [sys.executable, "-m", "conformance"], str(tmp_path / "faulty.jsonl")
    done = subprocess.run(conformance + ["run", "cases/nonzero_coordinates.yaml", "-k", "page-example", "--backend",
                                         "python:faults_one_hot_nonzero:nonzero_with_its_count_off_by_one",
                                         "--results", results], capture_output=True, text=True, env=env,
                          cwd=Path(tests).parent)
    assert done.returncode == 1, done.stderr
    done = subprocess.run(conformance + ["report", results, "--markdown", str(tmp_path / "r.md"), "--junit",
                                         str(tmp_path / "r.xml")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "| OutputCount[0, 0, 0, 0] | allowed 4 |" in (tmp_path / "r.md").read_text()
    assert "OutputCount(0, 0, 0, 0)" in (tmp_path / "r.xml").read_text()
