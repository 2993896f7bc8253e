"""Operators of several inputs: case files, oracle, comparison, faults, ONNX route, dml-direct's
description (zero strides), through the real runner."""
import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.dmldirect import layout
from conformance.dmldirect.describe import OperatorDescription
from conformance.run import runner
from conformance.run.results import ResultsWriter

SEVERAL = [c for c in load_paths() if c.several]


def run(name, chosen, model="d3d"):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None), model=model).records


def write(tmp_path, text):
    path = tmp_path / "case.yaml"
    path.write_text(text)
    return path


def test_the_oracle_passes_every_case_of_several_inputs_at_zero_ulp():
    records = run("python:oracle:evaluate", SEVERAL, model="ulp")
    assert len(records) == len(SEVERAL) > 300
    assert {r["status"] for r in records} == {statuses.PASS}
    assert max(r["max_ulp"] for r in records) == 0


def test_each_input_has_its_own_seed_and_broadcast_shape():
    case = select(SEVERAL, "ELEMENT_WISE_ADD/float32/rank4[2x3x4x5] and broadcast[A:2;B:0,3]")[0]
    a, b = case.make_input()
    assert a.shape == (2, 3, 1, 5) and b.shape == (1, 3, 4, 1)
    plain = select(SEVERAL, "ELEMENT_WISE_ADD/float32/rank4[2x3x4x5]/defaults/uniform[-100,100]")[0]
    a, b = plain.make_input()
    assert not np.array_equal(a, b) and np.array_equal(a, plain.make_input()[0])


def test_crossed_specials_hold_every_pair():
    case = select(SEVERAL, "ELEMENT_WISE_DIVIDE/float32/rank1/defaults/crossed[specials]")[0]
    a, b = case.make_input()
    pairs = {(x.tobytes(), y.tobytes()) for x, y in zip(a, b)}
    values = {v.tobytes() for v in a}
    assert len(pairs) == len(values) ** 2 == a.size
    quotient = oracle.evaluate(case.op, (a, b), case.dtype)
    zero = (b == 0) & (a != 0) & np.isfinite(a)
    assert np.isinf(quotient[zero]).all() and (np.signbit(quotient[zero]) == (np.signbit(a[zero]) ^ np.signbit(b[zero]))).all()


def test_an_exploding_crossing_is_refused_naming_the_file_and_line(tmp_path):
    path = write(tmp_path, "operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float16]\n    shapes: [auto]\n"
                           "    inputs:\n      - {kind: exhaustive_float16, cross: true}\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    (message,) = error.value.problems
    assert message.startswith(f"{path}:6: ") and "4294967296 elements" in message and "\n" not in message


@pytest.mark.parametrize("entry,wanted", [
    ("{each: {A: {kind: uniform}, C: {kind: uniform}}}", "has no input 'C'"),
    ("{each: {A: {kind: uniform}}}", "each names no generator for B"),
    ("{kind: uniform, cross: true}", "cross needs a generator with its own values"),
])
def test_bad_several_input_entries_are_refused(tmp_path, entry, wanted):
    path = write(tmp_path, "operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float32]\n    shapes: [[4]]\n"
                           f"    inputs:\n      - {entry}\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert any(wanted in p for p in error.value.problems), error.value.problems


def test_broadcast_of_an_unknown_dimension_or_a_one_input_operator_is_refused(tmp_path):
    text = "operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [[4, 2]]\n    broadcast: {{B: [{dim}]}}\n" \
           "    inputs:\n      - {{kind: uniform}}\n"
    with pytest.raises(CaseFileError, match="has 2 dimensions"):
        load_file(write(tmp_path, text.format(op="ELEMENT_WISE_ADD", dim=2)))
    with pytest.raises(CaseFileError, match="may broadcast no input"):
        load_file(write(tmp_path, text.format(op="ELEMENT_WISE_ABS", dim=0)))


def test_a_device_ignoring_the_second_input_fails_and_the_report_shows_both_inputs():
    chosen = select(SEVERAL, "ELEMENT_WISE_MULTIPLY/float32/rank4[2x3x4x5]/defaults/uniform[-100,100]")
    assert chosen
    records = run("python:faults:ignores_second_input", chosen)
    assert all(r["status"] == statuses.FAIL for r in records)
    worst = records[0]["d3d"]["worst"][0]
    a, b = worst["input"]
    assert worst["expected"] == pytest.approx(float(np.float32(np.float32(a) * np.float32(b))))


def test_a_device_broadcasting_the_wrong_dimension_fails():
    chosen = select(SEVERAL, "ELEMENT_WISE_SUBTRACT and broadcast and not B:0,1,2,3 and not rank1")
    assert len(chosen) >= 4
    assert {r["status"] for r in run("python:faults:broadcasts_the_wrong_dimension", chosen)} == {statuses.FAIL}
    assert {r["status"] for r in run("python:oracle:evaluate", chosen)} == {statuses.PASS}


def test_flushed_inputs_are_judged_by_the_oracle_on_the_flushed_inputs():
    """Stated in ULP (the d3d model's float32 intervals hold flushed values themselves).
    DIFFERENCE_SQUARE is left out: no float32 result shows a flushed input ((v - s)^2 and v^2 differ
    only where v^2 underflows), so flushing is invisible there; so is it through ADD1's fused
    HARD_SIGMOID, THRESHOLDED_RELU and SHRINK (a subnormal sum gives what 0 gives); bitwise operators
    forbid flushing."""
    invisible = " and not DIFFERENCE_SQUARE and not HARD_SIGMOID and not THRESHOLDED_RELU and not SHRINK"
    chosen = [c for c in select(SEVERAL, "float32 and crossed[specials]" + invisible) if c.flush_allowed]
    records = run("python:faults:flush_denormals", chosen, model="ulp")
    assert {r["status"] for r in records} == {statuses.PASS} and all(r["flushed"] > 0 for r in records)
    forbidden = select([c for c in load_paths(forbid_flush=True) if c.several],
                       "float32 and crossed[specials]" + invisible)
    assert {r["status"] for r in run("python:faults:flush_denormals", forbidden, model="ulp")} == {statuses.FAIL}


def test_the_onnx_route_runs_broadcast_inputs_on_the_cpu_provider():
    chosen = select(SEVERAL, "ELEMENT_WISE_ADD/ and (broadcast or crossed) and not in-place")
    records = run("cpu", chosen)
    assert len(records) >= 10 and {r["status"] for r in records} == {statuses.PASS}


def test_dml_direct_describes_each_input_with_zero_strides_exactly_where_broadcast():
    case = select(SEVERAL, "ELEMENT_WISE_ADD/float32/rank4[2x3x4x5] and broadcast[A:2;B:0,3]")[0]
    request = layout.request(case.op, case.dtype, case.shape, case.params, False, case.inputs)
    assert [name for name, kind in request["desc"]["fields"]] == ["ATensor", "BTensor", "OutputTensor"]
    described = OperatorDescription.from_case(request)
    a, b = described.inputs
    assert list(a.strides) == [15, 5, 0, 1] and list(b.strides) == [0, 4, 1, 0]
    assert [list(t.sizes) for t in (a, b, described.output)] == [[2, 3, 4, 5]] * 3
    assert (a.total_bytes, b.total_bytes) == (2 * 3 * 5 * 4, 3 * 4 * 4)
    assert described.output.strides is None
    in_place = select(SEVERAL, "ELEMENT_WISE_ADD/ and broadcast[A:1]/in-place[B]")[0]
    assert layout.request(in_place.op, in_place.dtype, in_place.shape, in_place.params, in_place.in_place_input,
                          in_place.inputs)["in_place_input"] == 1


def test_scale_bias_maps_every_input_of_pow():
    """The page: g(x) = x * Scale + Bias applied to each input element; DirectML maps POW's exponent
    too (docs/several-inputs-lavapipe.md), and so do the oracle and the d3d formula."""
    scaled = oracle.evaluate("ELEMENT_WISE_POW", (np.float32([1.0]), np.float32([1.0])), "float32",
                             ScaleBias={"Scale": 0.5, "Bias": 1.0})
    assert scaled[0] == np.float32(1.5 ** 1.5)
    chosen = select(SEVERAL, "ELEMENT_WISE_POW and Scale= and rank4")
    assert len(chosen) == 4
    assert {r["status"] for r in run("python:oracle:evaluate", chosen)} == {statuses.PASS}
    assert {r["status"] for r in run("python:faults:scale_bias_on_the_first_input_only", chosen)} == {statuses.FAIL}
