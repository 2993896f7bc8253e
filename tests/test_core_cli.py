"""The command line, end to end, on the real ONNX Runtime CPU provider."""
import json
import subprocess
import sys

import pytest

from conformance.results import read_results


def conformance(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "conformance", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cpu")
    done = conformance("run", "--backend", "cpu", "--quiet", "--results", folder / "cpu.jsonl",
                       "--markdown", folder / "cpu.md", "--json", folder / "cpu.json",
                       "--save-failures", folder / "repro")
    return done, folder


def test_cpu_run_covers_every_default_case_and_is_not_conformant(cpu_run):
    done, folder = cpu_run
    listed = conformance("list").stdout.split()
    assert done.returncode == 1, done.stderr  # ONNX Runtime's CPU provider misses the DirectML spec
    header, records, footer = read_results(folder / "cpu.jsonl")
    assert [r["id"] for r in records] == listed
    assert header["backend"] == "cpu" and header["provider"] == "CPUExecutionProvider"
    assert footer["cases"] == len(listed) and footer["sessions_created"] < len(listed) / 4
    for key in ("id", "op", "dtype", "shape", "params", "feature_level", "status", "elements",
                "mismatches", "max_ulp", "tolerance", "worst", "backend", "seconds", "seed"):
        assert key in records[0]


def test_cpu_run_finds_the_known_onnx_versus_directml_differences(cpu_run):
    _, folder = cpu_run
    _, records, _ = read_results(folder / "cpu.jsonl")
    status = {r["id"]: r for r in records}
    min_above_max = status["ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=2,Max=-1/uniform[-5,5]"]
    assert min_above_max["status"] == "fail" and min_above_max["worst"][0]["expected"] == 2.0
    assert min_above_max["worst"][0]["actual"] == -1.0
    nan_clip = status["ELEMENT_WISE_CLIP/float32/rank1/Min=-1.5,Max=2.25/specials"]
    assert nan_clip["status"] == "fail" and nan_clip["nan_mismatches"] == 1
    assert status["ACTIVATION_CELU/float16/rank4[2x3x4x5]/Alpha=1/uniform[-10,10]"]["status"] == "not-reachable"


def test_the_summary_and_reports_name_every_operator(cpu_run):
    done, folder = cpu_run
    markdown = (folder / "cpu.md").read_text()
    summary = json.loads((folder / "cpu.json").read_text())
    for op in ("ACTIVATION_CELU", "ACTIVATION_SCALED_ELU", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_CONSTANT_POW"):
        assert op in done.stdout and f"| {op}" in markdown
    assert {row["operator"] for row in summary["operators"]} >= {"ELEMENT_WISE_CLIP"}
    assert "sessions created" in done.stdout


def test_failures_are_saved_to_reproduce_alone(cpu_run):
    import numpy as np
    _, folder = cpu_run
    saved = folder / "repro" / "ELEMENT_WISE_CLIP_float32_rank4_2x3x4x5_Min=2,Max=-1_uniform_-5,5_"
    tensors = np.load(saved / "tensors.npz")
    assert tensors["input"].shape == (2, 3, 4, 5) and (tensors["expected"] == 2.0).all()
    assert (saved / "model.onnx").stat().st_size > 0 and json.loads((saved / "case.json").read_text())["seed"]


def test_the_python_oracle_self_check_is_conformant(tmp_path):
    done = conformance("run", "--backend", "python:oracle:evaluate", "--quiet", "--results", tmp_path / "r.jsonl")
    assert done.returncode == 0, done.stdout + done.stderr
    _, records, _ = read_results(tmp_path / "r.jsonl")
    assert {r["status"] for r in records} == {"pass"} and {r["max_ulp"] for r in records} == {0}


def test_auto_says_what_it_chose_and_never_claims_directml(tmp_path):
    done = conformance("run", "--backend", "auto", "--quiet", "-k", "CELU and float32 and rank1[7]",
                       "--results", tmp_path / "r.jsonl")
    assert "backend auto: chose" in done.stderr
    header, _, _ = read_results(tmp_path / "r.jsonl")
    chosen = done.stderr.split("chose ", 1)[1].split()[0]
    assert header["backend"] == chosen
    if chosen == "cpu":
        assert "does NOT test DirectML" in done.stderr
    else:
        assert chosen in ("dml", "dml-wine")
        assert header["provider"] == "DmlExecutionProvider"


def test_k_selects_and_an_empty_selection_is_a_usage_error(tmp_path):
    done = conformance("list", "-k", "CLIP and int8 and not specials")
    assert done.returncode == 0 and done.stdout and all("int8" in line for line in done.stdout.split())
    empty = conformance("run", "--backend", "cpu", "-k", "NO_SUCH_CASE", "--results", tmp_path / "r.jsonl")
    assert empty.returncode == 2 and "no cases selected" in empty.stderr


def test_unknown_backend_exits_3():
    done = conformance("run", "--backend", "nonesuch", "-k", "CELU")
    assert done.returncode == 3 and "unknown backend 'nonesuch'" in done.stderr


def test_results_already_written_survive_a_backend_that_kills_the_process(tmp_path):
    results = tmp_path / "r.jsonl"
    done = conformance("run", "--backend", "python:faults:die_at_clip", "--quiet", "--results", results,
                       cwd=None)
    assert done.returncode == 70
    header, records, footer = read_results(results)
    assert header["backend"] == "python:faults:die_at_clip" and footer is None
    ops = {r["op"] for r in records}  # the operators whose files come before CLIP's
    assert len(records) > 100 and "ACTIVATION_CELU" in ops and "ELEMENT_WISE_CLIP" not in ops
    first_clip = conformance("list", "-k", "ELEMENT_WISE_CLIP").stdout.split()[0]
    assert first_clip in header["unfinished"] and len(header["unfinished"]) <= 64
    report = conformance("report", results)
    assert "stopped early, while the backend ran" in report.stderr and "ACTIVATION_CELU" in report.stdout


def test_specs_prints_every_feature_level_table_of_clip():
    done = conformance("specs", "ELEMENT_WISE_CLIP")
    assert done.returncode == 0
    for level in ("5_0", "3_0", "2_1", "1_0"):
        assert f"DML_FEATURE_LEVEL_{level}" in done.stdout
    assert "INT64, UINT64" in done.stdout and "Min > Max" in done.stdout


def test_backends_lists_cpu_as_available():
    done = conformance("backends")
    assert done.returncode == 0 and "cpu: available" in done.stdout and "auto ->" in done.stdout


def test_tolerance_override_from_the_command_line(tmp_path):
    done = conformance("run", "--backend", "python:faults:off_by_tolerance_plus_one", "--quiet",
                       "-k", "ACTIVATION_CELU/float32/rank4[2x3x4x5]/Alpha=1/uniform",
                       "--tolerance", "ACTIVATION_CELU:float32=19", "--tolerance-model", "ulp",
                       "--results", tmp_path / "r.jsonl")
    assert done.returncode == 0, done.stdout
