"""PADDING and PADDING1, data movement with a constant of the page's own: the pages' four examples,
every case through the oracle, ONNX Runtime's CPU provider (what ONNX's Pad reaches), dml-direct and
dml-wine (the real DirectML.dll under Wine) exactly; the descriptions byte for byte as DirectML.h
lays them out; bad cases refused at load; the injected faults caught (tests/faults_padding.py)."""
import ctypes as C
import struct

import numpy as np
import pytest
from needs import missing

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.dmldirect import abi, layout
from conformance.dmldirect.describe import OperatorDescription
from conformance.run import runner
from conformance.run.results import ResultsWriter

PADDING = [c for c in load_paths() if c.op in ("PADDING", "PADDING1")]
SYMMETRIC = "PaddingMode=DML_PADDING_MODE_SYMMETRIC"


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_4", ResultsWriter(None)).records


# The pages' examples: StartPadding {0, 0, 1, 2}, EndPadding {0, 0, 3, 4} on a 1x1x4x4 input
PAGE_INPUT = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]], dtype=np.float32).reshape(1, 1, 4, 4)
PAGE_OUTPUTS = {
    "DML_PADDING_MODE_CONSTANT": [[9] * 10, [9, 9, 1, 2, 3, 4, 9, 9, 9, 9], [9, 9, 5, 6, 7, 8, 9, 9, 9, 9],
                                  [9, 9, 1, 2, 3, 4, 9, 9, 9, 9], [9, 9, 5, 6, 7, 8, 9, 9, 9, 9]] + [[9] * 10] * 3,
    "DML_PADDING_MODE_EDGE": [[1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [1, 1, 1, 2, 3, 4, 4, 4, 4, 4],
                              [5, 5, 5, 6, 7, 8, 8, 8, 8, 8], [1, 1, 1, 2, 3, 4, 4, 4, 4, 4]]
                             + [[5, 5, 5, 6, 7, 8, 8, 8, 8, 8]] * 4,
    "DML_PADDING_MODE_REFLECTION": [[7, 6, 5, 6, 7, 8, 7, 6, 5, 6], [3, 2, 1, 2, 3, 4, 3, 2, 1, 2]] * 4,
    "DML_PADDING_MODE_SYMMETRIC": [[2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [2, 1, 1, 2, 3, 4, 4, 3, 2, 1],
                                   [6, 5, 5, 6, 7, 8, 8, 7, 6, 5], [2, 1, 1, 2, 3, 4, 4, 3, 2, 1],
                                   [6, 5, 5, 6, 7, 8, 8, 7, 6, 5], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5],
                                   [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5]],
}


@pytest.mark.parametrize("op", ["PADDING", "PADDING1"])
@pytest.mark.parametrize("mode", sorted(PAGE_OUTPUTS))
def test_the_oracle_is_the_pages_examples(op, mode):
    got = oracle.evaluate(op, PAGE_INPUT, "float32", PaddingMode=mode, PaddingValue=9.0,
                          StartPadding=[0, 0, 1, 2], EndPadding=[0, 0, 3, 4])
    assert got.shape == (1, 1, 8, 10) and got[0, 0].tolist() == PAGE_OUTPUTS[mode]


def test_the_oracle_copies_bits_and_pads_with_each_operator_s_value():
    bits = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001], dtype=np.uint32)
    got = oracle.evaluate("PADDING", bits.view(np.float32), "float32", PaddingMode="DML_PADDING_MODE_WRAP",
                          StartPadding=[4], EndPadding=[4])
    assert got.view(np.uint32).tolist() == bits.tolist() * 3
    # PADDING's FLOAT: truncated toward zero, wrapped into the type; a float32 before FLOAT64
    small = np.array([1, 2], dtype=np.uint8)
    for value, dtype, pad in ((-10.6, "uint8", 246), (10.6, "int32", 10), (1e6, "int16", 16960),
                              (0.1, "float64", float(np.float32(0.1)))):
        got = oracle.evaluate("PADDING", small.astype(dtype), dtype, PaddingValue=value, StartPadding=[1],
                              EndPadding=[0])
        assert got.dtype == np.dtype(dtype) and got.tolist() == [pad, 1, 2], (value, dtype)
    # PADDING1's DML_SCALAR_UNION: the tensor's own type, exact
    for value, dtype in ((2**53 + 1, "int64"), (2**64 - 1, "uint64"), (0.1, "float64")):
        got = oracle.evaluate("PADDING1", small.astype(dtype), dtype, PaddingValue=value, StartPadding=[0],
                              EndPadding=[1])
        assert got.tolist() == [1, 2, value], (value, dtype)


def test_source_index_names_the_element_the_oracle_copies_in_every_case():
    """The spec's source_index (the page's folding, written apart) against the oracle (numpy's pad):
    each output element is the input element it names, or the padding value where it names none."""
    for case in PADDING:
        spec, x = specs.get(case.op), case.make_input()
        expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
        which, index = spec.source_index(np.indices(expected.shape).reshape(expected.ndim, -1), (x,), case.params)
        copied = x[index]
        flat = expected.reshape(-1)
        inside = which >= 0
        assert inside.any() and (which >= -1).all() and (which <= 0).all(), case.id
        assert (flat[inside].view(np.uint8).reshape(inside.sum(), -1)
                == copied[inside].view(np.uint8).reshape(inside.sum(), -1)).all(), case.id
        if "CONSTANT" in case.params["PaddingMode"]:
            assert len(set(flat[~inside].tobytes()[i:i + flat.itemsize]
                           for i in range(0, flat[~inside].nbytes, flat.itemsize))) <= 1, case.id
        else:
            assert inside.all(), case.id


def test_every_case_passes_exactly_through_the_oracle_and_onnx_runtime_where_pad_reaches_it():
    assert len([c for c in PADDING if c.op == "PADDING"]) > 200 and len(PADDING) > 400
    assert {r["status"] for r in run("python:oracle:evaluate", PADDING)} == {statuses.PASS}
    records = run("cpu", PADDING)
    by_status = {}
    for r in records:
        by_status.setdefault(r["status"], []).append(r)
    assert set(by_status) == {statuses.PASS, statuses.NOT_REACHABLE, statuses.UNSUPPORTED_REQUIRED}
    assert len(by_status[statuses.PASS]) > 250 and max(r["max_ulp"] for r in by_status[statuses.PASS]) == 0
    # SYMMETRIC has no ONNX mode; ORT's reflect stops at a dimension's size less one; no 16-bit Pad on the CPU
    assert not any(SYMMETRIC in r["id"] for r in by_status[statuses.PASS])
    assert all(SYMMETRIC in r["id"] or "REFLECTION" in r["id"] for r in by_status[statuses.NOT_REACHABLE])
    assert {r["dtype"] for r in by_status[statuses.UNSUPPORTED_REQUIRED]} == {"int16", "uint16"}
    record = next(r for r in records if r["id"] == (
        "PADDING/float32/rank4[1x1x4x4]/PaddingMode=DML_PADDING_MODE_CONSTANT,PaddingValue=9,"
        "StartPadding=[0,0,1,2],EndPadding=[0,0,3,4]/values"))
    assert record["status"] == statuses.PASS and record["output_shapes"] == [[1, 1, 8, 10]]


@pytest.mark.parametrize("op, params, said", [
    ("PADDING", "StartPadding: {array: [1, 2]}\n      EndPadding: {array: [0, 1]}",
     "DimensionCount 2 (the length of StartPadding and EndPadding) must be InputTensor.DimensionCount 3"),
    ("PADDING", "StartPadding: {array: [1, 2, 0]}", "StartPadding and EndPadding are required"),
    ("PADDING1", "StartPadding: {array: [1, 2, 0]}\n      EndPadding: {array: [0, 1]}", "EndPadding"),
    ("PADDING", "PaddingMode: DML_PADDING_MODE_MIRROR\n      StartPadding: {array: [1, 2, 0]}\n"
                "      EndPadding: {array: [0, 1, 0]}", "DML_PADDING_MODE_WRAP"),
])
def test_a_case_whose_padding_does_not_fit_is_refused_at_load_naming_file_and_line(tmp_path, op, params, said):
    path = tmp_path / "padding.yaml"
    path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [[2, 3, 4]]\n"
                    f"    params:\n      {params}\n    inputs: [{{kind: uniform}}]\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert len(error.value.problems) == 1
    assert f"{path}:" in str(error.value) and said in str(error.value), str(error.value)


class _Padding(C.Structure):
    """DirectML.h's DML_PADDING_OPERATOR_DESC, written here from the header, not from abi.py."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("PaddingMode", C.c_int),
                ("PaddingValue", C.c_float), ("DimensionCount", C.c_uint), ("StartPadding", C.POINTER(C.c_uint)),
                ("EndPadding", C.POINTER(C.c_uint))]


class _ScalarUnion(C.Union):
    _fields_ = [("Bytes", C.c_ubyte * 8), ("Int64", C.c_int64), ("Float64", C.c_double)]


class _Padding1(C.Structure):
    """DirectML.h's DML_PADDING1_OPERATOR_DESC: the DML_SCALAR_UNION after its DML_TENSOR_DATA_TYPE."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("PaddingMode", C.c_int),
                ("PaddingValueDataType", C.c_int), ("PaddingValue", _ScalarUnion), ("DimensionCount", C.c_uint),
                ("StartPadding", C.POINTER(C.c_uint)), ("EndPadding", C.POINTER(C.c_uint))]


def _described(op, dtype, shape, params):
    spec = specs.get(op)
    full = {**spec.defaults(), **params}
    request = layout.request(spec, dtype, shape, params, output_shape=spec.output_shapes([shape], full)[0])
    return OperatorDescription.from_case(request)


def test_the_descriptions_are_laid_out_byte_for_byte_as_directml_h():
    d = _described("PADDING", "int8", (2, 3), {"PaddingMode": "DML_PADDING_MODE_REFLECTION", "PaddingValue": -2.5,
                                                "StartPadding": [1, 0], "EndPadding": [2, 3]})
    assert d.desc.Type == abi.DML_OPERATOR_PADDING and C.sizeof(d.struct) == C.sizeof(_Padding) == 48
    raw = C.string_at(d.desc.Desc, 48)
    header = _Padding(d.inputs[0].address, d.output.address, 2, -2.5, 2)
    assert raw[:28] == bytes(header)[:28]  # tensors, mode 2 (REFLECTION), the FLOAT, DimensionCount
    start, end = struct.unpack_from("<QQ", raw, 32)
    assert list((C.c_uint * 2).from_address(start)) == [1, 0] and list((C.c_uint * 2).from_address(end)) == [2, 3]
    assert list(d.output.buffer.Sizes[:2]) == [5, 6]

    d = _described("PADDING1", "int64", (4,), {"PaddingMode": "DML_PADDING_MODE_WRAP", "PaddingValue": 2**53 + 1,
                                               "StartPadding": [2], "EndPadding": [5]})
    assert d.desc.Type == abi.DML_OPERATOR_PADDING1 and C.sizeof(d.struct) == C.sizeof(_Padding1) == 56
    raw = C.string_at(d.desc.Desc, 56)
    header = _Padding1(d.inputs[0].address, d.output.address, 4, abi.DML_TENSOR_DATA_TYPE_INT64,
                       _ScalarUnion(Int64=2**53 + 1), 1)
    assert raw[:36] == bytes(header)[:36]  # the union at 24, 8-aligned, an int64 no double holds
    start, end = struct.unpack_from("<QQ", raw, 40)
    assert C.c_uint.from_address(start).value == 2 and C.c_uint.from_address(end).value == 5
    assert list(d.output.buffer.Sizes[:1]) == [11]
    unset = _described("PADDING1", "float16", (4,), {"StartPadding": [1], "EndPadding": [0]})
    assert C.string_at(unset.desc.Desc, 56)[20:32] == struct.pack("<i", abi.DML_TENSOR_DATA_TYPE_FLOAT16) + bytes(8)


def _failed(records):
    return {r["id"] for r in records if r["status"] == statuses.FAIL}


def test_reflection_and_symmetric_swapped_is_caught_and_the_other_modes_are_not_flagged():
    records = run("python:faults_padding:mirror_modes_swapped", PADDING)
    failed = _failed(records)
    mirrored = {c.id for c in PADDING if c.params["PaddingMode"] in ("DML_PADDING_MODE_REFLECTION",
                                                                      "DML_PADDING_MODE_SYMMETRIC")
                and any(c.params["StartPadding"] + c.params["EndPadding"])}
    assert failed == mirrored and len(failed) > 60
    record = next(r for r in records if r["id"] == (
        "PADDING/float32/rank4[1x1x4x4]/PaddingMode=DML_PADDING_MODE_REFLECTION,PaddingValue=9,"
        "StartPadding=[0,0,1,2],EndPadding=[0,0,3,4]/values"))
    worst = record["d3d"]["worst"][0]
    assert worst["source_input"] == "Input" and worst["input"] == worst["expected"] != worst["actual"]
    assert PAGE_INPUT[tuple(worst["source"])] == worst["expected"]


def test_start_and_end_padding_swapped_is_caught_naming_the_page_s_constant():
    records = run("python:faults_padding:start_and_end_swapped", PADDING)
    failed = _failed(records)
    assert "PADDING1/int64/rank2[3x4]/PaddingMode=DML_PADDING_MODE_REFLECTION,PaddingValue=7,StartPadding=[2,1]," \
           "EndPadding=[1,3]/uniform[-100,200]" in failed
    assert not any(c.id in failed for c in PADDING if c.params["StartPadding"] == c.params["EndPadding"])
    swapped = [c for c in PADDING if c.params["StartPadding"] != c.params["EndPadding"]]
    assert len(failed) >= 0.9 * len(swapped)
    record = next(r for r in records if r["id"] == (
        "PADDING/float32/rank4[1x1x4x4]/PaddingMode=DML_PADDING_MODE_CONSTANT,PaddingValue=9,"
        "StartPadding=[0,0,1,2],EndPadding=[0,0,3,4]/values"))
    constants = [w for w in record["d3d"]["worst"] if w["source"] is None]
    assert constants and all(w["expected"] == 9 != w["actual"] for w in constants)
    assert "the page's constant 9" in record["message"]


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe here): every mode (SYMMETRIC and WRAP, which ONNX
    Runtime's route lacks or limits), padding wider than the input, PADDING's FLOAT wrapped into small
    integer types, PADDING1's typed values exact."""
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", PADDING)
    bad = [(r["id"], r["message"][:200]) for r in records if r["status"] != statuses.PASS]
    assert not bad, bad[:3]
    assert max(r["max_ulp"] for r in records) == 0 and len(records) == len(PADDING)
    assert any(SYMMETRIC in r["id"] and r["elements"] > 100 for r in records)


def test_the_modes_onnx_runtime_reaches_pass_through_dml_wine():
    """ONNX Runtime's DirectML provider (its Pad on DirectML.dll under Wine): the smoke cases, the
    16-bit integers the CPU provider lacks, WRAP (Pad-19), all of them on DirectML."""
    from conformance.backends import dml_wine
    lane, reason = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({reason})")
    chosen = [c for c in PADDING if c.smoke] + select(PADDING, "rank4[2x3x4x5] and int16")
    records = run("dml-wine", chosen)
    reached = [r for r in records if r["status"] != statuses.NOT_REACHABLE]
    assert len(reached) >= 18 and {r["status"] for r in reached} == {statuses.PASS}
    assert sum("WRAP" in r["id"] for r in reached) >= 3
    assert all(set(r["placement"].values()) == {"DmlExecutionProvider"} for r in reached)
    assert {r["dtype"] for r in reached} >= {"int16", "uint16", "float32", "float16"}
