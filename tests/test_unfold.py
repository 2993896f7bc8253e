"""UNFOLD (im2col, DirectML 1.15.1, feature level 6_4): the page's two examples, every case exactly through
the oracle and the real DirectML.dll (dml-direct on lavapipe; ONNX has no Unfold), the 3-D output DirectML
takes for every input rank, and injected faults (rows ordered window first, padding at the wrong end)."""
import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.run import runner
from conformance.run.results import ResultsWriter

CASES = [c for c in load_paths() if c.op == "UNFOLD"]
RAMP = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_4", ResultsWriter(None)).records


def fields(start, end):
    return {"WindowSizes": [3, 3], "Strides": [1, 1], "Dilations": [1, 1], "StartPadding": start, "EndPadding": end}


def test_the_oracle_is_the_pages_two_examples():
    plain = oracle.evaluate("UNFOLD", RAMP, "float32", **fields([0, 0], [0, 0]))
    assert plain.shape == (1, 9, 9)
    assert plain[0, 0].tolist() == [0, 1, 2, 5, 6, 7, 10, 11, 12]
    assert plain[0, :, 0].tolist() == [0, 1, 2, 5, 6, 7, 10, 11, 12]  # block 0: the window at the origin
    padded = oracle.evaluate("UNFOLD", RAMP, "float32", **fields([1, 0], [1, 0]))
    assert padded.shape == (1, 9, 15)
    assert padded[0, 0].tolist() == [0, 0, 0, 0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17]
    assert padded[0, 8].tolist() == [7, 8, 9, 12, 13, 14, 17, 18, 19, 22, 23, 24, 0, 0, 0]


def test_the_output_is_3_d_for_every_input_rank_and_rows_are_channel_major():
    spec = specs.get("UNFOLD")
    for shape in ((2, 3, 9), (2, 3, 4, 5), (1, 2, 3, 3, 4), (1, 1, 2, 2, 2, 2, 2, 2)):
        spatial = len(shape) - 2
        params = {"WindowSizes": [2] * spatial, "Strides": [1] * spatial, "Dilations": [1] * spatial,
                  "StartPadding": [0] * spatial, "EndPadding": [0] * spatial}
        blocks = int(np.prod([n - 1 for n in shape[2:]]))
        assert spec.output_shapes([shape], params) == ((shape[0], shape[1] * 2 ** spatial, blocks),)
    x = np.arange(2 * 3 * 3, dtype=np.float64).reshape(1, 2, 3, 3)  # two channels
    got = oracle.evaluate("UNFOLD", x, "float64", **{**fields([0, 0], [0, 0]), "WindowSizes": [2, 2]})
    assert got[0, :4, 0].tolist() == [0, 1, 3, 4] and got[0, 4:, 0].tolist() == [9, 10, 12, 13]


def test_a_window_that_does_not_fit_is_refused_at_load_and_whole_padded_windows_are_not(tmp_path):
    path = tmp_path / "unfold.yaml"
    base = "operator: UNFOLD\ngroups:\n  - dtypes: [float32]\n    shapes: [[1, 1, 3, 3]]\n    params:\n"
    arrays = "      Strides: {array: [1, 1]}\n      Dilations: {array: [2, 2]}\n      EndPadding: {array: [0, 0]}\n"
    path.write_text(base + arrays + "      WindowSizes: {array: [3, 3]}\n      StartPadding: {array: [0, 0]}\n"
                    "    inputs: [{kind: uniform}]\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert f"{path}:" in str(error.value) and "the window's extent 5 is larger than the padded input 3" in str(error.value)
    path.write_text(base + arrays + "      WindowSizes: {array: [1, 1]}\n      StartPadding: {array: [2, 0]}\n"
                    "    inputs: [{kind: uniform}]\n")
    case, = load_file(path)
    assert case.outputs == ((1, 1, 15),) and not oracle.evaluate("UNFOLD", case.make_input(), "float32",
                                                               **case.params)[0, 0, :6].any()


def test_every_case_passes_exactly_through_the_oracle_and_onnx_has_no_route():
    assert len(CASES) > 40
    records = run("python:oracle:evaluate", CASES)
    assert {r["status"] for r in records} == {statuses.PASS} and max(r["max_ulp"] for r in records) == 0
    assert {r["status"] for r in run("cpu", CASES[:3])} == {statuses.NOT_REACHABLE}


@pytest.mark.parametrize("fault", ["unfold_rows_window_major", "padding_at_the_wrong_end"])
def test_faults_are_caught_where_they_change_the_output(fault):
    records = run(f"python:faults_pooling:{fault}", CASES)
    failed = [r for r in records if r["status"] == statuses.FAIL]
    assert failed, fault
    if fault == "unfold_rows_window_major":  # every case of several channels and window positions
        assert all(r["status"] == statuses.FAIL for r in records if r["input_shapes"][0][1] > 1)
    else:
        assert "UNFOLD/float32/rank4[1x1x5x5]/WindowSizes=[3,3],Strides=[1,1],Dilations=[1,1],StartPadding=[1,0],"\
               "EndPadding=[0,0]/uniform[-100,100]" in {r["id"] for r in failed}
        padded = [w for r in failed for w in r["d3d"]["worst"] if w["source"] is None]
        assert padded and all(w["expected"] == 0 for w in padded)  # the page's zero, named as such


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (1.15.4 on lavapipe here): the 3-D output for 3- to 8-D inputs."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", CASES)
    bad = [(r["id"], r["message"]) for r in records if r["status"] != statuses.PASS]
    assert not bad, bad[:3]
    assert {len(r["input_shapes"][0]) for r in records} == {3, 4, 5, 6, 7, 8}
