"""exhaustive_float32: loaded without materialising, streamed in chunks, judged as one tensor."""
import json

import numpy as np
import pytest

from conformance import statuses
from conformance.backends import create
from conformance.caseset import inputs
from conformance.caseset.case import Case
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.cli.command import main
from conformance.run import runner, streamtime
from conformance.run.results import ResultsWriter

SWEEPS = runner.__file__.rsplit("/", 3)[0] + "/sweeps"

CASE_FILE = """operator: ACTIVATION_CELU
groups:
  - dtypes: [float32]
    shapes: [{shape}]
    params:
      Alpha: [1.0, 0.5]
    inputs:
      - {generator}
"""


def sweep_cases(write_case_file, generator="{kind: exhaustive_float32, step: 12289}", shape="auto"):
    return load_file(write_case_file(CASE_FILE.format(generator=generator, shape=shape)))


def test_the_shipped_sweep_has_every_float32_and_loads_at_once():
    cases = load_paths([SWEEPS + "/activation_celu_float32.yaml"])
    assert [c.elements for c in cases] == [1 << 32]
    assert cases[0].id == "ACTIVATION_CELU/float32/rank1/Alpha=1/exhaustive_float32"
    assert not any(inputs.streamed(c.generator) for c in load_paths())  # not in the default run


def test_labels_and_ranges(write_case_file):
    cases = sweep_cases(write_case_file, "{kind: exhaustive_float32, start: 0x3f800000, stop: 0x40000000}")
    assert cases[0].elements == 1 << 23
    assert cases[0].id.endswith("exhaustive_float32[0x3f800000,0x40000000]")
    cases = sweep_cases(write_case_file, shape="{rank: 3}")
    assert cases[0].shape == (1, 1, len(range(0, 1 << 32, 12289)))


@pytest.mark.parametrize("generator,shape,message", [
    ("{kind: exhaustive_float32, start: 10, stop: 10}", "auto", "is not below stop"),
    ("{kind: exhaustive_float32}", "[4, 4]", "takes its length from its range"),
    ("{kind: uniform, step: 2}", "auto", "'step' applies to exhaustive_float32 and exhaustive_float16_pairs only"),
    ("{kind: exhaustive_float32, stop: 4294967297}", "auto", "is greater than the maximum"),
])
def test_bad_sweeps_are_refused_with_file_and_line(write_case_file, generator, shape, message):
    with pytest.raises(CaseFileError) as error:
        sweep_cases(write_case_file, generator, shape)
    assert message in str(error.value) and "case.yaml:" in str(error.value)


def test_float16_is_refused(write_case_file):
    path = write_case_file(CASE_FILE.format(generator="{kind: exhaustive_float32}", shape="auto")
                           .replace("[float32]", "[float16]"))
    with pytest.raises(CaseFileError, match="exhaustive_float32 applies to float32 only"):
        load_file(path)


def test_chunks_walk_the_bit_patterns_in_order():
    generator = {"kind": "exhaustive_float32", "start": 7, "stop": 1 << 32, "step": 1 << 20}
    patterns = inputs.bit_range(generator)
    pieces = list(inputs.chunks(generator, "float32", (1, len(patterns)), 1000))
    assert [offset for offset, _ in pieces] == list(range(0, len(patterns), 1000))
    bits = np.concatenate([piece.reshape(-1) for _, piece in pieces]).view(np.uint32)
    assert bits.tolist() == list(patterns)
    assert all(piece.shape[0] == 1 for _, piece in pieces)
    with pytest.raises(ValueError, match="streamed"):
        inputs.fill({"kind": "exhaustive_float32"}, "float32", (1 << 32,), 0, None)


def whole_tensor_record(case, backend):
    """The same case judged the plain way, its tensor made whole."""
    x = inputs.fill(case.generator, case.dtype, case.shape, case.seed, None)
    outcome = backend.run(case, x)
    return runner.judge(case, x, outcome, "5_0", backend.name, 0.0)


@pytest.mark.parametrize("device", ["cpu", "python:oracle:evaluate", "python:faults:flush_denormals",
                                    "python:faults:off_by_tolerance", "python:faults:swallow_nan",
                                    "python:faults:all_zeros"])
@pytest.mark.parametrize("jobs,accelerate,depth", [(1, False, 4), (1, True, 1), (3, True, 1), (3, True, 4)])
def test_streamed_record_equals_the_whole_tensor_judged_at_once(write_case_file, monkeypatch, device, jobs,
                                                                 accelerate, depth):
    monkeypatch.setattr(runner, "STREAM_CHUNK", 40_000)  # several chunks and a ragged last one
    monkeypatch.setattr(streamtime, "DEPTH", depth)  # chunks whose verification is under way at once
    monkeypatch.setattr(Case, "make_input", lambda self: pytest.fail("a streamed case was materialised"))
    cases = sweep_cases(write_case_file)
    backend = create(device)
    records = runner.run(cases, backend, "5_0", ResultsWriter(None), jobs=jobs, accelerate=accelerate).records
    for case, record in zip(cases, records):
        expected = whole_tensor_record(case, backend)
        for key in set(record) | set(expected):
            if key not in ("seconds", "placement"):
                assert record[key] == expected[key], key
    if device == "python:oracle:evaluate":
        assert {r["status"] for r in records} == {statuses.PASS} and {r["max_ulp"] for r in records} == {0}
    if device == "cpu":
        # ONNX Runtime's Celu returns NaN for NaN (DirectML's max/min give 0) and loses tiny negatives
        assert all(r["status"] == statuses.FAIL and r["nan_mismatches"] > 0 for r in records)


def test_an_error_mid_stream_is_the_case_status(write_case_file, monkeypatch):
    monkeypatch.setattr(runner, "STREAM_CHUNK", 40_000)
    record = runner.run(sweep_cases(write_case_file)[:1], create("python:faults:raises"), "5_0",
                        ResultsWriter(None)).records[0]
    assert record["status"] == statuses.ERROR
    assert record["message"].startswith("at elements 0..39999:") and "DEVICE_REMOVED" in record["message"]


def test_a_failing_sweep_saves_the_chunk_with_its_worst_element(write_case_file, monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "STREAM_CHUNK", 40_000)
    case = sweep_cases(write_case_file)[:1]
    record = runner.run(case, create("python:faults:all_zeros"), "5_0", ResultsWriter(None),
                        save_failures=tmp_path).records[0]
    assert record["status"] == statuses.FAIL and record["repro"]
    tensors = np.load(f"{record['repro']}/tensors.npz")
    worst = record["worst"][0]
    assert tensors["input"].size == 40_000
    assert tensors["input"].reshape(-1)[worst["index"][0] % 40_000] == np.float32(worst["input"])


def test_cli_runs_a_sweep_file(write_case_file, tmp_path, capsys):
    path = write_case_file(CASE_FILE.format(generator="{kind: exhaustive_float32, step: 65521}", shape="auto"))
    results = tmp_path / "r.jsonl"
    code = main(["run", str(path), "--backend", "python:oracle:evaluate", "--quiet", "--results", str(results),
                 "--jobs", "2"])
    assert code == 0
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["elements"] for r in lines if r["type"] == "case"] == [len(range(0, 1 << 32, 65521))] * 2


def test_ctrl_c_mid_sweep_keeps_the_chunks_verified_as_a_partial_record(write_case_file, tmp_path):
    """A real SIGINT some chunks into a sweep: the run ends with 130 and its footer, and the record
    holds what was verified (judged on those elements, "partial" saying how many of how many)."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from conformance.run.results import read_results
    path = write_case_file(CASE_FILE.format(generator="{kind: exhaustive_float32, step: 3}", shape="auto")
                           .replace("[1.0, 0.5]", "[1.0]"))
    results = tmp_path / "r.jsonl"
    run = subprocess.Popen([sys.executable, "-m", "conformance", "run", str(path),
                            "--backend", "python:oracle:evaluate", "--quiet", "--results", str(results)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while run.poll() is None and time.monotonic() < deadline and (
            not results.exists() or '"in-flight"' not in results.read_text()):
        time.sleep(0.05)
    time.sleep(4)  # chunks of 4 Mi elements, a fraction of a second each
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 130, (run.returncode, err[-2000:])
    header, records, footer = read_results(results)
    assert footer is not None and footer["interrupted"], footer
    [record] = records
    partial = record["partial"]
    assert partial["of"] == len(range(0, 1 << 32, 3)) and 0 < partial["verified"] < partial["of"], partial
    assert record["elements"] == partial["verified"] and partial["verified"] % runner.STREAM_CHUNK == 0
    assert record["status"] == statuses.PASS and record["max_ulp"] == 0, record
    assert "partly verified" in out, out[-2000:]
