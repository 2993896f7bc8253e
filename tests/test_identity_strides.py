"""ELEMENT_WISE_IDENTITY over an input bound with strides of its own (a case file's input_strides: a
transpose or a broadcast written as DML_BUFFER_TENSOR_DESC strides): the input is the strided view of a
packed storage; the oracle reads the view, dml-direct binds the storage with the strides, ONNX Runtime
cannot bind one (not reachable); bad strides are refused at load, a device ignoring them is caught."""
import re

import numpy as np
import pytest

from conformance import backends, statuses
from conformance.caseset import inputs, strides
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter

STRIDED = [c for c in load_paths() if c.input_strides]


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def stored(case):
    """The packed storage the case's input is read from, made as make_input makes it."""
    return inputs.fill(case.generator, case.dtype, (strides.storage_size(case.shape, case.input_strides),),
                       case.seed, case.own_values)


def test_the_input_is_the_strided_view_of_its_storage():
    transposed = select(STRIDED, "ELEMENT_WISE_IDENTITY/int32/rank2[3x4]/defaults/uniform[-100,200]/input-strides[1,3]")[0]
    x = transposed.make_input()
    assert x.shape == (3, 4) and x.T.reshape(-1).tolist() == stored(transposed).tolist()  # storage: [4, 3] packed
    broadcast = select(STRIDED, "ELEMENT_WISE_IDENTITY/uint8/rank2[3x4]/defaults/uniform[-100,200]/input-strides[0,1]")[0]
    x = broadcast.make_input()
    assert (x == x[0]).all() and x[0].tolist() == stored(broadcast).tolist()
    padded = select(STRIDED, "ELEMENT_WISE_IDENTITY/float32/rank2[3x13]/defaults/specials/input-strides[29,2]")[0]
    x, storage = padded.make_input(), stored(padded)
    assert x[2, 5].tobytes() == storage[2 * 29 + 5 * 2].tobytes()
    assert strides.storage(x, padded.input_strides)[::2][:13].tobytes() == x[0].tobytes()


def test_every_strided_case_passes_through_the_oracle_and_is_not_reachable_through_onnx_runtime():
    assert len(STRIDED) == 18
    assert {r["status"] for r in run("python:oracle:evaluate", STRIDED)} == {statuses.PASS}
    records = run("cpu", STRIDED)
    assert {r["status"] for r in records} == {statuses.NOT_REACHABLE}
    assert "ONNX Runtime passes the tensor packed" in records[0]["message"]
    assert all(r["id"].endswith(f"/input-strides[{','.join(map(str, c.input_strides))}]")
               for r, c in zip(records, STRIDED))


def test_a_device_that_reads_the_storage_packed_is_caught():
    for case in STRIDED:
        x = case.make_input()
        storage = strides.storage(x, case.input_strides)  # read packed, zeros past the storage's end
        packed_read = np.concatenate([storage, np.zeros(x.size, x.dtype)])[:x.size].reshape(x.shape)
        comparison = compare_case(case, x, packed_read)
        assert not comparison.passed and comparison.mismatches > 0, case.id


@pytest.mark.parametrize("extra, said", [
    ("    input_strides: [1, 3, 1]\n", "3 input strides for the 2 dimensions of [3, 4]"),
    ("    input_strides: [1, 3]\n    in_place: true\n", "the input cannot have strides of its own"),
])
def test_bad_input_strides_are_refused_at_load(tmp_path, extra, said):
    path = tmp_path / "identity.yaml"
    path.write_text("operator: ELEMENT_WISE_IDENTITY\ngroups:\n  - dtypes: [float32]\n    shapes: [[3, 4]]\n"
                    f"{extra}    inputs: [{{kind: uniform}}]\n")
    with pytest.raises(CaseFileError, match=rf"{path.name}:\d+: .*{re.escape(said)}"):
        load_file(path)


def test_input_strides_are_for_an_operator_of_one_input(tmp_path):
    path = tmp_path / "add.yaml"
    path.write_text("operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float32]\n    shapes: [[3, 4]]\n"
                    "    input_strides: [1, 3]\n    inputs: [{kind: uniform}]\n")
    with pytest.raises(CaseFileError, match=r"add.yaml:\d+: .*ELEMENT_WISE_ADD has 2 inputs"):
        load_file(path)


def test_every_strided_case_passes_through_dml_direct():
    """The real DirectML.dll (Wine lane on lavapipe): the storage bound with the case's strides."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", STRIDED)
    assert {r["status"] for r in records} == {statuses.PASS}, [r["message"] for r in records if r["status"] != "pass"][:3]
    assert max(r["max_ulp"] for r in records) == 0
