"""JOIN and SPLIT, the first operators of tensor arrays (InputCount and InputTensors; OutputCount and
OutputTensors): the oracle against the pages' examples, every case exactly through the oracle, ONNX
Runtime's CPU provider and the real DirectML.dll, the descriptions byte for byte as DirectML.h lays them
out, bad cases refused at load, and the injected faults caught and named by output and source."""
import ctypes as C
import json

import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.dmldirect import abi, layout
from conformance.dmldirect.describe import OperatorDescription
from conformance.run import runner
from conformance.run.results import ResultsWriter

CASES = [c for c in load_paths(["cases/join.yaml", "cases/split.yaml"])]
JOIN = [c for c in CASES if c.op == "JOIN"]
SPLIT = [c for c in CASES if c.op == "SPLIT"]
PAGE_INPUT = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def test_the_oracle_is_the_join_pages_examples():
    a = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
    b = np.arange(7, 15, dtype=np.float32).reshape(1, 1, 2, 4)
    assert oracle.evaluate("JOIN", (a, b), "float32", Axis=3).tolist() == \
        [[[[1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13, 14]]]]
    three = tuple(np.arange(k, k + 4, dtype=np.float32).reshape(1, 1, 2, 2) for k in (1, 5, 9))
    assert oracle.evaluate("JOIN", three, "float32", Axis=1).tolist() == \
        [[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]]
    assert oracle.evaluate("JOIN", three, "float32", Axis=2).tolist() == \
        [[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]]
    assert oracle.evaluate("JOIN", three, "float32", Axis=3).tolist() == [[[[1, 2, 5, 6, 9, 10], [3, 4, 7, 8, 11, 12]]]]


def test_the_oracle_is_the_split_pages_examples():
    first, second, third = oracle.evaluate("SPLIT", PAGE_INPUT, "float32", Axis=2, AxisSizes=[2, 1, 3])
    assert first.tolist() == [[[[1, 2], [3, 4]]]] and second.tolist() == [[[[5, 6]]]]
    assert third.tolist() == [[[[7, 8], [9, 10], [11, 12]]]]
    left, right = oracle.evaluate("SPLIT", PAGE_INPUT, "float32", Axis=3, AxisSizes=[1, 1])
    assert left.ravel().tolist() == [1, 3, 5, 7, 9, 11] and right.ravel().tolist() == [2, 4, 6, 8, 10, 12]
    assert left.shape == right.shape == (1, 1, 6, 1)


def test_the_oracles_copy_bits():
    bits = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001], dtype=np.uint32)
    joined = oracle.evaluate("JOIN", (bits[:1].view(np.float32), bits[1:].view(np.float32)), "float32", Axis=0)
    assert joined.view(np.uint32).tolist() == bits.tolist()
    parts = oracle.evaluate("SPLIT", bits.view(np.float32), "float32", Axis=0, AxisSizes=[3, 1])
    assert [p.view(np.uint32).tolist() for p in parts] == [bits[:3].tolist(), bits[3:].tolist()]
    big = np.array([2**63 - 1, -2**63, 2**53 + 1], dtype=np.int64)
    assert oracle.evaluate("JOIN", (big, big[:1]), "int64", Axis=0).tolist() == big.tolist() + big[:1].tolist()


def test_a_tensor_array_is_as_many_tensors_as_the_case_gives():
    """The framework: a per-tensor array (AxisSizes) gives the count; each tensor is name[k]."""
    join, split = specs.get("JOIN"), specs.get("SPLIT")
    assert [i.name for i in join.input_tensors({"AxisSizes": [2, 1, 3]})] == [f"InputTensors[{k}]" for k in range(3)]
    assert [o.short for o in split.outputs_for({"AxisSizes": [2, 4]})] == ["Outputs[0]", "Outputs[1]"]
    assert split.tuple_outputs({"AxisSizes": [4]}) and join.several_inputs
    assert join.input("Inputs[2]") is join.inputs[0] and join.tensor_type("InputTensors[1]", "int8") == "int8"
    assert [p.name for p in join.fields] == ["Axis"]  # AxisSizes is no field: InputCount is the array's count
    assert layout.layout(join)["fields"] == [["InputCount", "count"], ["InputTensors", "tensor_array"],
                                             ["OutputTensor", "tensor"], ["Axis", "uint"]]
    assert layout.layout(split)["fields"] == [["InputTensor", "tensor"], ["OutputCount", "count"],
                                              ["OutputTensors", "tensor_array"], ["Axis", "uint"]]
    case = select(JOIN, "JOIN/float32/rank4[2x5x3x4]/Axis=1,AxisSizes=[1,1,3]/uniform[-100,100]")[0]
    assert [(i.name, i.shape) for i in case.inputs] == [("Inputs[0]", (2, 1, 3, 4)), ("Inputs[1]", (2, 1, 3, 4)),
                                                      ("Inputs[2]", (2, 3, 3, 4))]
    x = case.make_input()
    assert len(x) == 3 and not np.array_equal(x[0], x[1])  # each tensor its own seed
    assert case.outputs == ((2, 5, 3, 4),)
    case = select(SPLIT, "SPLIT/int8/rank4[2x5x3x4]/Axis=1,AxisSizes=[1,1,3]/uniform[-100,100]")[0]
    assert case.outputs == ((2, 1, 3, 4), (2, 1, 3, 4), (2, 3, 3, 4))
    assert [t["name"] for t in case.output_tensors] == ["OutputTensors[0]", "OutputTensors[1]", "OutputTensors[2]"]


class _Join(C.Structure):
    """DirectML.h's DML_JOIN_OPERATOR_DESC, written here from the header, not from abi.py."""
    _fields_ = [("InputCount", C.c_uint), ("InputTensors", C.c_void_p), ("OutputTensor", C.c_void_p),
                ("Axis", C.c_uint)]


class _Split(C.Structure):
    """DirectML.h's DML_SPLIT_OPERATOR_DESC."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputCount", C.c_uint), ("OutputTensors", C.c_void_p),
                ("Axis", C.c_uint)]


def _described(case):
    request = layout.request(case.op, case.dtype, case.shape, case.params, False, case.inputs, (),
                             None if case.outputs[0] == tuple(case.shape) else case.outputs[0], case.outputs)
    return OperatorDescription.from_case(json.loads(json.dumps(request)))


def _array_sizes(pointer, count):
    """The sizes of each DML_BUFFER_TENSOR_DESC a DML_TENSOR_DESC array points at."""
    descs = (abi.DML_TENSOR_DESC * count).from_address(pointer)
    buffers = [abi.DML_BUFFER_TENSOR_DESC.from_address(d.Desc) for d in descs]
    assert all(d.Type == abi.DML_TENSOR_TYPE_BUFFER for d in descs)
    return [list(b.Sizes[:b.DimensionCount]) for b in buffers]


def test_the_descriptions_are_byte_for_byte_the_headers_with_every_tensor_of_the_array():
    case = select(JOIN, "JOIN/int16/rank4[2x5x3x4]/Axis=1,AxisSizes=[1,1,3]/uniform[-100,100]")[0]
    d = _described(case)
    assert d.desc.Type == abi.DML_OPERATOR_JOIN and C.sizeof(d.struct) == C.sizeof(_Join) == 32
    raw = C.string_at(d.desc.Desc, 32)
    header = _Join.from_buffer_copy(raw)
    assert header.InputCount == 3 and header.Axis == 1 and header.OutputTensor == d.output.address
    assert raw[4:8] == bytes(4) and raw[28:32] == bytes(4)  # the padding before the pointer and at the end
    assert _array_sizes(header.InputTensors, 3) == [[2, 1, 3, 4], [2, 1, 3, 4], [2, 3, 3, 4]]
    assert [t.address for t in d.inputs] != [header.InputTensors]  # the array holds copies of each DML_TENSOR_DESC
    assert list(d.output.buffer.Sizes[:4]) == [2, 5, 3, 4] and d.fields()["InputCount"] == 3
    case = select(SPLIT, "SPLIT/uint8/rank4[2x5x3x4]/Axis=1,AxisSizes=[2,3]/uniform[-100,100]")[0]
    d = _described(case)
    assert d.desc.Type == abi.DML_OPERATOR_SPLIT and C.sizeof(d.struct) == C.sizeof(_Split) == 32
    header = _Split.from_buffer_copy(C.string_at(d.desc.Desc, 32))
    assert header.InputTensor == d.inputs[0].address and header.OutputCount == 2 and header.Axis == 1
    assert _array_sizes(header.OutputTensors, 2) == [[2, 2, 3, 4], [2, 3, 3, 4]]
    assert len(d.outputs) == 2 and [t.dtype for t in d.outputs] == ["uint8", "uint8"]


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert 100 <= len(JOIN) <= 250 and 100 <= len(SPLIT) <= 250
    for name in ("python:oracle:evaluate", "cpu"):
        records = run(name, CASES)
        assert {r["status"] for r in records} == {statuses.PASS}, (name, [r["message"] for r in records
                                                                          if r["status"] != statuses.PASS][:3])
        assert max(r["max_ulp"] for r in records) == 0
    record = next(r for r in records if r["id"] == "SPLIT/float32/rank4[1x1x6x2]/Axis=2,AxisSizes=[2,1,3]/page-input")
    assert record["input_shapes"] == [[1, 1, 6, 2]]
    assert record["output_shapes"] == [[1, 1, 2, 2], [1, 1, 1, 2], [1, 1, 3, 2]] and record["elements"] == 12
    record = next(r for r in records if r["id"] == "JOIN/float32/rank4[1x1x2x7]/Axis=3,AxisSizes=[3,4]/page-example-1")
    assert record["input_shapes"] == [[1, 1, 2, 3], [1, 1, 2, 4]] and record["output_shapes"] == [[1, 1, 2, 7]]


@pytest.mark.parametrize("op,params,said", [
    ("JOIN", "{Axis: 1, AxisSizes: {array: [2, 2]}}", "AxisSizes [2, 2] sum to 4, not the joined size 5 along Axis 1"),
    ("JOIN", "{Axis: 4, AxisSizes: {array: [5]}}", "Axis 4 must be in [0, 3] for 4 dimensions"),
    ("JOIN", "{Axis: 1, AxisSizes: {array: [5, 0]}}", "every size along Axis must be larger than 0"),
    ("JOIN", "{Axis: 1}", "AxisSizes gives one value per tensor of its array, and is required"),
    ("JOIN", "{Axis: 1, InputCount: 2, AxisSizes: {array: [2, 3]}}", "InputCount is the length of AxisSizes"),
    ("SPLIT", "{Axis: 1, AxisSizes: {array: [1, 1]}}", "AxisSizes [1, 1] sum to 2, not the joined size 5 along Axis 1"),
    ("SPLIT", "{Axis: 3, AxisSizes: {array: [2, 2]}}", "AxisSizes [2, 2] sum to 4, not the joined size 3 along Axis 3"),
    ("SPLIT", "{AxisSizes: {array: [5]}}", "Axis is required"),
    ("SPLIT", "{Axis: 1, OutputCount: 1, AxisSizes: {array: [5]}}", "OutputCount is the length of AxisSizes"),
])
def test_a_bad_case_is_refused_at_load_naming_file_and_line(tmp_path, op, params, said):
    path = tmp_path / "bad.yaml"
    path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [[2, 5, 3, 3]]\n"
                    f"    params: {params}\n    inputs: [{{kind: uniform}}]\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert f"{path}:" in str(error.value) and said in str(error.value), str(error.value)
    assert len(str(error.value).splitlines()) == 1


def _failed(records):
    return {r["id"] for r in records if r["status"] == statuses.FAIL}


def test_inputs_joined_in_the_wrong_order_are_caught_naming_the_source_tensor():
    records = run("python:faults_join_split:joined_in_the_wrong_order", JOIN)
    # every join of inputs that differ; one input, or inputs of the same values (specials), have no order
    differ = {c.id for c in JOIN for x in [c.make_input()] if len({(a.shape, a.tobytes()) for a in x}) > 1}
    assert _failed(records) == differ and len(differ) > 100
    record = next(r for r in records if r["id"] == "JOIN/float32/rank4[1x1x2x7]/Axis=3,AxisSizes=[3,4]/page-example-1")
    page = np.concatenate([np.arange(1, 7).reshape(2, 3), np.arange(7, 15).reshape(2, 4)], axis=1)
    assert record["d3d"]["worst"]
    for worst in record["d3d"]["worst"]:  # each named by the input tensor and the index in it it comes from
        n, h, row, column = worst["index"]
        k = int(column >= 3)
        assert worst["source_input"] == f"Inputs[{k}]" and worst["source"] == [n, h, row, column - 3 * k]
        assert worst["expected"] == worst["input"] == page[row, column] != worst["actual"]
    assert "copied from Inputs[" in record["message"], record["message"]


def test_split_sizes_of_two_outputs_swapped_are_caught_and_equal_sizes_are_not_flagged():
    records = run("python:faults_join_split:split_sizes_of_two_outputs_swapped", SPLIT)
    unequal = {c.id for c in SPLIT if len(c.params["AxisSizes"]) > 1 and len(set(c.params["AxisSizes"][:2])) == 2}
    assert _failed(records) == unequal and len(unequal) > 50
    record = next(r for r in records if r["id"] == "SPLIT/float32/rank4[1x1x6x2]/Axis=2,AxisSizes=[2,1,3]/page-input")
    assert "Outputs[0]" in record["message"] and "shape" in record["message"]


def test_the_wrong_axis_is_caught_wherever_a_dimension_before_axis_is_not_1():
    moved = {c.id for c in CASES if np.prod(c.shape[:c.params["Axis"]]) > 1 and len(c.params["AxisSizes"]) > 1}
    records = run("python:faults_join_split:on_the_wrong_axis", CASES)
    assert _failed(records) == moved and len(moved) > 150
    record = next(r for r in records if r["id"] == "SPLIT/float32/rank4[1x1x6x2]/Axis=3,AxisSizes=[1,1]/page-input")
    worst = record["d3d"]["worst"][0]
    assert worst["output"] in ("Outputs[0]", "Outputs[1]") and worst["source_input"] == "Input"
    k = int(worst["output"][-2])
    assert worst["source"] == [worst["index"][0], worst["index"][1], worst["index"][2], worst["index"][3] + k]
    assert worst["expected"] == PAGE_INPUT[tuple(worst["source"])]


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (the Wine lane on lavapipe here): InputTensors and OutputTensors as a count
    and a pointer to that many DML_TENSOR_DESCs, every one bound; float64 and the 64-bit integers too."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", CASES)
    assert {r["status"] for r in records} == {statuses.PASS}, [r["message"] for r in records if r["status"] != "pass"][:3]
    assert max(r["max_ulp"] for r in records) == 0 and len(records) == len(CASES)


def test_the_smoke_cases_pass_through_dml_wine():
    """ONNX Runtime's DirectML provider (Concat, Split) on the real DirectML.dll under Wine."""
    from needs import missing
    from conformance.backends import dml_wine
    lane, why = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned: {why}")
    smoke = [c for c in CASES if c.smoke]
    assert len(smoke) == 8
    records = run("dml-wine", smoke)
    assert {r["status"] for r in records} == {statuses.PASS}, [r["message"] for r in records if r["status"] != "pass"][:3]
