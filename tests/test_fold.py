"""FOLD (col2im, DirectML 1.15.1, feature level 6_4): the page's three examples, each output element the sum of
the window positions landing on it (UNFOLD then FOLD of ones: the overlap counts), cases refused at load (a
BlockCount that does not match, float values whose sum could round), every case exactly through the oracle, ONNX
Runtime's Col2Im where it is right and the real DirectML.dll (dml-direct on lavapipe), and an injected fault."""
import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.run import runner
from conformance.run.results import ResultsWriter

CASES = [c for c in load_paths() if c.op == "FOLD"]
EXAMPLE_1 = [[0, 5, 13, 9], [14, 38, 54, 32], [38, 86, 102, 56], [26, 57, 65, 35]]
EXAMPLE_2 = [[26, 70, 102, 60], [78, 183, 231, 129], [84, 195, 243, 135], [82, 182, 214, 116]]
EXAMPLE_3 = [[170, 358, 390, 204], [294, 615, 663, 345], [300, 627, 675, 351], [226, 470, 502, 260]]


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_4", ResultsWriter(None)).records


def fields(start, end, window=(3, 3)):
    return {"WindowSizes": list(window), "Strides": [1, 1], "Dilations": [1, 1], "StartPadding": start,
            "EndPadding": end, "OutputSizes": [4, 4]}


def test_the_oracle_is_the_pages_three_examples():
    plain = oracle.evaluate("FOLD", np.arange(36, dtype=np.float32).reshape(1, 9, 4), "float32", **fields([0, 0], [0, 0]))
    assert plain.shape == (1, 1, 4, 4) and plain[0, 0].tolist() == EXAMPLE_1
    padded = oracle.evaluate("FOLD", np.arange(72, dtype=np.float32).reshape(1, 9, 8), "float32",
                             **fields([1, 0], [1, 0]))
    assert padded[0, 0].tolist() == EXAMPLE_2
    two = oracle.evaluate("FOLD", np.arange(144, dtype=np.float32).reshape(1, 18, 8), "float32",
                          **fields([1, 0], [1, 0]))
    assert two.shape == (1, 2, 4, 4) and two[0, 0].tolist() == EXAMPLE_2 and two[0, 1].tolist() == EXAMPLE_3


def test_unfold_then_fold_of_ones_gives_each_positions_overlap_count():
    for start, end, window in (([0, 0], [0, 0], (3, 3)), ([1, 0], [1, 0], (3, 3)), ([0, 1], [2, 0], (2, 3))):
        params = fields(start, end, window)
        unfold = {k: v for k, v in params.items() if k != "OutputSizes"}
        columns = oracle.evaluate("UNFOLD", np.ones((1, 2, 4, 4)), "float64", **unfold)
        counts = oracle.evaluate("FOLD", columns, "float64", **params)
        expected = np.zeros((4, 4))  # each window's positions, counted one by one
        for top in range(-start[0], 4 + end[0] - window[0] + 1):
            for left in range(-start[1], 4 + end[1] - window[1] + 1):
                for i in range(top, top + window[0]):
                    for j in range(left, left + window[1]):
                        if 0 <= i < 4 and 0 <= j < 4:
                            expected[i, j] += 1
        assert counts[0, 0].tolist() == expected.tolist() and counts[0, 1].tolist() == expected.tolist()
    assert counts[0, 0, 1, 1] == 6  # a 2x3 window of stride 1 covers an inner element 6 times


@pytest.mark.parametrize("dtype, shape, values, problem", [
    ("float32", "[1, 4, 5]", "[1, 2]", "BlockCount 5 (InputTensor.Sizes[2]) must be the product of BlocksPerDimension "
                                       "[2, 2] = 4 for OutputSizes [3, 3]"),
    ("float32", "[1, 4, 4]", "[1, 2.5]", "float32 values [2.5] are not integers"),
    ("float16", "[1, 4, 4]", "[1, 600]", "float16 values up to 600 over 4 overlapping positions could sum past 2048"),
])
def test_a_bad_case_is_refused_at_load_with_one_line(tmp_path, dtype, shape, values, problem):
    path = tmp_path / "fold.yaml"
    path.write_text(f"operator: FOLD\ngroups:\n  - dtypes: [{dtype}]\n    shapes: [{shape}]\n    params:\n"
                    "      OutputSizes: {array: [3, 3]}\n      WindowSizes: {array: [2, 2]}\n"
                    "      Strides: {array: [1, 1]}\n      Dilations: {array: [1, 1]}\n"
                    "      StartPadding: {array: [0, 0]}\n      EndPadding: {array: [0, 0]}\n"
                    f"    inputs: [{{kind: values, values: {values}}}]\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    message, = error.value.problems
    assert message.startswith(f"{path}:") and problem in message and "\n" not in message
    path.write_text(path.read_text().replace(shape, "[1, 4, 4]").replace(values, "[1, 512]"))
    assert len(load_file(path)) == 1  # 512 x 4 overlapping positions: 2048, exact in float16


def test_every_case_passes_exactly_through_the_oracle_and_onnx_runtime_is_no_route():
    assert len(CASES) > 60
    records = run("python:oracle:evaluate", CASES)
    assert {r["status"] for r in records} == {statuses.PASS} and max(r["max_ulp"] for r in records) == 0
    through_onnx = run("cpu", CASES[:5])
    assert {r["status"] for r in through_onnx} == {statuses.NOT_REACHABLE}
    assert "corrupts other operators' outputs" in through_onnx[0]["message"]


def test_a_window_position_dropped_from_the_sum_is_caught_and_named_by_output_index():
    records = run("python:faults_fold:last_window_position_dropped", CASES)
    failed = [r for r in records if r["status"] == statuses.FAIL]
    assert len(failed) > len(CASES) // 2
    example = next(r for r in failed if r["id"].startswith("FOLD/float32/rank3[1x9x4]/"))
    worst = example["d3d"]["worst"][0]
    assert len(worst["index"]) == 4 and worst["expected"] == EXAMPLE_1[worst["index"][2]][worst["index"][3]]


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (1.15.4 on lavapipe here): 3- to 8-D outputs, every type."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", CASES)
    bad = [(r["id"], r["message"]) for r in records if r["status"] != statuses.PASS]
    assert not bad, bad[:3]
    assert {len(c.outputs[0]) for c in CASES} == {3, 4, 5, 6, 7, 8}
