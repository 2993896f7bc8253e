"""REVERSE_SUBSEQUENCES, data movement with a second input of its own shape (SequenceLengthsTensor,
UINT32, 1 along Axis): the page's examples, every case through the oracle, ONNX Runtime's CPU provider
(ReverseSequence, where it reaches), dml-direct and dml-wine exactly; DirectML's reading of a length
beyond the dimension (docs/findings/issue25-padding.md); bad cases refused at load; a fault caught."""
import ctypes as C
import struct

import numpy as np
import pytest
from needs import missing

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.dmldirect import abi, layout
from conformance.dmldirect.describe import OperatorDescription
from conformance.run import runner
from conformance.run.results import ResultsWriter

CASES = [c for c in load_paths() if c.op == "REVERSE_SUBSEQUENCES"]
PAGE_INPUT = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_4", ResultsWriter(None)).records


def _beyond(case) -> bool:
    """A case with a length beyond its Axis dimension (the page: clamped to it)."""
    return "lengths-7-and-max" in case.id or "length-8" in case.id


def test_the_oracle_is_the_pages_examples():
    one = oracle.evaluate("REVERSE_SUBSEQUENCES", (PAGE_INPUT, np.array([2, 4, 3], np.uint32).reshape(1, 1, 3, 1)),
                          "float32", Axis=3)
    assert one[0, 0].tolist() == [[2, 1, 3, 4], [8, 7, 6, 5], [11, 10, 9, 12]]
    two = oracle.evaluate("REVERSE_SUBSEQUENCES", (PAGE_INPUT, np.array([2, 3, 1, 0], np.uint32).reshape(1, 1, 1, 4)),
                          "float32", Axis=2)
    assert two[0, 0].tolist() == [[5, 10, 3, 4], [1, 6, 7, 8], [9, 2, 11, 12]]
    # a length beyond the dimension is clamped to it; the bits of a NaN payload are kept
    x = np.array([1, 0x7FC00123, 3], dtype=np.uint32).view(np.float32)
    got = oracle.evaluate("REVERSE_SUBSEQUENCES", (x, np.array([2**32 - 1], np.uint32)), "float32", Axis=0)
    assert got.view(np.uint32).tolist() == [3, 0x7FC00123, 1]


def test_source_index_names_the_element_the_oracle_copies_in_every_case():
    spec = specs.get("REVERSE_SUBSEQUENCES")
    for case in CASES:
        x = case.make_input()
        expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
        which, index = spec.source_index(np.indices(expected.shape).reshape(expected.ndim, -1), x, case.params)
        assert (which == 0).all() and (x[0][index].view(np.uint8) == expected.reshape(-1).view(np.uint8)).all(), case.id


def test_every_case_passes_exactly_through_the_oracle_and_onnx_runtime_where_reverse_sequence_reaches():
    assert len(CASES) > 80
    assert {r["status"] for r in run("python:oracle:evaluate", CASES)} == {statuses.PASS}
    records = run("cpu", CASES)
    passed = [r for r in records if r["status"] == statuses.PASS]
    assert {r["status"] for r in records} == {statuses.PASS, statuses.NOT_REACHABLE}
    assert len(passed) >= 26 and max(r["max_ulp"] for r in passed) == 0
    assert all(r["input_shapes"][0][2:] in ([], [1]) and r["params"]["Axis"] <= 1 for r in passed)


@pytest.mark.parametrize("shapes, axis, said", [
    ("{Input: [3, 5], SequenceLengths: [3, 5]}", 1, "SequenceLengthsTensor [3, 5] must have InputTensor's sizes "
                                                    "with 1 along Axis 1: [3, 1]"),
    ("{Input: [3, 5], SequenceLengths: [3, 1]}", 2, "Axis 2 must be less than InputTensor.DimensionCount 2"),
])
def test_a_case_whose_lengths_do_not_fit_is_refused_at_load_naming_file_and_line(tmp_path, shapes, axis, said):
    path = tmp_path / "reverse.yaml"
    path.write_text("operator: REVERSE_SUBSEQUENCES\ngroups:\n  - dtypes: [float32]\n"
                    f"    shapes: [{shapes}]\n    params: {{Axis: {axis}}}\n"
                    "    inputs: [{each: {Input: {kind: uniform}, SequenceLengths: {kind: uniform, low: 0, high: 3}}}]\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert len(error.value.problems) == 1 and f"{path}:4:" in str(error.value) and said in str(error.value)


class _Reverse(C.Structure):
    """DirectML.h's DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, written here from the header."""
    _fields_ = [("InputTensor", C.c_void_p), ("SequenceLengthsTensor", C.c_void_p), ("OutputTensor", C.c_void_p),
                ("Axis", C.c_uint)]


def test_the_description_gives_the_lengths_their_own_sizes_and_uint32_as_directml_h_lays_it_out():
    case = next(c for c in CASES if c.id.startswith("REVERSE_SUBSEQUENCES/int8/rank4[Input=2x3x4x5"))
    request = layout.request(specs.get(case.op), case.dtype, case.shape, case.params, inputs=case.inputs,
                             output_shape=case.outputs[0])
    d = OperatorDescription.from_case(request)
    assert d.desc.Type == abi.DML_OPERATOR_REVERSE_SUBSEQUENCES and C.sizeof(d.struct) == C.sizeof(_Reverse) == 32
    raw = C.string_at(d.desc.Desc, 32)
    header = _Reverse(d.inputs[0].address, d.inputs[1].address, d.output.address, 2)
    assert raw[:28] == bytes(header)[:28] and struct.unpack_from("<I", raw, 24)[0] == 2
    lengths = d.inputs[1].buffer
    assert lengths.DataType == abi.DML_TENSOR_DATA_TYPE_UINT32 and list(lengths.Sizes[:4]) == [2, 3, 1, 5]
    assert d.inputs[0].buffer.DataType == abi.DML_TENSOR_DATA_TYPE_INT8 and list(d.output.buffer.Sizes[:4]) == [2, 3, 4, 5]


def test_lengths_ignored_is_caught_and_a_correct_device_is_not_flagged():
    records = run("python:faults_padding:whole_axis_reversed", CASES)
    failed = {r["id"] for r in records if r["status"] == statuses.FAIL}
    assert "REVERSE_SUBSEQUENCES/float32/rank4[Input=1x1x3x4,SequenceLengths=1x1x3x1]/Axis=3/page-example-1" in failed
    assert len(failed) > 60 and not any(_beyond(c) and c.id in failed for c in CASES)  # those reverse in full
    record = next(r for r in records if r["id"].endswith("/page-example-2"))
    worst = record["d3d"]["worst"][0]
    assert worst["source_input"] == "Input" and PAGE_INPUT[tuple(worst["source"])] == worst["expected"]


def test_dml_direct_passes_every_case_but_reads_a_length_beyond_the_dimension_unclamped():
    """DirectML 1.15.4 on lavapipe: every case passes but those with a length L beyond the Axis dimension n,
    where element o < L is read from min(L - 1 - o, n - 1), not min(L, n) - 1 - o as the page's clamp says."""
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    backend = backends.create("dml-direct")
    beyond = [c for c in CASES if _beyond(c)]
    try:
        records = runner.run(CASES, backend, "6_4", ResultsWriter(None)).records
        found = {c.id: (c, c.make_input()) for c in beyond}
        outputs = backend.run_many(list(found.values()))
    finally:
        backend.close()
    failing = {r["id"] for r in records if r["status"] != statuses.PASS}
    assert failing == {c.id for c in beyond} and len(beyond) == 6
    assert all(r["status"] == statuses.FAIL for r in records if r["id"] in failing)
    for (case, (data, lengths)), outcome in zip(found.values(), outputs):
        axis, n = case.params["Axis"], data.shape[case.params["Axis"]]
        place = np.arange(n).reshape([-1 if d == axis else 1 for d in range(data.ndim)])
        read = np.where(place < lengths.astype(np.int64), np.minimum(lengths.astype(np.int64) - 1 - place, n - 1), place)
        assert np.array_equal(outcome.output, np.take_along_axis(data, read, axis=axis)), case.id


def test_the_cases_onnx_runtime_reaches_pass_through_dml_wine():
    from conformance.backends import dml_wine
    lane, reason = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({reason})")
    records = run("dml-wine", [c for c in CASES if c.dtype in ("float32", "float16", "int8", "uint16")])
    reached = [r for r in records if r["status"] != statuses.NOT_REACHABLE]
    assert len(reached) >= 12 and {r["status"] for r in reached} == {statuses.PASS}
    assert all(set(r["placement"].values()) == {"DmlExecutionProvider"} for r in reached)


def test_a_graph_input_of_another_integer_type_is_fed_in_that_type():
    """onnx_models.feeds: ReverseSequence's INT64 sequence_lens get the UINT32 lengths' values; a bool input
    still gets x != 0, and an input of its own type is passed as it is."""
    from conformance.backends.onnx_models import feeds
    from conformance.specs.base import OnnxNode
    data, lengths = np.ones((2, 3), np.float16), np.array([3, 4294967295], np.uint32)
    given = feeds(OnnxNode("ReverseSequence", 10, input_types=("float16", "int64")), (data, lengths))
    assert given["x"] is data and given["x_1"].dtype == np.int64 and given["x_1"].tolist() == [3, 4294967295]
    truth = feeds(OnnxNode("Where", 16, input_types=("bool", "float32", "float32")),
                  (np.array([0, 2], np.uint8), np.zeros(2, np.float32), np.ones(2, np.float32)))
    assert truth["x"].tolist() == [False, True] and truth["x_1"].dtype == np.float32
