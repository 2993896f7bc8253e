"""SLICE, SLICE1 and SLICE_GRAD (data movement, exact): the pages' examples, every case through the
oracle, ONNX Runtime's CPU provider (SLICE_GRAD: not reachable, ONNX has none), the real DirectML.dll
(dml-direct, and dml-wine through ONNX Runtime's DirectML provider, both under Wine on lavapipe here), bad
cases refused at load, the faults of tests/faults_slice.py caught, and the output sizes a case chooses
(SLICE1's, SLICE_GRAD's), which the description does not hold."""
import ctypes as C
import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.caseset.selection import select
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter

ROOT = Path(__file__).resolve().parent.parent
CASES = [c for name in ("slice.yaml", "slice1.yaml") for c in load_file(ROOT / "cases" / name)]
GRAD = load_file(ROOT / "cases" / "slice_grad.yaml")
PAGE_INPUT = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
EXAMPLE_2 = ("SLICE1/float32/rank4[1x1x4x4]/InputWindowOffsets=[0,0,0,1],InputWindowSizes=[1,1,4,3],"
             "InputWindowStrides=[1,1,-2,2]/page")


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def lane(name):
    from needs import missing
    from conformance.backends import dml_direct, dml_wine
    if name == "dml-direct":
        ready, why = dml_direct.available()
    else:
        found, why = dml_wine.find_lane()
        ready = found is not None
    if not ready:
        missing(f"the {name} lane is missing: {why}")


@pytest.mark.parametrize("op, params, expected", [
    ("SLICE", {"Offsets": [0, 0, 1, 2], "Sizes": [1, 1, 3, 2], "Strides": [1, 1, 1, 1]}, [[7, 8], [11, 12], [15, 16]]),
    ("SLICE", {"Offsets": [0, 0, 1, 0], "Sizes": [1, 1, 2, 2], "Strides": [1, 1, 2, 3]}, [[5, 8], [13, 16]]),
    ("SLICE1", {"InputWindowOffsets": [0, 0, 0, 1], "InputWindowSizes": [1, 1, 4, 3],
                "InputWindowStrides": [1, 1, 2, 2]}, [[2, 4], [10, 12]]),
    ("SLICE1", {"InputWindowOffsets": [0, 0, 0, 1], "InputWindowSizes": [1, 1, 4, 3],
                "InputWindowStrides": [1, 1, -2, 2]}, [[14, 16], [6, 8]]),
])
def test_the_oracle_is_the_pages_examples(op, params, expected):
    got = oracle.evaluate(op, PAGE_INPUT, "float32", **params)
    assert got.dtype == np.float32 and got.shape == (1, 1) + np.shape(expected) and got[0, 0].tolist() == expected
    assert specs.get(op).output_shapes([PAGE_INPUT.shape], params) == (got.shape,)


def test_the_slice_grad_oracle_is_its_pages_example_and_places_backwards():
    """The page's example: a, c, i, k sliced from a 4x4 tensor by strides 2 go back to their places."""
    a, c, i, k = 1.0, 3.0, 9.0, 11.0
    window = {"InputWindowOffsets": [0, 0], "InputWindowSizes": [4, 4], "InputWindowStrides": [2, 2]}
    got = oracle.evaluate("SLICE_GRAD", np.array([[a, c], [i, k]], dtype=np.float32), "float32", **window)
    assert got.tolist() == [[a, 0, c, 0], [0, 0, 0, 0], [i, 0, k, 0], [0, 0, 0, 0]]
    # a negative stride: the gradient of SLICE1's example 2 (rows 3 and 1 of columns 1 and 3), in an output
    # one row larger than the window
    window = {"InputWindowOffsets": [0, 0, 0, 1], "InputWindowSizes": [1, 1, 4, 3], "InputWindowStrides": [1, 1, -2, 2]}
    forward = oracle.evaluate("SLICE1", PAGE_INPUT, "float32", **window)
    back = oracle.evaluate("SLICE_GRAD", forward, "float32", **window, OutputSizes=[1, 1, 5, 4])
    assert back[0, 0].tolist() == [[0, 0, 0, 0], [0, 6, 0, 8], [0, 0, 0, 0], [0, 14, 0, 16], [0, 0, 0, 0]]


def test_slice1_copies_bits_backwards_and_takes_the_output_sizes_a_case_chooses():
    bits = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001, 0x7F800000], dtype=np.uint32)
    window = {"InputWindowOffsets": [0], "InputWindowSizes": [5], "InputWindowStrides": [-1]}
    got = oracle.evaluate("SLICE1", bits.view(np.float32), "float32", **window)
    assert got.view(np.uint32).tolist() == bits[::-1].tolist()
    # fewer elements than the window reaches: the first ones from its end
    assert oracle.evaluate("SLICE1", bits.view(np.float32), "float32", **window,
                           OutputSizes=[2]).view(np.uint32).tolist() == [0x7F800000, 0x00000001]
    big = np.array([2**63 - 1, -2**63, 2**53 + 1, 7], dtype=np.int64)
    assert oracle.evaluate("SLICE1", big, "int64", InputWindowOffsets=[0], InputWindowSizes=[4],
                           InputWindowStrides=[-3]).tolist() == [7, 2**63 - 1]


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert {c.op for c in CASES} == {"SLICE", "SLICE1"} and 200 < len(CASES) < 500
    for name in ("python:oracle:evaluate", "cpu"):
        records = run(name, CASES)
        assert {r["status"] for r in records} == {statuses.PASS}, name
        assert max(r["max_ulp"] for r in records) == 0
    record = next(r for r in records if r["id"] == EXAMPLE_2)
    assert record["input_shapes"] == [[1, 1, 4, 4]] and record["output_shapes"] == [[1, 1, 2, 2]]
    chosen = next(r for r in records if "OutputSizes=[1,2,1,2]" in r["id"])
    assert chosen["output_shapes"] == [[1, 2, 1, 2]] and chosen["elements"] == 4


def test_every_slice_grad_case_passes_through_the_oracle_and_none_through_onnx_runtime():
    assert 100 < len(GRAD) < 250
    assert {r["status"] for r in run("python:oracle:evaluate", GRAD)} == {statuses.PASS}
    assert {r["status"] for r in run("cpu", GRAD)} == {statuses.NOT_REACHABLE}
    page = next(c for c in GRAD if c.generator.get("label") == "page")
    assert page.input_shapes == ((2, 2),) and page.outputs == ((4, 4),)


@pytest.mark.parametrize("op, params, said", [
    ("SLICE", "Offsets: {array: [0, 3]}\n      Sizes: {array: [2, 2]}\n      Strides: {array: [1, 1]}",
     "Offsets 3 + Strides 1 * (Sizes 2 - 1) = 4 reads beyond InputTensor.Sizes[1] 4"),
    ("SLICE", "Offsets: {array: [0, 0, 0]}\n      Sizes: {array: [1, 1, 1]}\n      Strides: {array: [1, 1, 1]}",
     "DimensionCount 3 (the length of Offsets, Sizes, Strides) must be InputTensor.DimensionCount 2"),
    ("SLICE", "Offsets: {array: [0, 0]}\n      Sizes: {array: [1, 1]}\n      Strides: {array: [1]}",
     "Offsets, Sizes, Strides share DimensionCount and must have one length"),
    ("SLICE1", "InputWindowOffsets: {array: [1, 0]}\n      InputWindowSizes: {array: [3, 4]}\n"
               "      InputWindowStrides: {array: [1, -1]}",
     "InputWindowOffsets 1 + InputWindowSizes 3 > InputTensor.Sizes[0] 3"),
    ("SLICE1", "InputWindowOffsets: {array: [0, 0]}\n      InputWindowSizes: {array: [3, 4]}\n"
               "      InputWindowStrides: {array: [1, 0]}", "InputWindowStrides[1] 0: strides may not be 0"),
    ("SLICE1", "InputWindowOffsets: {array: [0, 0]}\n      InputWindowSizes: {array: [3, 0]}\n"
               "      InputWindowStrides: {array: [1, 1]}", "the input window mustn't be empty"),
    ("SLICE1", "InputWindowOffsets: {array: [0, 0]}\n      InputWindowSizes: {array: [3, 4]}\n"
               "      InputWindowStrides: {array: [1, -2]}\n      OutputSizes: {array: [3, 3]}",
     "OutputSizes[1] 3: the page allows 1 <= OutputSizes[i] <= MaxCopiedElements[i] 2"),
    ("SLICE_GRAD", "InputWindowOffsets: {array: [0, 0]}\n      InputWindowSizes: {array: [5, 4]}\n"
                   "      InputWindowStrides: {array: [2, 2]}",
     "InputGradientTensor.Sizes[1] 4: SLICE1's output sizes"),
    ("SLICE_GRAD", "InputWindowOffsets: {array: [0, 1]}\n      InputWindowSizes: {array: [5, 8]}\n"
                   "      InputWindowStrides: {array: [2, 2]}\n      OutputSizes: {array: [5, 8]}",
     "InputWindowOffsets 1 + InputWindowSizes 8 > OutputGradientTensor.Sizes[1] 8"),
    ("SLICE_GRAD", "InputWindowOffsets: {array: [0, 0]}\n      InputWindowSizes: {array: [5, 8]}\n"
                   "      InputWindowStrides: {array: [2, 0]}", "this operator requires non-zero strides"),
])
def test_a_case_outside_the_input_or_the_page_is_refused_at_load_naming_file_and_line(tmp_path, op, params, said):
    path = tmp_path / "bad.yaml"
    path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [[3, 4]]\n"
                    f"    params:\n      {params}\n    inputs: [{{kind: uniform}}]\n")
    with pytest.raises(CaseFileError) as refused:
        load_file(path)
    # a line of the group: its shapes or its params
    line = str(refused.value)
    assert re.match(rf"{re.escape(str(path))}:[4-8]: ", line) and said in line, line


class _Slice1(C.Structure):
    """DirectML.h's DML_SLICE1_OPERATOR_DESC, written here from the header: no output sizes in it."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("DimensionCount", C.c_uint),
                ("InputWindowOffsets", C.POINTER(C.c_uint)), ("InputWindowSizes", C.POINTER(C.c_uint)),
                ("InputWindowStrides", C.POINTER(C.c_int))]


@pytest.mark.skipif(C.sizeof(C.c_void_p) != 8, reason="x64 layouts need a 64-bit Python")
def test_output_sizes_are_the_output_tensors_not_a_field_of_the_description():
    """Parameter.sizes_of: SLICE1's OutputSizes is no field; the struct is the header's, byte for byte,
    its strides signed, and the output tensor has the sizes the case chose."""
    from conformance.dmldirect import layout
    from conformance.dmldirect.describe import OperatorDescription
    spec = specs.get("SLICE1")
    assert [p.name for p in spec.fields] == ["InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"]
    assert layout.layout(spec)["fields"] == [
        ["InputTensor", "tensor"], ["OutputTensor", "tensor"], ["DimensionCount", "count"],
        ["InputWindowOffsets", "uint_array"], ["InputWindowSizes", "uint_array"], ["InputWindowStrides", "int_array"]]
    params = {"InputWindowOffsets": [1, 0], "InputWindowSizes": [2, 4], "InputWindowStrides": [-1, 3],
              "OutputSizes": [1, 2]}
    request = layout.request(spec, "float32", (3, 4), params, output_shape=spec.output_shapes([(3, 4)], params)[0])
    d = OperatorDescription.from_case(json.loads(json.dumps(request)))
    assert C.sizeof(d.struct) == C.sizeof(_Slice1) == 48
    raw = C.string_at(d.desc.Desc, 48)
    assert struct.unpack_from("<QQI", raw) == (d.inputs[0].address, d.output.address, 2)
    pointers = struct.unpack_from("<QQQ", raw, 24)
    assert [list((kind * 2).from_address(p)) for kind, p in zip((C.c_uint, C.c_uint, C.c_int), pointers)] == [
        [1, 0], [2, 4], [-1, 3]]
    assert list(d.output.buffer.Sizes[:2]) == [1, 2] and list(d.inputs[0].buffer.Sizes[:2]) == [3, 4]


@pytest.mark.skipif(C.sizeof(C.c_void_p) != 8, reason="x64 layouts need a 64-bit Python")
def test_an_output_named_otherwise_than_output_tensor_is_the_description_s_output():
    """DML_SLICE_GRAD_OPERATOR_DESC lays out as SLICE1's; its output, OutputGradientTensor, is the second
    tensor pointer, with the sizes the case chose, and the gradient the first, with the case's shape."""
    from conformance.dmldirect import layout
    from conformance.dmldirect.describe import OperatorDescription
    spec = specs.get("SLICE_GRAD")
    assert [name for name, _ in layout.layout(spec)["fields"]][:2] == ["InputGradientTensor", "OutputGradientTensor"]
    params = {"InputWindowOffsets": [1, 0], "InputWindowSizes": [2, 4], "InputWindowStrides": [-1, 3],
              "OutputSizes": [4, 5]}
    request = layout.request(spec, "float16", (2, 2), params, output_shape=spec.output_shapes([(2, 2)], params)[0])
    d = OperatorDescription.from_case(json.loads(json.dumps(request)))
    assert C.sizeof(d.struct) == C.sizeof(_Slice1) == 48
    assert struct.unpack_from("<QQI", C.string_at(d.desc.Desc, 48)) == (d.inputs[0].address, d.output.address, 2)
    assert list(d.output.buffer.Sizes[:2]) == [4, 5] and list(d.inputs[0].buffer.Sizes[:2]) == [2, 2]
    assert d.output.total_bytes == 2 * 20


def test_a_slice_one_element_off_at_its_start_is_caught_naming_output_and_source_index():
    from faults_slice import slice_one_element_off_at_start
    case = select(CASES, "SLICE/int32/rank2[5x7]/Offsets=[1,2],Sizes=[3,2],Strides=[1,4]/uniform[-100,200]")[0]
    x = case.make_input()
    comparison = compare_case(case, x, slice_one_element_off_at_start(case.op, x, case.dtype, **case.oracle_params()))
    assert not comparison.passed and comparison.mismatches == 6
    for item in comparison.worst:
        row, column = item["index"]
        assert item["source"] == [1 + row, 2 + 4 * column] and item["source_input"] == "Input"
        assert item["input"] == x[1 + row, 2 + 4 * column] == item["expected"] != item["actual"]
        assert item["actual"] == x[1 + row, (3 + 4 * column) % 7]
    records = run("python:faults_slice:slice_one_element_off_at_start", CASES)
    # caught wherever the last dimension has two elements that differ
    differ = [r for r in records if r["input_shapes"][0][-1] > 1 and r["generator"]["kind"] == "uniform"]
    assert len(differ) > 200 and all(r["status"] == statuses.FAIL for r in differ)
    assert all("copied from Input(" in r["message"] for r in differ)
    grad = run("python:faults_slice:slice_one_element_off_at_start", GRAD)
    caught = {r["id"] for r in grad if r["status"] == statuses.FAIL}
    # a gradient of one element along the last dimension rolls onto itself
    assert caught == {r["id"] for r in grad if r["input_shapes"][0][-1] > 1}


def test_a_negative_stride_read_forwards_is_caught_and_a_positive_one_is_not_flagged():
    records = run("python:faults_slice:negative_stride_read_forwards", CASES)
    backwards = {r["id"] for r in records if r["op"] == "SLICE1" and "-" in r["id"].split("InputWindowStrides=")[1]
                 .split("]")[0]}
    failed = {r["id"] for r in records if r["status"] == statuses.FAIL}
    # every window read backwards over more than one element (one element read forwards is its window's first)
    assert failed <= backwards and len(failed) > 80 and EXAMPLE_2 in failed
    assert "SLICE1/float32/rank4[1x1x1x1]/InputWindowOffsets=[0,0,0,0],InputWindowSizes=[1,1,1,1]," \
           "InputWindowStrides=[-1,-1,-1,-1]/uniform[-100,100]" not in failed
    assert all(r["status"] == statuses.PASS for r in records if r["id"] not in backwards)
    worst = next(r for r in records if r["id"] == EXAMPLE_2)["d3d"]["worst"]
    assert {tuple(w["source"]) for w in worst} == {(0, 0, 3, 1), (0, 0, 3, 3), (0, 0, 1, 1), (0, 0, 1, 3)}
    # SLICE_GRAD placing forwards: wrong where a gradient element lands, and where the page's 0 belongs
    grad = run("python:faults_slice:negative_stride_read_forwards", GRAD)
    backwards = {r["id"] for r in grad if "-" in r["id"].split("InputWindowStrides=")[1].split("]")[0]}
    assert {r["id"] for r in grad if r["status"] == statuses.FAIL} == backwards
    worst = next(r for r in grad if r["id"].startswith("SLICE_GRAD/float32/rank1[3]/"))["d3d"]["worst"]  # 8, 5, 2
    assert {w["source_input"] for w in worst} == {"InputGradient", None}  # an element copied, or a 0 of the page


def test_every_case_passes_exactly_through_dml_direct_and_the_probes_strides_are_refused():
    """The real DirectML.dll: the SLICE1 and SLICE_GRAD windows' signed strides as INT, SLICE_GRAD's output
    in the sizes the case chose; the probes
    (sweeps/probes/slice.yaml: strides of 0 and of 2^31 on, which SLICE's page allows) refused by
    CreateOperator with E_INVALIDARG (docs/findings/issue25-slice.md)."""
    lane("dml-direct")
    probes = load_file(ROOT / "sweeps" / "probes" / "slice.yaml")
    records = run("dml-direct", CASES + GRAD + probes)
    probed = {c.id for c in probes}
    cases = [r for r in records if r["id"] not in probed]
    assert {r["status"] for r in cases} == {statuses.PASS}, [r["message"] for r in cases if r["status"] != "pass"][:3]
    assert len(cases) == len(CASES) + len(GRAD) and max(r["max_ulp"] for r in cases) == 0
    assert {r["op"] for r in cases} == {"SLICE", "SLICE1", "SLICE_GRAD"}
    refused = [r for r in records if r["id"] in probed]
    assert len(refused) == 4 and all(r["status"] == statuses.UNSUPPORTED_REQUIRED and "E_INVALIDARG" in r["message"]
                                     for r in refused), [(r["id"], r["status"]) for r in refused]


def test_a_case_of_every_data_type_and_direction_passes_exactly_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine (CPU fallback disabled): the pages' examples, SLICE1's
    negative strides in every data type, SLICE's strided rank 4 in the types of each level, rank 8, float
    specials and a chosen output size. The two whole files through dml-wine (about 45 s on this machine):
    docs/findings/issue25-slice.md."""
    lane("dml-wine")
    chosen = [c for c in CASES if c.generator.get("label") == "page" or "InputWindowStrides=[-1,-2,-1,-2]" in c.id
              or "Strides=[1,1,3,3]" in c.id and c.dtype in ("float16", "int8", "int64", "float64", "uint16")
              or c.dtype == "float32" and (c.rank == 8 or c.generator["kind"] == "specials" or "OutputSizes" in c.id)]
    assert {c.dtype for c in chosen} == set(specs.get("SLICE").dtypes) and 20 < len(chosen) < 40
    records = run("dml-wine", chosen)
    assert {r["status"] for r in records} == {statuses.PASS}, [r["message"] for r in records
                                                              if r["status"] != "pass"][:3]
    assert max(r["max_ulp"] for r in records) == 0
