"""UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2 and RESAMPLE3 in their nearest-neighbour modes: the oracle
against the pages' mappings, every case exactly through the oracle, ONNX Runtime's CPU provider and the real
DirectML.dll (dml-direct; dml-wine's smoke cases), bad cases refused at load, and the faults of
tests/faults_resample.py caught. Where DirectML or ONNX Runtime does what the pages do not say, the cases
are listed here and in docs/findings/issue25-resample_nearest.md, and asserted to fail as found."""
import math

import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.run import runner
from conformance.run.results import ResultsWriter
from oracle.resampling import LINEAR

OPERATORS = ("UPSAMPLE_2D", "RESAMPLE", "RESAMPLE1", "RESAMPLE2", "RESAMPLE3")
# The nearest-neighbour cases (LINEAR's: tests/test_resample_linear.py)
CASES = [c for c in load_paths() if c.op in OPERATORS and c.params.get("InterpolationMode") != LINEAR]
DECREASING, INCREASING = "DML_AXIS_DIRECTION_DECREASING", "DML_AXIS_DIRECTION_INCREASING"
# The coordinate (0 + 0.5) / float32(0.2) - 0.5 is 1.99999996 exactly, 2.0 in float32: DirectML and ONNX
# Runtime floor it to 2, the page's formula to 1
FLOAT32_COORDINATE = {f"{op}/{t}/rank2[1x5]/RoundingDirection={DECREASING},Scales=[3,0.2],"
                      "InputPixelOffsets=[0.5,0.5],OutputPixelOffsets=[-0.5,-0.5]/uniform[-100,100]"
                      for op in ("RESAMPLE2", "RESAMPLE3") for t in ("float32", "float16")}
# DirectML 1.15.4 on lavapipe: RESAMPLE and RESAMPLE1 of INT8 and UINT8 (FL 6_2) copy other elements
EIGHT_BIT = {c.id for c in CASES if c.op in ("RESAMPLE", "RESAMPLE1") and c.dtype in ("int8", "uint8")}


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_4", ResultsWriter(None)).records


def by_status(records) -> dict:
    found = {}
    for r in records:
        found.setdefault(r["status"], set()).add(r["id"])
    return found


def test_the_oracle_follows_the_pages_mappings():
    x = np.array([10, 11, 12, 13], dtype=np.float32)
    # DML_RESAMPLE: the element nearest each pixel centre, (o + 0.5) / 2 - 0.5, halves up
    assert oracle.evaluate("RESAMPLE", x, "float32", Scales=[2.0]).tolist() == [10, 10, 11, 11, 12, 12, 13, 13]
    # (o + 0.5) / 0.5 - 0.5 = 2o + 0.5, exactly halfway: the higher
    assert oracle.evaluate("RESAMPLE", x, "float32", Scales=[0.5]).tolist() == [11, 13]
    # RESAMPLE1's remark: offsets 0.5 and -0.5 are RESAMPLE
    for scale in (2.0, 3.0, 0.5, 1.5):
        assert (oracle.evaluate("RESAMPLE1", x, "float32", Scales=[scale], InputPixelOffsets=[0.5],
                                OutputPixelOffsets=[-0.5]).tolist()
                == oracle.evaluate("RESAMPLE", x, "float32", Scales=[scale]).tolist())
    # RESAMPLE2's remark (DECREASING, OutputPixelOffsets 0.5 lower) is not RESAMPLE1 where the scale is 3:
    # floor((3 + 0.5 + 0.5) / 3 - 0.5) = 0 for output 3, whose nearest input is 1 (the findings page)
    five = np.arange(5, dtype=np.float32)
    remark = oracle.evaluate("RESAMPLE2", five, "float32", RoundingDirection=DECREASING, Scales=[3.0],
                             InputPixelOffsets=[0.5], OutputPixelOffsets=[-1.0])
    nearest = oracle.evaluate("RESAMPLE1", five, "float32", Scales=[3.0], InputPixelOffsets=[0.5],
                              OutputPixelOffsets=[-0.5])
    assert remark[3] == 0 and nearest[3] == 1
    # RESAMPLE2 from the corners (offsets 0): o / 2, ceil toward increasing values, floor toward decreasing
    corners = {"Scales": [2.0], "InputPixelOffsets": [0.0], "OutputPixelOffsets": [0.0]}
    assert oracle.evaluate("RESAMPLE2", x, "float32", RoundingDirection=INCREASING,
                           **corners).tolist() == [10, 11, 11, 12, 12, 13, 13, 13]  # ceil(3.5) = 4 clamped to 3
    assert oracle.evaluate("RESAMPLE2", x, "float32", RoundingDirection=DECREASING,
                           **corners).tolist() == [10, 10, 11, 11, 12, 12, 13, 13]
    # Offsets beyond the edges: the output edges clamped
    assert oracle.evaluate("RESAMPLE2", x, "float32", RoundingDirection=DECREASING, Scales=[1.0],
                           InputPixelOffsets=[-2.0], OutputPixelOffsets=[0.0]).tolist() == [12, 13, 13, 13]
    # UPSAMPLE_2D: ScaleSize {Width 3, Height 2} repeats each element 3 times across and 2 times down
    image = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    got = oracle.evaluate("UPSAMPLE_2D", image, "float32", ScaleSize=[3, 2])
    assert got.shape == (1, 1, 4, 6) and got[0, 0].tolist() == [[0, 0, 0, 1, 1, 1]] * 2 + [[2, 2, 2, 3, 3, 3]] * 2


def test_a_copy_keeps_its_bits():
    bits = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001], dtype=np.uint32)
    got = oracle.evaluate("RESAMPLE2", bits.view(np.float32), "float32", RoundingDirection=DECREASING,
                          Scales=[2.0], InputPixelOffsets=[0.0], OutputPixelOffsets=[0.0])
    assert got.view(np.uint32).tolist() == [b for b in bits.tolist() for _ in (0, 1)]


def test_the_source_index_names_what_the_oracle_copies():
    """The spec's source_index (written apart from the oracle) picks every element the oracle gives."""
    from conformance import specs
    assert {c.op for c in CASES} == set(OPERATORS)
    for case in CASES:
        x = case.make_input()
        expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
        _, source = specs.get(case.op).source_index(np.indices(expected.shape, sparse=True), (x,), case.params)
        picked = np.asarray(x)[tuple(np.broadcast_arrays(*source))]
        assert picked.tobytes() == expected.tobytes(), case.id


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert len(CASES) > 500
    assert by_status(run("python:oracle:evaluate", CASES)).keys() == {statuses.PASS}
    found = by_status(run("cpu", CASES))
    assert found.keys() == {statuses.PASS, statuses.FAIL, statuses.NOT_REACHABLE}
    assert found[statuses.FAIL] == FLOAT32_COORDINATE
    # Not reachable: offsets that differ between axes or move an axis of scale 1 (ONNX Runtime keeps such an
    # axis as it is), offsets no Resize transformation and nearest mode maps; never counted as a pass
    unreachable = found[statuses.NOT_REACHABLE]
    assert "RESAMPLE2/float32/rank2[4x5]/RoundingDirection=DML_AXIS_DIRECTION_INCREASING,Scales=[2,1.5]," \
           "InputPixelOffsets=[0.25,0],OutputPixelOffsets=[0,-0.75]/uniform[-100,100]" in unreachable
    assert "RESAMPLE1/float32/rank2[3x4]/Scales=[1,4],InputPixelOffsets=[0,0]," \
           "OutputPixelOffsets=[-0.5,-0.5]/uniform[-100,100]" in unreachable
    # Output sizes of a case's own (OutputSizes): Resize's are floor(InputSize * scale)
    given_sizes = {c.id for c in CASES if c.params.get("OutputSizes") is not None}
    assert given_sizes and given_sizes <= unreachable
    assert not any(c.op == "UPSAMPLE_2D" or c.op == "RESAMPLE" and c.id not in given_sizes
                   for c in CASES if c.id in unreachable)


BAD = (("RESAMPLE", "[4, 5]", "Scales: {array: [2, 2, 2]}", "Scales has 3 values; InputTensor has 2 dimensions"),
       ("RESAMPLE", "[4, 5]", "Scales: {array: [2, 0]}", "each must be a finite number larger than 0"),
       ("RESAMPLE", "[4, 5]", "Scales: {array: [2, 0.1]}", "make output dimension 1 empty"),
       ("RESAMPLE1", "[4, 5]", "Scales: {array: [2, 2]}", "InputPixelOffsets is required"),
       ("RESAMPLE", "[4, 5]", "Scales: {array: [2, 2]}\n      OutputSizes: {array: [3]}", "OutputSizes has 1 values"),
       ("RESAMPLE", "[4, 5]", "Scales: {array: [2, 2]}\n      OutputSizes: {array: [3, 0]}", "each at least 1"),
       ("RESAMPLE3", "[4]", "Scales: {array: [2]}\n      InputPixelOffsets: {array: [0.5]}\n      OutputPixelOffsets: "
        "{array: [-0.5]}\n      Antialiased: 1", "Antialiased TRUE"),
       ("UPSAMPLE_2D", "[1, 1, 4, 5]", "ScaleSize: {array: [2, 0]}", "0 < Height <= UINT_MAX / InputHeight"),
       ("UPSAMPLE_2D", "[1, 1, 4, 5]", "ScaleSize: {array: [858993460, 1]}", "0 < Width <= UINT_MAX / InputWidth"),
       ("UPSAMPLE_2D", "[1, 1, 4, 5]", "ScaleSize: {array: [2, 2, 2]}", "a DML_SIZE_2D is [Width, Height]"))


@pytest.mark.parametrize("op, shape, params, said", BAD, ids=[f"{b[0]}-{b[3][:20]}" for b in BAD])
def test_a_bad_case_is_refused_at_load_naming_file_and_line(tmp_path, op, shape, params, said):
    path = tmp_path / "bad.yaml"
    path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [{shape}]\n    params:\n"
                    f"      {params}\n    inputs: [{{kind: uniform}}]\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert f"{path}:4: " in str(error.value) and said in str(error.value), str(error.value)


def _failed(fault, chosen):
    found = by_status(run(f"python:faults_resample:{fault}", chosen))
    return found.get(statuses.FAIL, set())


def test_rounding_halves_the_other_way_is_caught_where_a_coordinate_is_halfway():
    failed = _failed("rounds_halves_the_other_way", [c for c in CASES if c.op != "UPSAMPLE_2D"])
    for op in ("RESAMPLE", "RESAMPLE1", "RESAMPLE2", "RESAMPLE3"):
        assert any(i.startswith(f"{op}/") for i in failed), op
    # o / 2 from the corners is halfway at every odd o; (o + 0.5) / 2 - 0.5 never is
    assert f"RESAMPLE2/float32/rank1[6]/RoundingDirection={DECREASING},Scales=[2],InputPixelOffsets=[0]," \
           "OutputPixelOffsets=[0]/uniform[-1000,1000]" in failed
    assert "RESAMPLE/float32/rank1[6]/Scales=[0.5]/uniform[-1000,1000]" in failed
    assert "RESAMPLE/float32/rank1[6]/Scales=[2]/uniform[-1000,1000]" not in failed


def test_pixel_offsets_ignored_and_two_scales_swapped_are_caught_naming_the_source():
    from conformance.judge.entry import compare_case
    from faults_resample import swaps_two_scales
    chosen = [c for c in CASES if c.dtype == "float32"]
    ignored = _failed("ignores_pixel_offsets", chosen)
    for op in ("RESAMPLE", "RESAMPLE1", "RESAMPLE2", "RESAMPLE3"):
        assert any(i.startswith(f"{op}/") for i in ignored), op
    swapped = _failed("swaps_two_scales", chosen)
    for op in OPERATORS:
        assert any(i.startswith(f"{op}/") for i in swapped), op
    assert "UPSAMPLE_2D/float32/rank4[2x3x4x5]/ScaleSize=[1,1]/uniform[-1000,1000]" not in swapped  # nothing to swap
    case = select(CASES, f"RESAMPLE2/float32/rank2[3x4]/RoundingDirection={DECREASING},Scales=[2,0.5],"
                         "InputPixelOffsets=[0.5,0.5],OutputPixelOffsets=[-0.5,-0.5]/uniform[-100,100]")[0]
    x = case.make_input()
    comparison = compare_case(case, x, swaps_two_scales(case.op, x, case.dtype, **case.params))
    assert not comparison.passed
    for item in comparison.worst:  # the source the page maps the output index to, and its value
        row, column = item["index"]
        assert item["source"] == [max(math.floor((row + 0.5) / 2 - 0.5), 0), 2 * column]
        assert item["input"] == item["expected"] == x[tuple(item["source"])] != item["actual"]


def _lane(name):
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the {name} lane is missing: {why}")


def test_every_case_passes_exactly_through_dml_direct_but_the_findings():
    """The real DirectML.dll (Wine lane on lavapipe here): the fields as DirectML.h lays them out (a
    DML_SIZE_2D by value, float arrays with their count), the output of its own sizes."""
    _lane("dml-direct")
    found = by_status(run("dml-direct", CASES))
    assert found.keys() == {statuses.PASS, statuses.FAIL}
    assert found[statuses.FAIL] == FLOAT32_COORDINATE | EIGHT_BIT
    assert len(found[statuses.PASS]) == len(CASES) - len(FLOAT32_COORDINATE | EIGHT_BIT)
    # The pages' crop and clamp where the output's sizes are not floor(InputSize * Scale)
    assert any("OutputSizes=[12,1]" in i for i in found[statuses.PASS])


def test_the_smoke_cases_pass_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine: Resize, as the cpu backend builds it."""
    _lane("dml-wine")
    smoke = [c for c in CASES if c.smoke]
    assert {c.op for c in smoke} == set(OPERATORS)
    found = by_status(run("dml-wine", smoke))
    assert found.keys() == {statuses.PASS}, found
