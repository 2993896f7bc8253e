"""The quantizing operators of issue 25 (ELEMENT_WISE_QUANTIZED_LINEAR_ADD): the oracle against the
page's formula, every case exactly through the oracle, ONNX Runtime's CPU provider and the DirectML
provider under Wine, what the real DirectML.dll does with the description (dml-direct), bad cases
refused at load, and the faults of tests/faults_quantize.py caught."""
import numpy as np

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.run import runner
from conformance.run.results import ResultsWriter

ADD = load_file("cases/element_wise_quantized_linear_add.yaml")
# ONNX Runtime's CPU QLinearAdd adds the output zero point before rounding: at an exact tie with an odd
# zero point it lands on the other integer (docs/findings/issue25-quantize.md)
ZERO_POINT_FIRST = ("ties-odd-zero-point/", "scales-negative/")


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_4", ResultsWriter(None)).records


def test_the_oracle_is_the_pages_formula():
    x = tuple(np.array(v, dtype=t) for v, t in (([10, 20, 0], "uint8"), ([0.5], "float32"), ([2], "uint8"),
                                                 ([3, 4, 255], "uint8"), ([0.25], "float32"), ([1], "uint8"),
                                                 ([1.0], "float32"), ([5], "uint8")))
    # (10-2)*0.5 + (3-1)*0.25 = 4.5 -> 4 (ties to even) + 5; 9.75 -> 10 + 5; -1 + 63.5 = 62.5 -> 62 + 5
    assert oracle.evaluate("ELEMENT_WISE_QUANTIZED_LINEAR_ADD", x, "uint8").tolist() == [9, 15, 67]
    signed = (np.array([-128, 127], "int8"), np.array([1.0], "float32"), np.array([0], "int8"),
              np.array([100, 100], "uint8"), np.array([1.0], "float32"), np.array([0], "uint8"),
              np.array([1.0], "float32"), np.array([0], "int8"))
    got = oracle.evaluate("ELEMENT_WISE_QUANTIZED_LINEAR_ADD", signed, "int8", BType="uint8")
    assert got.dtype == np.int8 and got.tolist() == [-28, 127]  # saturated at INT8's Max


def test_every_case_passes_exactly_through_the_oracle():
    assert len(ADD) > 50
    records = run("python:oracle:evaluate", ADD)
    assert {r["status"] for r in records} == {statuses.PASS}


def test_the_cpu_provider_passes_every_case_it_reaches_but_rounds_after_the_zero_point():
    records = {r["id"]: r for r in run("cpu", ADD)}
    mixed = [i for i in records if "BType=" in i or "OutputType=" in i]
    assert mixed and all(records[i]["status"] == statuses.NOT_REACHABLE for i in mixed)
    late = [i for i in records if any(k in i for k in ZERO_POINT_FIRST)]
    assert len(late) == 4 and all(records[i]["status"] == statuses.FAIL for i in late)
    odd = next(records[i] for i in late if "uint8" in i and "ties-odd" in i)
    for worst in odd["d3d"]["worst"]:  # input [A, ...], A * 0.5 a tie, the zero point 7 added first
        tie = worst["input"][0] * 0.5
        assert worst["expected"] == np.rint(tie) + 7 and worst["actual"] == np.rint(tie + 7)
    rest = [r for i, r in records.items() if i not in mixed and i not in late]
    assert len(rest) > 40 and {r["status"] for r in rest} == {statuses.PASS}


def test_the_directml_provider_under_wine_passes_what_it_reaches():
    from needs import missing
    from conformance.backends import dml_wine
    lane, why = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned: {why}")
    chosen = [c for c in ADD if "rank4[2x3x4x5]" in c.id or "ties" in c.id]
    records = {r["id"]: r for r in run("dml-wine", chosen)}
    reached = {i: r for i, r in records.items() if r["status"] != statuses.NOT_REACHABLE}
    assert len(reached) >= 7 and {r["status"] for r in reached.values()} == {statuses.PASS}
    assert any("ties-odd-zero-point" in i for i in reached)  # DirectML rounds before adding the zero point


def test_dml_direct_is_refused_every_description_it_builds():
    """Found here, not understood: CreateOperator answers E_INVALIDARG to every description dml-direct
    writes (scales broadcast or packed of one element), while the DirectML provider runs the operator."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", [c for c in ADD if "rank4" in c.id or "ties/" in c.id])
    full = [r for r in records if r["elements"]]
    assert full and all(r["status"] == statuses.UNSUPPORTED_REQUIRED and "E_INVALIDARG" in r["message"]
                        for r in full)


def test_a_scale_of_several_elements_is_refused_at_load(tmp_path):
    path = tmp_path / "add.yaml"
    path.write_text("operator: ELEMENT_WISE_QUANTIZED_LINEAR_ADD\ngroups:\n  - dtypes: [uint8]\n"
                    "    shapes: [[2, 3]]\n    broadcast: [{AScale: [0], AZeroPoint: [0, 1], BScale: [0, 1], "
                    "BZeroPoint: [0, 1], OutputScale: [0, 1], OutputZeroPoint: [0, 1]}]\n"
                    "    inputs: [{kind: uniform, low: 0, high: 9}]\n")
    try:
        load_file(path)
    except CaseFileError as error:
        assert f"{path}:" in str(error) and "AScale [1, 3]" in str(error) and "one element" in str(error)
    else:
        raise AssertionError("a scale of three elements was accepted")


def test_the_faults_are_caught():
    chosen = [c for c in ADD if c.elements]
    ignored = [r for r in run("python:faults_quantize:zero_point_ignored", chosen)
               if "AZeroPoint=uniform" in r["id"] and r["elements"] > 1]
    assert len(ignored) > 20 and {r["status"] for r in ignored} == {statuses.FAIL}
    away = {r["id"]: r["status"] for r in run("python:faults_quantize:round_half_away", chosen)}
    ties = [i for i in away if "/ties" in i]
    assert len(ties) == 5 and all(away[i] == statuses.FAIL for i in ties)
