"""exhaustive_float16_pairs: every (A, B) pair of float16 bit patterns for an operator of two inputs,
loaded without materialising, streamed in chunks, judged as one tensor."""
import numpy as np
import pytest

import oracle
from conformance import statuses
from conformance.backends import create
from conformance.caseset import inputs
from conformance.caseset.case import Case
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.cli.command import main
from conformance.judge import fast
from conformance.judge.compare import compare
from conformance.judge.expected import expected_for, interval_judge
from conformance.judge.ulp import ulp_distance
from conformance.run import runner
from conformance.run.results import ResultsWriter

SWEEPS = runner.__file__.rsplit("/", 3)[0] + "/sweeps/float16_pairs"
SLICE = "{kind: exhaustive_float16_pairs, step: 40961}"  # 104,858 pairs: every A, B sliding past it

CASE_FILE = """operator: {operator}
groups:
  - dtypes: [{dtype}]
    shapes: [{shape}]
    inputs:
      - {generator}
"""


def pair_cases(write_case_file, generator=SLICE, operator="ELEMENT_WISE_ADD", shape="auto", dtype="float16"):
    return load_file(write_case_file(CASE_FILE.format(operator=operator, generator=generator, shape=shape,
                                                      dtype=dtype)))


def test_the_shipped_pair_sweeps_hold_every_pair_and_load_at_once():
    cases = load_paths([SWEEPS])
    assert {c.op for c in cases} >= {"ELEMENT_WISE_ADD", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_DIVIDE",
                                     "ELEMENT_WISE_MAX", "ELEMENT_WISE_LOGICAL_LESS_THAN"}
    assert {c.elements for c in cases} == {1 << 32} and {c.dtype for c in cases} == {"float16"}
    assert all(c.id.endswith("/exhaustive_float16_pairs") and inputs.streamed(c.generator) for c in cases)
    gpu = load_paths([SWEEPS.replace("/sweeps/", "/scripts/gpu/sweeps/").replace("/float16_pairs", "")])
    pairs = [c for c in gpu if c.generator["kind"] == inputs.PAIRS]
    assert {c.op for c in pairs} == {c.op for c in cases}  # in quarters: tests/test_gpu_pairs.py
    assert sum(c.elements for c in pairs if c.op == "ELEMENT_WISE_ADD") == 1 << 32


def test_chunks_walk_every_pair_a_slowest(write_case_file):
    generator = {"kind": inputs.PAIRS, "start": 0x3C00FFF0, "stop": 0x3C020010, "step": 3}
    indices = inputs.bit_range(generator)
    pieces = list(inputs.chunks(generator, "float16", (1, len(indices)), 1000))
    assert [offset for offset, _ in pieces] == list(range(0, len(indices), 1000))
    a, b = (np.concatenate([piece[k].reshape(-1) for _, piece in pieces]).view(np.uint16) for k in (0, 1))
    assert a.tolist() == [p >> 16 for p in indices] and b.tolist() == [p & 0xFFFF for p in indices]
    assert pieces[0][1][0].dtype == np.float16 and pieces[0][1][0].shape == (1, 1000)
    (case,) = pair_cases(write_case_file, "{kind: exhaustive_float16_pairs, start: 0x3C00FFF0, stop: 0x3C020010, "
                                          "step: 3}", shape="{rank: 2}")
    made = case.make_input()
    assert made[0].view(np.uint16).tolist() == [a.tolist()] and made[1].view(np.uint16).tolist() == [b.tolist()]
    with pytest.raises(ValueError, match="streamed"):
        inputs.fill({"kind": inputs.PAIRS}, "float16", (1 << 32,), 0, None)


def test_ids_and_ranges(write_case_file):
    (case,) = pair_cases(write_case_file, "{kind: exhaustive_float16_pairs, start: 0x3c000000, stop: 0x3c010000}")
    assert case.id == "ELEMENT_WISE_ADD/float16/rank1/defaults/exhaustive_float16_pairs[0x3c000000,0x3c010000]"
    assert case.elements == 1 << 16 and [i.shape for i in case.inputs] == [(1 << 16,)] * 2
    (case,) = pair_cases(write_case_file, "{kind: exhaustive_float16_pairs}", shape="{rank: 4}")
    assert case.shape == (1, 1, 1, 1 << 32)


@pytest.mark.parametrize("operator,generator,dtype,extra,message", [
    ("ELEMENT_WISE_ADD", "{kind: exhaustive_float16_pairs}", "float32", "", "applies to float16 only"),
    ("ELEMENT_WISE_EXP", "{kind: exhaustive_float16_pairs}", "float16", "", "is for operators of two inputs"),
    ("ELEMENT_WISE_IF", "{kind: exhaustive_float16_pairs}", "float16", "", "ELEMENT_WISE_IF has 3"),
    ("ELEMENT_WISE_ADD", "{each: {A: {kind: exhaustive_float16_pairs}, B: {kind: uniform}}}", "float16", "",
     "not under 'each'"),
    ("ELEMENT_WISE_ADD", "{kind: exhaustive_float16_pairs, cross: true}", "float16", "", "not crossed"),
    ("ELEMENT_WISE_ADD", "{kind: exhaustive_float32}", "float16", "", "use exhaustive_float16_pairs"),
    ("ELEMENT_WISE_ADD", "{kind: exhaustive_float16_pairs, start: 5, stop: 5}", "float16", "", "is not below"),
    ("ELEMENT_WISE_ADD", "{kind: exhaustive_float16_pairs}", "float16", "    broadcast: {B: [0]}\n",
     "cannot broadcast"),
])
def test_bad_pair_sweeps_are_refused_with_file_and_line(write_case_file, operator, generator, dtype, extra,
                                                        message):
    path = write_case_file(CASE_FILE.format(operator=operator, generator=generator, shape="auto", dtype=dtype)
                           + extra)
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert any(message in p and p.startswith(f"{path}:") for p in error.value.problems), error.value.problems


def test_the_guard_refuses_a_crossing_of_every_float16_in_one_line(write_case_file):
    path = write_case_file(CASE_FILE.format(operator="ELEMENT_WISE_MULTIPLY", shape="auto", dtype="float16",
                                            generator="{kind: exhaustive_float16, cross: true}"))
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    (message,) = error.value.problems
    assert message.startswith(f"{path}:6: ") and "\n" not in message
    assert "4294967296 elements" in message and "streamed sweep" in message and inputs.PAIRS in message


def whole_tensor_record(case, backend):
    """The same case judged the plain way, its tensors made whole."""
    x = inputs.fill(case.generator, case.dtype, case.shape, case.seed, None)
    return runner.judge(case, x, backend.run(case, x), "5_0", backend.name, 0.0)


@pytest.mark.parametrize("operator,device", [
    ("ELEMENT_WISE_ADD", "cpu"), ("ELEMENT_WISE_ADD", "python:oracle:evaluate"),
    ("ELEMENT_WISE_ADD", "python:faults:ignores_second_input"), ("ELEMENT_WISE_ADD", "python:faults:all_zeros"),
    ("ELEMENT_WISE_DIVIDE", "python:faults:off_by_tolerance"), ("ELEMENT_WISE_DIVIDE", "python:faults:flush_denormals"),
    ("ELEMENT_WISE_MAX", "cpu"), ("ELEMENT_WISE_LOGICAL_LESS_THAN", "python:faults:ignores_second_input"),
])
@pytest.mark.parametrize("jobs,accelerate", [(1, False), (2, True)])
def test_streamed_record_equals_the_whole_pairs_judged_at_once(write_case_file, monkeypatch, operator, device,
                                                                jobs, accelerate):
    monkeypatch.setattr(runner, "STREAM_CHUNK", 40_000)  # several chunks and a ragged last one
    monkeypatch.setattr(Case, "make_input", lambda self: pytest.fail("a streamed case was materialised"))
    cases = pair_cases(write_case_file, operator=operator)
    backend = create(device)
    (record,) = runner.run(cases, backend, "5_0", ResultsWriter(None), jobs=jobs, accelerate=accelerate).records
    expected = whole_tensor_record(cases[0], backend)
    for key in set(record) | set(expected):
        if key not in ("seconds", "placement"):
            assert record[key] == expected[key], key
    if device == "python:oracle:evaluate":
        assert record["status"] == statuses.PASS and record["max_ulp"] == 0
    if "faults" in device:
        assert record["status"] == statuses.FAIL
    if device == "cpu" and operator == "ELEMENT_WISE_MAX":
        # ONNX Runtime's Max returns NaN for a NaN operand, DirectML's rule the other operand
        assert record["status"] == statuses.FAIL and record["nan_mismatches"] == record["mismatches"] > 0


def test_the_verifier_splits_pairs_over_threads_as_compare_does(write_case_file):
    """Blocks of several inputs over three threads, a block of every kind: exact, near, far off."""
    (case,) = pair_cases(write_case_file, "{kind: exhaustive_float16_pairs, start: 0x3c000000, stop: 0x3c020400}",
                         operator="ELEMENT_WISE_DIVIDE")
    x = case.make_input()
    actual = oracle.evaluate(case.op, x, case.dtype)
    bits = actual.view(np.uint16)
    bits[5000:5100] += 1
    bits[70000:70010] ^= 0x4000
    with fast.Verifier(jobs=3, chunk=4096) as verifier:
        tally = fast.Tally(case.shape, case.dtype)
        verifier.submit(tally, case, x, actual, 0)()
        streamed = tally.result()
    expected, reference, zeros = expected_for(case, x)
    whole = compare(x, expected, actual, case.tolerance, case.flush_allowed, zeros, reference, interval_judge(case))
    assert streamed == whole and whole.mismatches == 10  # DIVIDE's tolerance takes the 100 one ULP off
    assert [count for low, _, count in whole.histogram["bins"] if low == 1] == [100]


@pytest.mark.parametrize("operator,device", [
    ("ELEMENT_WISE_ADD", "stores_half_toward_zero"), ("ELEMENT_WISE_DIVIDE", "stores_half_toward_zero"),
    ("ELEMENT_WISE_MULTIPLY", "flush_denormals"), ("ELEMENT_WISE_SUBTRACT", "swallow_nan"),
    ("ELEMENT_WISE_MIN", "all_zeros"), ("ELEMENT_WISE_ADD", "off_by_tolerance_plus_one"),
    ("ELEMENT_WISE_DIVIDE", "off_by_tolerance"), ("ELEMENT_WISE_MAX", "ignores_second_input"),
])
@pytest.mark.parametrize("flush_allowed", [True, False])
def test_compiled_analysis_of_bad_pairs_equals_compare(write_case_file, operator, device, flush_allowed):
    """The bad elements of float16 pair chunks in the compiled passes (fast_analysis: flushing with the
    oracle on flushed inputs, NaN, histogram, worst elements, d3d intervals and the float16 denormal
    rule) give compare.compare's Comparison, field for field, over threads and chunks."""
    import dataclasses

    import faults
    (case,) = pair_cases(write_case_file, operator=operator)
    case = dataclasses.replace(case, flush_allowed=flush_allowed)
    x = case.make_input()
    with np.errstate(all="ignore"):
        actual = getattr(faults, device)(case.op, x, case.dtype)
    with fast.Verifier(jobs=2, chunk=8192, kernel="always") as verifier:
        tally = fast.Tally(case.shape, case.dtype)
        verifier.submit(tally, case, x, actual, 0)()
        streamed = tally.result()
    expected, reference, zeros = expected_for(case, x)
    whole = compare(x, expected, actual, case.tolerance, case.flush_allowed, zeros, reference, interval_judge(case))
    assert streamed == whole
    if device not in ("off_by_tolerance",):
        assert whole.mismatches or whole.d3d["checked"], "the device must give the analysis something to do"


def test_a_device_that_ignores_b_is_caught_and_its_worst_elements_show_both_inputs(write_case_file, monkeypatch,
                                                                                    tmp_path):
    monkeypatch.setattr(runner, "STREAM_CHUNK", 40_000)
    case = pair_cases(write_case_file)
    (record,) = runner.run(case, create("python:faults:ignores_second_input"), "5_0", ResultsWriter(None),
                           save_failures=tmp_path, model="ulp").records
    assert record["status"] == statuses.FAIL and record["mismatches"] > record["elements"] // 2
    assert len(record["worst"]) == 10
    for worst in record["worst"]:
        a, b = np.array([float(v) for v in worst["input"]], dtype=np.float16)  # JSON's 'nan' is any NaN
        p = inputs.bit_range(case[0].generator)[worst["index"][0]]
        np.testing.assert_array_equal([a, b], np.array([p >> 16, p & 0xFFFF], dtype=np.uint16).view(np.float16))
        np.testing.assert_array_equal(np.float16(float(worst["actual"])), oracle.evaluate(
            "ELEMENT_WISE_ADD", (np.array([a]), np.array([a])), "float16")[0])  # A + A
    tensors = np.load(f"{record['repro']}/tensors.npz")
    assert tensors["input_A"].size == tensors["input_B"].size == 40_000
    at = record["worst"][0]["index"][0] % 40_000
    np.testing.assert_array_equal([tensors[f"input_{n}"].reshape(-1)[at] for n in "AB"],
                                  np.array([float(v) for v in record["worst"][0]["input"]], dtype=np.float16))


def test_cli_runs_a_pair_sweep(write_case_file, tmp_path):
    path = write_case_file(CASE_FILE.format(operator="ELEMENT_WISE_MULTIPLY", shape="{rank: 2}", dtype="float16",
                                            generator="{kind: exhaustive_float16_pairs, step: 65521}"))
    results = tmp_path / "r.jsonl"
    assert main(["run", str(path), "--backend", "cpu", "--quiet", "--results", str(results)]) == 0
    assert main(["validate", SWEEPS]) == 0


def test_dml_direct_makes_both_inputs_in_the_worker_and_judges_as_over_the_socket(write_case_file, monkeypatch):
    """The real DirectML.dll under Wine: with shared memory the worker makes A and B from the pair indices
    (the arrays handed to run_chunk are not read); over the socket the arrays travel; the records are the
    same, and the same as the whole slice judged at once."""
    from needs import missing

    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    monkeypatch.setattr(runner, "STREAM_CHUNK", 1 << 16)
    text = CASE_FILE.format(operator="ELEMENT_WISE_ADD", generator=SLICE, shape="auto", dtype="float16")
    cases = load_file(write_case_file(text)) + load_file(write_case_file(
        text.replace("ELEMENT_WISE_ADD", "ELEMENT_WISE_LOGICAL_LESS_THAN"), "less.yaml"))
    both = {}
    for transport in ("tcp", "auto"):
        backend = dml_direct.DmlDirectBackend("dml-direct", {"transport": transport})
        try:
            both[transport] = runner.run(cases, backend, "5_0", ResultsWriter(None), jobs=2).records
            # Which inputs the device read: a chunk handed over as zeros, with its true pair indices.
            indices = inputs.chunk_patterns(cases[0].generator, 0, 1 << 16)
            zeros = (np.zeros(1 << 16, np.float16), np.zeros(1 << 16, np.float16))
            output = backend.run_chunk(cases[0], zeros, indices).output
            pairs = tuple(inputs.streamed_input(inputs.PAIRS, indices.start, indices.step, len(indices), k)
                          for k in (0, 1))
            if transport == "auto":  # made by the worker: A + B (lavapipe's ADD is 1 ULP off at most)
                assert ulp_distance(oracle.evaluate(cases[0].op, pairs, "float16"), output)[
                    ~np.isnan(output)].max() <= 1
                assert np.isnan(output).sum() == np.isnan(oracle.evaluate(cases[0].op, pairs, "float16")).sum() > 0
            else:  # sent: 0 + 0
                assert not output.any()
            if transport == "auto":
                wholes = [whole_tensor_record(case, backend) for case in cases]
        finally:
            backend.close()
    for record in both["tcp"] + both["auto"] + wholes:
        record.pop("seconds")
        record.pop("placement")
    assert both["auto"] == both["tcp"] == wholes
    assert [r["elements"] for r in wholes] == [len(range(0, 1 << 32, 40961))] * 2
    assert {r["status"] for r in wholes} <= {statuses.PASS, statuses.FAIL}, [r["message"] for r in wholes]
