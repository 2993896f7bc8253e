"""TILE, the first operator of the data movement family: its cases through the oracle and ONNX Runtime's
CPU provider exactly, the family's exact judge (a wrong element named by its output index and the input
index it is copied from), injected faults, and the reports of records whose output is not the input's
shape."""
import json
import re

import numpy as np

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter

TILE = [c for c in load_paths() if c.op == "TILE"]


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def test_the_oracle_is_the_pages_example():
    x = np.array([[[[1, 2, 3], [4, 5, 6]]]], dtype=np.float32)
    got = oracle.evaluate("TILE", x, "float32", Repeats=[1, 1, 3, 3])
    assert got.shape == (1, 1, 6, 9)
    assert got[0, 0].tolist() == [[1, 2, 3] * 3, [4, 5, 6] * 3] * 3


def test_the_oracle_copies_bits_nan_payloads_included():
    bits = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001], dtype=np.uint32)
    got = oracle.evaluate("TILE", bits.view(np.float32), "float32", Repeats=[2])
    assert got.view(np.uint32).tolist() == bits.tolist() * 2
    big = np.array([2**63 - 1, -2**63, 2**53 + 1], dtype=np.int64)
    assert oracle.evaluate("TILE", big, "int64", Repeats=[2]).tolist() == big.tolist() * 2


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert len(TILE) > 100
    for name in ("python:oracle:evaluate", "cpu"):
        records = run(name, TILE)
        assert {r["status"] for r in records} == {statuses.PASS}, name
        assert max(r["max_ulp"] for r in records) == 0
    record = next(r for r in records if r["id"] == "TILE/float32/rank4[1x1x2x3]/Repeats=[1,1,3,3]/"
                                                  "uniform[-1000,1000]")
    assert record["input_shapes"] == [[1, 1, 2, 3]] and record["output_shapes"] == [[1, 1, 6, 9]]
    assert record["elements"] == 54


def test_a_case_whose_repeats_do_not_fit_the_input_is_refused_at_load(tmp_path):
    path = tmp_path / "tile.yaml"
    for repeats, said in (("[2, 3]", "RepeatsCount 2 (the length of Repeats) must be InputTensor.DimensionCount 3"),
                          ("[2, 0, 1]", "values must be larger than 0")):
        path.write_text("operator: TILE\ngroups:\n  - dtypes: [float32]\n    shapes: [[2, 3, 4]]\n"
                        f"    params:\n      Repeats: {{array: {repeats}}}\n    inputs: [{{kind: uniform}}]\n")
        try:
            load_file(path)
        except CaseFileError as error:
            assert str(path) in str(error) and said in str(error), str(error)
        else:
            raise AssertionError(f"Repeats {repeats} was accepted")


def _failing(records):
    bad = [r for r in records if r["status"] == statuses.FAIL]
    assert bad
    return bad


def test_a_source_one_element_off_is_caught_naming_output_and_source_index():
    from faults import tile_one_element_off
    case = select(TILE, "TILE/float32/rank2[3x5]/Repeats=[2,3]/uniform[-100,200]")[0]
    x = case.make_input()
    comparison = compare_case(case, x, tile_one_element_off(case.op, x, case.dtype, **case.oracle_params()))
    assert not comparison.passed and not comparison.within_intervals and comparison.mismatches == 90
    for item in comparison.worst:
        row, column = item["index"]
        assert item["source"] == [row % 3, column % 5] and item["source_input"] == "Input"
        assert item["input"] == x[row % 3, column % 5] == item["expected"] != item["actual"]
        assert item["actual"] == x[row % 3, (column + 1) % 5]
    records = run("python:faults:tile_one_element_off", TILE)
    assert all(r["status"] == statuses.FAIL for r in records if r["elements"] and r["input_shapes"][0][-1] > 1)
    assert "copied from Input(" in _failing(records)[0]["message"]


def test_two_repeats_swapped_is_caught_naming_the_source():
    records = run("python:faults:tile_with_two_repeats_swapped", TILE)
    failed = {r["id"] for r in _failing(records)}
    assert "TILE/int8/rank2[3x5]/Repeats=[2,3]/uniform[-100,200]" in failed
    assert not any("Repeats=[1,1]" in i or "Repeats=[1]/" in i for i in failed)  # nothing to swap there
    record = next(r for r in records if r["id"] == "TILE/int8/rank2[3x5]/Repeats=[3,2]/uniform[-100,200]")
    worst = record["d3d"]["worst"][0]
    assert worst["source"] == [worst["index"][0] % 3, worst["index"][1] % 5]
    assert worst["lo"] == worst["hi"] == worst["expected"] != worst["actual"]


def test_the_element_wise_judge_is_unchanged_by_the_entry():
    case = select(load_paths(), "ELEMENT_WISE_EXP/float32/rank1/defaults/specials")[0]
    x = case.make_input()
    comparison = compare_case(case, x, oracle.evaluate(case.op, x, case.dtype))
    assert comparison.passed and comparison.worst == [] and comparison.d3d is not None
    assert "source" not in json.dumps(comparison.d3d)


def test_the_reports_name_the_source_of_a_wrong_copied_element(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    tests = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))}
    conformance = [sys.executable, "-m", "conformance"]
    for name, backend in (("faulty", "python:faults:tile_one_element_off"), ("good", "cpu")):
        done = subprocess.run(conformance + ["run", "cases/tile.yaml", "-k", "rank2", "--backend", backend,
                                             "--results", str(tmp_path / f"{name}.jsonl")],
                              capture_output=True, text=True, env=env, cwd=Path(tests).parent)
        assert done.returncode == (1 if name == "faulty" else 0), done.stderr
    faulty, good = tmp_path / "faulty.jsonl", tmp_path / "good.jsonl"
    done = subprocess.run(conformance + ["report", str(faulty), "--html", str(tmp_path / "r.html"), "--markdown",
                                         str(tmp_path / "r.md"), "--junit", str(tmp_path / "r.xml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # an element of a [3, 5] input tiled: its output index, and the input index it is copied from
    rows = re.findall(r"\| \[(\d+), (\d+)\] +\| Input\[(\d+), (\d+)\] = ", (tmp_path / "r.md").read_text())
    assert rows and all(int(o) % n == int(i) for row in rows for o, i, n in zip(row[:2], row[2:], (3, 5)))
    assert re.search(r"Input\[\d+, \d+\] = ", (tmp_path / "r.html").read_text())
    assert re.search(r"copied from Input\(\d+, \d+\)", (tmp_path / "r.xml").read_text())
    for command in (["diff", str(good), str(faulty)], ["compare", str(good), str(faulty)]):
        done = subprocess.run(conformance + command, capture_output=True, text=True)
        assert "TILE" in done.stdout and "Traceback" not in done.stderr, done.stderr


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe here): the input tensor with its own sizes, the
    output with the tiled ones, Repeats as RepeatsCount and a pointer; NaN payloads and subnormals copied."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", TILE)
    assert {r["status"] for r in records} == {statuses.PASS}, [r["message"] for r in records if r["status"] != "pass"][:3]
    assert max(r["max_ulp"] for r in records) == 0
    assert any(r["output_shapes"][0] != r["input_shapes"][0] and r["elements"] > 100 for r in records)
