"""GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER and SCATTER_ND: inputs of their own shapes (a case file names
each input's shape, ids name them all), index tensors of the type a case chooses with values drawn in
range (negative ones where the pages allow), every route (the oracle, ONNX Runtime's CPU provider,
dml-direct and dml-wine on the real DirectML.dll) judged exactly (SCATTER_ND's colliding writes: any of
them, as their pages say), and a gather's faults caught."""
import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.backends.onnx_models import directml_outcome, onnx_operands
from conformance.backends.base import OK, Outcome
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.run import runner
from conformance.run.results import ResultsWriter

OPERATORS = ("GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1", "SCATTER", "SCATTER_ND")
TUPLES = ("GATHER_ND", "GATHER_ND1", "SCATTER_ND")  # index tuples: no Axis
CASES = [c for c in load_paths([f"cases/{op.lower()}.yaml" for op in OPERATORS])]


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def evaluate(op, data, indices, index_type="uint32", **fields):
    return oracle.evaluate(op, (np.array(data, dtype=np.float32), np.array(indices, dtype=index_type)),
                           "float32", **fields).tolist()


def test_the_oracles_are_the_pages_examples():
    gather = dict(Axis=0, IndexDimensions=1)
    assert evaluate("GATHER", [11, 12, 13, 14], [3, 1, 3, 0, 2], **gather) == [14, 12, 14, 11, 13]
    assert evaluate("GATHER", [[1, 2], [3, 4], [5, 6]], [[0, 1, 1, 2]], **gather) == [[1, 2], [3, 4], [3, 4], [5, 6]]
    assert evaluate("GATHER", [[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[0, 2]]], Axis=2,
                    IndexDimensions=2) == [[[1, 3]], [[4, 6]], [[7, 9]]]
    assert evaluate("GATHER", [[[1, 2], [3, 4], [5, 6]]], [[[0, 1], [1, 2]]], Axis=1,
                    IndexDimensions=2) == [[[1, 2], [3, 4]], [[3, 4], [5, 6]]]
    assert evaluate("GATHER", [11, 12, 13, 14], [-1, 1, -4, 0], "int32", **gather) == [14, 12, 11, 11]
    assert evaluate("GATHER_ELEMENTS", [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 0], [2, 0, 0]],
                    Axis=0) == [[4, 8, 3], [7, 2, 3]]
    nd = dict(InputDimensionCount=2, IndicesDimensionCount=2)
    assert evaluate("GATHER_ND", [[0, 1], [2, 3]], [[1], [0]], **nd) == [[2, 3], [0, 1]]
    assert evaluate("GATHER_ND", np.arange(8).reshape(1, 2, 2, 2), [[[[0, 1], [1, 0]]]], InputDimensionCount=3,
                    IndicesDimensionCount=2) == [[[[2, 3], [4, 5]]]]
    assert evaluate("GATHER_ND1", [[0, 1], [2, 3]], [[1], [0]], BatchDimensionCount=0, **nd) == [[2, 3], [0, 1]]
    tuples = [[[[0, 0], [1, 1]], [[1, 1], [0, 0]], [[0, 1], [1, 0]]]]
    assert evaluate("GATHER_ND1", np.arange(12).reshape(1, 3, 2, 2), tuples, InputDimensionCount=3,
                    IndicesDimensionCount=3, BatchDimensionCount=1) == [[[[0, 3], [7, 4], [9, 10]]]]
    sizes = specs.get("GATHER_ND").output_shapes([(3, 4, 5, 6, 7), (1, 1, 1, 2, 3)],
                                                 dict(InputDimensionCount=5, IndicesDimensionCount=3))
    assert sizes == ((1, 1, 2, 6, 7),)  # the page's sizes example


def test_each_input_has_its_own_shape_named_in_the_id_and_selected_exactly():
    case_id = ("GATHER/int8/rank4[Input=2x3x4x5,Indices=1x1x1x6]/Axis=2,IndexDimensions=1,IndicesType=int32/"
               "Input=uniform[-100,200],Indices=indices")
    chosen = select(CASES, case_id)
    assert [c.id for c in chosen] == [case_id] and " " not in case_id
    case = chosen[0]
    assert case.input_shapes == ((2, 3, 4, 5), (1, 1, 1, 6)) and case.outputs == ((2, 3, 6, 5),)
    data, indices = case.make_input()
    assert data.shape == (2, 3, 4, 5) and data.dtype == np.int8
    assert indices.shape == (1, 1, 1, 6) and indices.dtype == np.int32
    assert 0 <= indices.min() and indices.max() < 4 and len(np.unique(indices)) > 1
    record = case.describe()
    assert record["input_shapes"] == [[2, 3, 4, 5], [1, 1, 1, 6]] and record["output_shapes"] == [[2, 3, 6, 5]]
    # ONNX's Gather takes the indices in their last IndexDimensions dimensions, its output reshaped back
    assert [v.shape for v in onnx_operands(case, (data, indices))] == [(2, 3, 4, 5), (6,)]
    assert directml_outcome(case, Outcome(OK, output=np.zeros((2, 3, 6, 5)))).output.shape == (2, 3, 6, 5)


def test_negative_indices_count_from_the_end_and_only_signed_types_take_them():
    negative = [c for c in CASES if "negative]" in c.id]
    assert {c.op for c in negative} == set(OPERATORS)
    for case in negative:
        indices = case.make_input()[1]
        assert indices.dtype.kind == "i" and indices.min() < 0, case.id
        assert (indices >= -case.inputs[1].bounds).all() and (indices < case.inputs[1].bounds).all()
    assert {c.params["IndicesType"] for c in CASES} == {"uint32", "int32", "uint64", "int64"}
    levels = {(c.params["IndicesType"], c.required_level) for c in CASES if c.op == "GATHER" and c.rank == 4
              and c.dtype == "float32"}
    assert ("uint32", "1_0") in levels and ("int32", "3_0") in levels  # both sides of the index-type boundary


def test_every_case_passes_exactly_through_the_oracle_and_the_cpu_provider():
    assert {c.op for c in CASES} == set(OPERATORS) and len(CASES) > 650
    assert {r["status"] for r in run("python:oracle:evaluate", CASES)} == {statuses.PASS}
    records = run("cpu", CASES)
    passed = [r for r in records if r["status"] == statuses.PASS]
    assert max(r["max_ulp"] for r in passed) == 0 and len(passed) > 580
    for record in records:
        if record["status"] != statuses.PASS:  # ONNX's index inputs are signed, GatherND's INT64 alone
            assert record["status"] == statuses.NOT_REACHABLE, (record["id"], record["message"])
            assert "indices, not" in record["message"]
            chosen = record["params"]["IndicesType"]
            assert chosen.startswith("u") or (record["op"] in TUPLES and chosen == "int32")


def _refused(tmp_path, text, said):
    path = tmp_path / "gather.yaml"
    path.write_text(text)
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert str(error.value).count("\n") == 0, str(error.value)  # one line
    assert str(path) in str(error.value) and said in str(error.value), str(error.value)
    return str(error.value)


GROUP = ("operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [{shapes}]\n"
         "    params: {{{params}}}\n    inputs: [{{each: {{Input: {{kind: uniform}}, Indices: {indices}}}}}]\n")


@pytest.mark.parametrize("op, shapes, params, indices, said", [
    ("GATHER", "{Input: [3, 4], Index: [1, 2]}", "Axis: 0", "{kind: indices}", "has no input 'Index'"),
    ("GATHER", "{Input: [3, 4]}", "Axis: 0", "{kind: indices}", "no shape for Indices"),
    ("GATHER", "{Input: [3, 4], Indices: [1, 2, 3]}", "Axis: 0", "{kind: indices}",
     "IndicesTensor has 3 dimensions, InputTensor 2"),
    ("GATHER", "{Input: [3, 4], Indices: [1, 2]}", "Axis: 2", "{kind: indices}", "Axis 2 must be in [0,"),
    ("GATHER_ELEMENTS", "{Input: [3, 4], Indices: [2, 5]}", "Axis: 0", "{kind: indices}",
     "must match InputTensor.Sizes [3, 4] in every dimension but Axis 0"),
    ("GATHER_ND", "{Input: [3, 4], Indices: [2, 3]}", "InputDimensionCount: 2, IndicesDimensionCount: 2",
     "{kind: indices}", "an index tuple of 3 coordinates"),
    ("GATHER", "{Input: [3, 4], Indices: [1, 2]}", "Axis: 1, IndicesType: int32", "{kind: values, values: [1, 4]}",
     "Indices[0, 1] = 4 is out of range: the dimension it addresses has 4 elements"),
    ("GATHER", "{Input: [3, 4], Indices: [1, 2]}", "Axis: 1", "{kind: indices, negative: true}",
     "negative indices need a signed Indices type"),
    ("GATHER", "{Input: [3, 4], Indices: [1, 2]}", "Axis: 1", "{kind: uniform}", "its generator is {kind: indices}"),
])
def test_a_bad_case_is_refused_at_load_in_one_line_naming_file_and_line(tmp_path, op, shapes, params, indices, said):
    message = _refused(tmp_path, GROUP.format(op=op, shapes=shapes, params=params, indices=indices), said)
    assert ":4:" in message or ":5:" in message or ":6:" in message, message


def _failed(records) -> set:
    return {r["id"] for r in records if r["status"] == statuses.FAIL}


def test_a_gather_with_its_indices_transposed_is_caught_naming_output_and_source():
    records = run("python:faults_gather:gather_with_indices_transposed", CASES)
    failed = _failed(records)
    assert {"GATHER_ELEMENTS/float32/rank2[Input=3x3,Indices=2x3]/Axis=0,IndicesType=int32/page-example",
            "GATHER/float32/rank4[Input=1x3x4x5,Indices=1x1x2x3]/Axis=1,IndexDimensions=2,IndicesType=int32/"
            "Input=uniform[-100,200],Indices=indices"} <= failed
    assert {c.op for c in CASES if c.id in failed} == set(OPERATORS)
    record = next(r for r in records if r["id"].startswith("GATHER_ELEMENTS/float32/rank2[Input=3x3") and
                  r["id"].endswith("int32/page-example"))
    worst = record["d3d"]["worst"][0]
    assert worst["source_input"] == "Input" and worst["input"] == worst["expected"] != worst["actual"]
    assert not [r["id"] for r in records if r["status"] == statuses.ERROR]


def test_negative_indices_taken_as_positive_are_caught_and_only_where_there_are_some():
    records = run("python:faults_gather:negative_indices_as_positive", CASES)
    failed = _failed(records)
    negative = {c.id for c in CASES if "negative]" in c.id or "negative-example" in c.id}
    assert negative and negative <= failed
    assert failed <= negative  # a device right on non-negative indices is not flagged


def test_a_gather_on_the_wrong_axis_is_caught():
    records = run("python:faults_gather:gather_on_the_wrong_axis", CASES)
    failed = _failed(records)
    assert "GATHER/float32/rank2[Input=3x2,Indices=1x4]/Axis=0,IndexDimensions=1,IndicesType=int32/page-example-2" in failed
    assert "GATHER_ELEMENTS/float32/rank2[Input=3x3,Indices=2x3]/Axis=0,IndicesType=int32/page-example" in failed
    for op in ("GATHER", "GATHER_ELEMENTS"):
        several = [c for c in CASES if c.op == op and c.rank > 1 and "uniform" in c.id]
        assert sum(c.id in failed for c in several) > 0.8 * len(several), op
    assert not {c.id for c in CASES if c.op in TUPLES} & failed


# DirectML refuses a SCATTER with more indices along Axis than the input holds, which the page allows
REFUSED = {f"SCATTER/{t}/{shapes}/Axis={axis},IndicesType=int64/Input=uniform[-100,200],Indices=indices,"
           f"Updates=uniform[-100,200]" for t in ("float32", "int8") for shapes, axis in (
               ("rank2[Input=3x4,Indices=9x4,Updates=9x4]", 0), ("rank3[Input=2x3x2,Indices=2x3x6,Updates=2x3x6]", 2))}


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe here): InputTensor and IndicesTensor bound each
    with its own sizes and type, the output with its own; the refusals the findings page lists."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", CASES)
    bad = [(r["id"], r["status"], r["message"][:200]) for r in records if r["status"] != statuses.PASS
           and r["id"] not in REFUSED]
    assert not bad, bad[:3]
    refused = [r for r in records if r["id"] in REFUSED]
    assert len(refused) == 4 and all("CreateOperator refused the description: E_INVALIDARG" in r["message"]
                                     for r in refused), [r["message"] for r in refused]
    assert max(r["max_ulp"] for r in records if r["status"] == statuses.PASS) == 0


def test_the_smoke_cases_pass_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine: the reshaped indices and the output reshaped back."""
    from needs import missing
    from conformance.backends import dml_wine
    lane, why = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned: {why}")
    smoke = [c for c in CASES if c.smoke]
    assert {c.op for c in smoke} == set(OPERATORS)
    records = run("dml-wine", smoke)
    assert {r["status"] for r in records} == {statuses.PASS}, [(r["id"], r["message"][:200]) for r in records
                                                               if r["status"] != statuses.PASS]
    assert all(set(r["placement"].values()) == {"DmlExecutionProvider"} for r in records)


def test_dml_direct_describes_each_input_with_its_own_sizes_and_type():
    """No Wine needed: the description dml-direct's worker builds (DML_BUFFER_TENSOR_DESC per tensor)."""
    from conformance.dmldirect import layout
    from conformance.dmldirect.describe import OperatorDescription
    keys = []
    for chosen in ("GATHER/int8/rank4[Input=2x3x4x5,Indices=1x1x1x6]/Axis=2,IndexDimensions=1,IndicesType=int32/",
                   "GATHER/int8/rank4[Input=1x3x4x5,Indices=1x1x2x3]/Axis=1,IndexDimensions=2,IndicesType=uint64/"):
        case, = select(CASES, chosen)
        request = layout.request(case.op, case.dtype, case.shape, case.params, False, case.inputs, (), case.outputs[0])
        described = OperatorDescription.from_case(request)
        assert [t.shape for t in described.inputs] == list(case.input_shapes)
        assert [t.dtype for t in described.inputs] == [case.dtype, case.params["IndicesType"]]
        assert described.output.shape == case.outputs[0]
        keys.append(described.key)
    assert keys[0] != keys[1]  # a compiled operator is not reused for indices of other sizes


def test_source_index_names_the_input_element_each_output_element_is_in_every_case():
    """The judge names a wrong element by its source (moved.py): every output element of every case
    is the input element source_index names, bit for bit."""
    for case in CASES:
        spec, x = specs.get(case.op), case.make_input()
        expected = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
        which, source = spec.source_index(np.indices(expected.shape, sparse=False), x, case.params)
        which = np.broadcast_to(which, expected.shape)
        copied = np.empty_like(expected)
        for k in np.unique(which):  # the input, or (SCATTER_ND) the updates
            copied[which == k] = x[k][tuple(np.broadcast_to(s, expected.shape)[which == k] for s in source)]
        assert copied.tobytes() == expected.tobytes(), case.id
        assert set(np.unique(which)) <= ({0} if case.op.startswith("GATHER") else {0, 2}), case.id


def test_scatter_nd_is_its_pages_example_and_accepts_any_of_its_colliding_writes():
    x = (np.arange(1, 9, dtype=np.float32).reshape(1, 8), np.array([[4], [3], [1], [7]], dtype=np.uint32),
         np.array([[9, 10, 11, 12]], dtype=np.float32))
    assert oracle.evaluate("SCATTER_ND", x, "float32", InputDimensionCount=1,
                           IndicesDimensionCount=2).tolist() == [[1, 11, 3, 10, 9, 6, 7, 12]]
    x = (np.arange(5, dtype=np.float32), np.array([3, 1, 3, 0], dtype=np.uint32), np.arange(5, 9, dtype=np.float32))
    assert oracle.evaluate("SCATTER", x, "float32", Axis=0).tolist() == [8, 6, 2, 7, 4]  # the page's example 1
    colliding = [c for c in CASES if c.op.startswith("SCATTER") and "Indices=indices," in c.id]
    assert len(colliding) == 14
    from faults_gather import colliding_writes_first_wins
    for case in colliding:  # the first write instead of the last: other elements, each one the page allows
        x = case.make_input()
        first = colliding_writes_first_wins(case.op, x, case.dtype, **case.params)
        assert (first != oracle.evaluate(case.op, x, case.dtype, **case.params)).any(), case.id
    scatters = [c for c in CASES if c.op.startswith("SCATTER")]
    records = run("python:faults_gather:colliding_writes_first_wins", scatters)
    assert {r["status"] for r in records} == {statuses.PASS} and max(r["max_ulp"] for r in records) == 0
    records = run("python:faults_gather:scatter_dropping_the_last_update", scatters)
    passed = {r["id"] for r in records if r["status"] == statuses.PASS}
    assert not {i for i in passed if "integer_extremes" not in i}, passed  # there the input and updates agree
    assert all(r["d3d"]["worst"][0]["source_input"] in ("Updates", "Input") for r in records if r["status"] == "fail")


@pytest.mark.parametrize("shapes, indices, said", [
    ("{Input: [4, 3], Indices: [2, 1], Updates: [2, 2]}", "{kind: indices}",
     "UpdatesTensor.Sizes [2, 2] must be [2, 3] (the indices' and the input's)"),
    ("{Input: [4, 3], Indices: [5, 1], Updates: [5, 3]}", "{kind: indices, distinct: true}",
     "5 distinct index tuples cannot fit the 4 places they address"),
])
def test_a_bad_scatter_case_is_refused_at_load_in_one_line(tmp_path, shapes, indices, said):
    text = ("operator: SCATTER_ND\ngroups:\n  - dtypes: [float32]\n    shapes: [" + shapes + "]\n"
            "    params: {InputDimensionCount: 2, IndicesDimensionCount: 2, IndicesType: int64}\n"
            "    inputs: [{each: {Input: {kind: uniform}, Indices: " + indices + ", Updates: {kind: uniform}}}]\n")
    _refused(tmp_path, text, said)
