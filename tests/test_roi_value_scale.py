"""ROI_POOLING and VALUE_SCALE_2D (issue 25, roi_value_scale group): the oracles against the pages'
formulas, every case through the oracle, ONNX Runtime's CPU provider (MaxRoiPool, ImageScaler),
dml-direct and dml-wine (the real DirectML.dll under Wine on lavapipe), bad cases refused at load with
file and line, and the injected faults of tests/faults_roi_value_scale.py caught where they change the
output. What DirectML and ONNX Runtime do that the pages do not say: docs/findings/issue25-roi_value_scale.md."""
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.caseset.selection import select
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter

CASES = Path(__file__).parent.parent / "cases"
ROI = load_file(CASES / "roi_pooling.yaml")
SCALE = load_file(CASES / "value_scale_2d.yaml")
FLT_MAX = {"float32": float(np.finfo(np.float32).max), "float16": float(np.finfo(np.float16).max)}


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def by_id(records):
    return {r["id"]: r for r in records}


def refused(tmp_path, text, said):
    path = tmp_path / "case.yaml"
    path.write_text(text)
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert f"{path}:" in str(error.value) and said in str(error.value), str(error.value)


# -- ROI_POOLING ---------------------------------------------------------------------------------------

def test_the_roi_oracle_is_the_pages_bin_arithmetic():
    """ROI [0, 1, 2, 5, 6] (RegionHeight = RegionWidth = 5), PooledSize 2 wide, 3 high: StartY = Y * 5 / 3
    + 2 = 2, 3, 5 and EndY = ((Y + 1) * 5 + 2) / 3 + 2 = 4, 6, 7; StartX = 1, 3 and EndX = 4, 6. Over
    x[i, j] = 10 i + j each bin's maximum is its last element, 10 (EndY - 1) + EndX - 1."""
    x = np.arange(80, dtype=np.float32).reshape(1, 1, 8, 10)
    pages = [[33, 35], [53, 55], [63, 65]]
    for scale, roi in ((1.0, [0, 1, 2, 5, 6]), (0.5, [0, 2, 4, 10, 12]), (0.25, [0, 4, 8, 20, 24])):
        rois = np.array(roi, dtype=np.float32).reshape(1, 1, 1, 5)
        got = oracle.evaluate("ROI_POOLING", (x, rois), "float32", SpatialScale=scale, PooledSize=[2, 3])
        assert got.shape == (1, 1, 3, 2) and got[0, 0].tolist() == pages, (scale, got)
    # out of bounds: x1 = y1 = -3 clamped to 0, the one bin rows and columns 0 and 1
    rois = np.array([0, -3, -3, 1, 1], dtype=np.float32).reshape(1, 1, 1, 5)
    assert oracle.evaluate("ROI_POOLING", (x, rois), "float32", PooledSize=[1, 1]).item() == 11
    # wholly outside: every bin empty, 0 (the page is silent; the judge accepts any value there)
    rois = np.array([0, 20, 20, 30, 30], dtype=np.float32).reshape(1, 1, 1, 5)
    assert oracle.evaluate("ROI_POOLING", (x - 100, rois), "float32", PooledSize=[2, 2]).tolist() == [[[[0, 0], [0, 0]]]]


def test_the_roi_oracle_copies_bits_and_keeps_the_first_of_equal_maxima():
    bits = np.array([0x7FC00123, 0x80000000, 0x00000000, 0xFF800000], dtype=np.uint32)
    x = bits.view(np.float32).reshape(1, 1, 2, 2)
    rois = np.array([0, 0, 0, 1, 1], dtype=np.float32).reshape(1, 1, 1, 5)
    got = oracle.evaluate("ROI_POOLING", (x, rois), "float32", PooledSize=[2, 2])
    assert got.reshape(-1).view(np.uint32).tolist() == bits.tolist()
    assert oracle.evaluate("ROI_POOLING", (x, rois), "float32", PooledSize=[1, 1]).view(np.uint32).item() == 0  # +0 over -0
    from conformance import specs
    same = np.full((1, 1, 2, 2), 7.0, dtype=np.float32)
    source = specs.get("ROI_POOLING").source_index((np.array([0]),) * 4, (same, rois), {"SpatialScale": 1.0,
                                                                                         "PooledSize": [1, 1]})
    assert [int(s[0]) for s in source[1]] == [0, 0, 0, 0]


def test_every_roi_case_passes_exactly_through_the_oracle():
    assert 40 <= len(ROI) <= 250
    records = run("python:oracle:evaluate", ROI)
    assert {r["status"] for r in records} == {statuses.PASS}
    assert max(r["max_ulp"] for r in records) == 0
    record = by_id(records)["ROI_POOLING/float32/rank4[Input=3x4x9x9,ROI=1x1x12x5]/SpatialScale=1,PooledSize=[3,3]/twelve"]
    assert record["input_shapes"] == [[3, 4, 9, 9], [1, 1, 12, 5]] and record["output_shapes"] == [[12, 4, 3, 3]]


def test_a_half_rounded_to_even_passes_as_the_page_is_silent_on_it():
    """Corners at x.5 after scaling: a device rounding them to even (DirectML) passes as one rounding them
    away from zero (the oracle) does; the two differ on this case."""
    case = select(ROI, "ROI_POOLING/float32/rank4[Input=1x2x6x6,ROI=1x1x3x5]/SpatialScale=0.5,PooledSize=[1,3]/halves")[0]
    x = case.make_input()
    from oracle import roi_pooling
    even = roi_pooling.sources(x[0], x[1], 0.5, [1, 3], rounding=np.round)
    to_even = np.where(even >= 0, x[0].reshape(-1)[np.maximum(even, 0)], 0).astype(np.float32)
    expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
    assert (to_even != expected).any()
    assert compare_case(case, x, to_even).passed and compare_case(case, x, expected).passed
    assert not compare_case(case, x, np.roll(expected, 1)).passed


def test_the_cpu_provider_passes_but_for_bins_of_nan_and_negative_infinity():
    """MaxRoiPool starts each bin's maximum at -FLT_MAX (a bin of -inf gives -FLT_MAX) and propagates NaN:
    the specials cases fail there, and only there."""
    records = by_id(run("cpu", ROI))
    failing = {i for i, r in records.items() if r["status"] != statuses.PASS}
    assert failing and all(i.endswith("specials") for i in failing), failing
    for i in failing:
        for worst in records[i]["d3d"]["worst"]:
            assert (worst["expected"] == "-inf" and worst["actual"] == -FLT_MAX[records[i]["dtype"]]) or \
                   (worst["actual"] == "nan" and worst["expected"] != "nan"), worst
    assert sum(r["status"] == statuses.PASS for r in records.values()) >= 40


def test_a_roi_case_the_page_forbids_is_refused_at_load_naming_file_and_line(tmp_path):
    head = "operator: ROI_POOLING\ngroups:\n  - dtypes: [float32]\n"
    def group(shapes, pooled, rois, roi_generator=None):
        generator = roi_generator or f"{{kind: values, values: {rois}}}"
        return (head + f"    shapes: [{shapes}]\n    params: {{PooledSize: {{array: {pooled}}}}}\n"
                f"    inputs:\n      - each: {{Input: {{kind: uniform}}, ROI: {generator}}}\n")
    refused(tmp_path, group("{Input: [1, 1, 4, 4], ROI: [1, 1, 1, 4]}", "[2, 2]", "[0, 0, 0, 1]"),
            "ROITensor [1, 1, 1, 4]: the page expects {1, 1, NumROIs, 5}")
    refused(tmp_path, group("{Input: [1, 1, 4, 4], ROI: [1, 1, 1, 5]}", "[0, 2]", "[0, 0, 0, 1, 1]"),
            "PooledSize [0, 2]: a DML_SIZE_2D [Width, Height], each at least 1")
    refused(tmp_path, group("{Input: [2, 1, 4, 4], ROI: [1, 1, 2, 5]}", "[2, 2]", "[0, 0, 0, 1, 1, 2, 0, 0, 1, 1]"),
            "ROI 1: BatchID 2.0 is not a batch of InputTensor (0 to 1)")
    refused(tmp_path, group("{Input: [1, 1, 4, 4], ROI: [1, 1, 1, 5]}", "[2, 2]", "[0, 3, 0, 1, 1]"),
            "the page requires x2 >= x1 and y2 >= y1")
    refused(tmp_path, group("{Input: [1, 1, 4, 4], ROI: [1, 1, 1, 5]}", "[2, 2]", "", "{kind: uniform}"),
            "ROI's values are the case file's: {kind: values}")


def test_roi_coordinates_not_scaled_are_caught_and_named_by_source():
    records = by_id(run("python:faults_roi_value_scale:roi_not_scaled", ROI))
    unscaled = [r for i, r in records.items() if "SpatialScale=1," in i]
    assert unscaled and all(r["status"] == statuses.PASS for r in unscaled)  # nothing to scale: a correct device
    # (the ties cases repeat three values: other bins may hold the same maxima)
    scaled = [r for i, r in records.items() if "SpatialScale=1," not in i and not i.endswith("/ties")]
    assert scaled and all(r["status"] == statuses.FAIL for r in scaled), [r["id"] for r in scaled
                                                                           if r["status"] != statuses.FAIL]
    worst = scaled[0]["d3d"]["worst"][0]
    assert worst["source_input"] == "Input" and len(worst["source"]) == 4 and worst["expected"] != worst["actual"]


def test_a_bin_start_rounded_up_is_caught_where_a_division_is_not_exact():
    records = by_id(run("python:faults_roi_value_scale:bin_start_rounded_up", ROI))
    single = [r for i, r in records.items() if "PooledSize=[1,1]" in i]
    assert single and all(r["status"] == statuses.PASS for r in single)  # one bin: its start is 0 * region
    for i in ("ROI_POOLING/float32/rank4[Input=2x3x8x10,ROI=1x1x5x5]/SpatialScale=1,PooledSize=[4,3]/extents",
              "ROI_POOLING/float16/rank4[Input=3x4x9x9,ROI=1x1x12x5]/SpatialScale=1,PooledSize=[3,3]/twelve"):
        assert records[i]["status"] == statuses.FAIL, i
    assert sum(r["status"] == statuses.FAIL for r in records.values()) >= 30


# -- VALUE_SCALE_2D ------------------------------------------------------------------------------------

def test_the_value_scale_oracle_is_the_pages_formula():
    """Output = Scale * Input + Bias, Bias[c] the element's channel's."""
    x = np.array([1.0, -2.0, 0.5, 4.0, -0.0, 3.0], dtype=np.float32).reshape(1, 3, 1, 2)
    got = oracle.evaluate("VALUE_SCALE_2D", x, "float32", Scale=2.0, Bias=[10.0, -1.0, 0.25])
    assert got.reshape(3, 2).tolist() == [[12.0, 6.0], [0.0, 7.0], [0.25, 6.25]]
    one = oracle.evaluate("VALUE_SCALE_2D", x[:, :1], "float16", Scale=-1.0, Bias=[0.5])
    assert one.dtype == np.float16 and one.reshape(-1).tolist() == [-0.5, 2.5]


def test_every_value_scale_case_passes_through_the_oracle_and_the_cpu_provider():
    assert 90 <= len(SCALE) <= 250
    for name in ("python:oracle:evaluate", "cpu"):
        records = run(name, SCALE)
        assert {r["status"] for r in records} == {statuses.PASS}, (name, [r["id"] for r in records
                                                                           if r["status"] != statuses.PASS][:3])
    assert max(r["max_ulp"] for r in run("python:oracle:evaluate", SCALE)) == 0


def test_a_device_flushing_subnormal_inputs_passes_and_the_flush_is_counted():
    """Per channel: the flushed input's result is Scale * (+-0) + Bias[c] at each element's own channel."""
    case = select(SCALE, "VALUE_SCALE_2D/float32/rank4[1x3x2x20]/Scale=-3,Bias=[-1,0,65504]/specials")[0]
    x = case.make_input()
    tiny = (x != 0) & (np.abs(x) < np.finfo(np.float32).smallest_normal)
    flushing = oracle.evaluate(case.op, np.where(tiny, np.copysign(np.float32(0), x), x), case.dtype,
                               **case.oracle_params())
    expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
    assert tiny.any() and (flushing != expected).any()
    comparison = compare_case(case, x, flushing)
    assert comparison.passed and comparison.flushed > 0 and comparison.within_intervals


def test_the_bias_of_the_wrong_channel_is_caught_naming_input_and_bias():
    records = by_id(run("python:faults_roi_value_scale:bias_of_the_next_channel", SCALE))
    one = [r for r in records.values() if r["input_shapes"][0][1] == 1]
    assert one and all(r["status"] == statuses.PASS for r in one)  # one channel: no other bias to take
    three = [r for i, r in records.items() if r["input_shapes"][0][1] == 3 and "Bias=[-0.0,0,-0.0]" not in i]
    assert three and all(r["status"] == statuses.FAIL for r in three), [r["id"] for r in three
                                                                         if r["status"] != statuses.FAIL]
    worst = by_id(records.values())["VALUE_SCALE_2D/float32/rank4[1x3x5x5]/Scale=1,Bias=[-10,0,10]/uniform[-20,20]"][
        "d3d"]["worst"][0]
    channel_bias = [-10.0, 0.0, 10.0][worst["index"][1]]
    assert worst["input"][1] == channel_bias and worst["actual"] != worst["expected"]


def test_a_value_scale_case_the_page_forbids_is_refused_at_load_naming_file_and_line(tmp_path):
    head = "operator: VALUE_SCALE_2D\ngroups:\n  - dtypes: [float32]\n    inputs: [{kind: uniform}]\n"
    refused(tmp_path, head + "    shapes: [[1, 2, 3, 3]]\n    params: {Bias: {array: [1.0, 2.0]}}\n",
            "ChannelCount (the length of Bias) must be 1 or 3")
    refused(tmp_path, head + "    shapes: [[1, 3, 3, 3]]\n    params: {Bias: {array: [1.0]}}\n",
            "ChannelCount 1 (the length of Bias) must match InputTensor's channel dimension 3")
    refused(tmp_path, head + "    shapes: [[3, 3, 3]]\n    params: {Bias: {array: [1.0, 2.0, 3.0]}}\n",
            "VALUE_SCALE_2D never allows 3 dimensions")


# -- the real DirectML -----------------------------------------------------------------------------------

def test_every_case_passes_through_dml_direct_but_roi_bins_of_nan_and_negative_infinity():
    """DirectML.dll (on lavapipe here): ROI_POOLING's ROI tensor of its own shape, SpatialScale and
    PooledSize by value, each output the first maximum of its bin, an empty bin 0, halves rounded to even;
    but a bin holding only NaN and -inf gives -FLT_MAX (its maximum starts there: the page says max).
    VALUE_SCALE_2D's Bias as ChannelCount and a pointer, every case within the d3d intervals."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = by_id(run("dml-direct", ROI + SCALE))
    failing = {i for i, r in records.items() if r["status"] != statuses.PASS}
    assert failing and all(i.startswith("ROI_POOLING/") and i.endswith("specials") for i in failing), failing
    for i in failing:
        for worst in records[i]["d3d"]["worst"]:
            assert worst["expected"] in ("nan", "-inf") and worst["actual"] == -FLT_MAX[records[i]["dtype"]], worst
    assert records["ROI_POOLING/float32/rank4[Input=1x2x6x6,ROI=1x1x3x5]/SpatialScale=0.5,PooledSize=[1,3]/halves"][
        "status"] == statuses.PASS


def test_the_smoke_cases_pass_through_dml_wine_and_a_non_square_roi_pool_is_refused():
    """ONNX Runtime's DirectML provider: ImageScaler and MaxRoiPool run on DirectML and conform; a
    MaxRoiPool whose pooled_shape is not square fails with E_INVALIDARG (80070057) (the findings)."""
    from needs import missing
    from conformance.backends import dml_wine
    lane, reason = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({reason})")
    smoke = [c for c in ROI + SCALE if c.smoke]
    square = "ROI_POOLING/float32/rank4[Input=2x3x8x10,ROI=1x1x5x5]/SpatialScale=1,PooledSize=[3,2]/extents"
    records = by_id(run("dml-wine", smoke + select(ROI, square)))
    assert len(smoke) == 8 and all(records[c.id]["status"] == statuses.PASS for c in smoke), \
        [(i, r["message"]) for i, r in records.items() if r["status"] != statuses.PASS and i != square]
    assert all("DmlExecutionProvider" in str(records[c.id].get("placement")) for c in smoke)
    assert records[square]["status"] == statuses.ERROR and "80070057" in records[square]["message"]


def test_conformance_specs_prints_both_with_their_tables_and_the_bias_in_the_formula():
    import subprocess
    import sys
    for op, said in (("ROI_POOLING", "d3d: exact"), ("VALUE_SCALE_2D", "((x * 1) + bias)")):
        done = subprocess.run([sys.executable, "-m", "conformance", "specs", op], capture_output=True, text=True,
                              cwd=CASES.parent)
        assert done.returncode == 0, done.stderr
        assert "DML_FEATURE_LEVEL_1_0                   4  FLOAT32, FLOAT16" in done.stdout and said in done.stdout
    assert "x = 10.0, 0.5: exact 10.5, accepted [10.5, 10.5]" in done.stdout  # Bias=[0.5], its example
