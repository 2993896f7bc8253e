"""Shapes from functions (issue 25): each input has its own shape, a spec's output shapes come from
its shape rule (its family's, or its own), a case its rule refuses is refused at load in one line
naming file and line, and records carry input and output shapes and count output elements."""
from dataclasses import replace

import numpy as np
import pytest

from conformance import backends, specs
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import families
from conformance.specs.base import Parameter

TILED = """\
operator: ELEMENT_WISE_IDENTITY
groups:
  - dtypes: [float32]
    shapes: [[2, 3]]
    params:
      Repeats: [{array: [2, 3]}, {array: [1, 1]}]
    inputs:
      - {kind: uniform}
"""


def tile_shapes(input_shapes, params):
    return (tuple(n * r for n, r in zip(input_shapes[0], params["Repeats"])),)


def tile_check(input_shapes, params):
    shape = input_shapes[0]
    if len(params["Repeats"]) != len(shape):
        return f"Repeats has {len(params['Repeats'])} values for the {len(shape)} dimensions of {list(shape)}"
    return None


@pytest.fixture
def tiled(monkeypatch):
    """A spec declared here: the identity's page with TILE's Repeats and shape rule, of data movement."""
    spec = specs.get("ELEMENT_WISE_IDENTITY")
    repeats = Parameter("Repeats", "uint_array", None, "per dimension", count="RepeatsCount")
    monkeypatch.setitem(specs.SPECS, spec.name, replace(
        spec, parameters=spec.parameters + (repeats,), family=families.DATA_MOVEMENT,
        output_shapes_rule=tile_shapes, shape_check=tile_check))


def test_a_spec_s_own_rule_gives_the_output_shape_and_elements_count_output(tiled, tmp_path):
    path = tmp_path / "tile.yaml"
    path.write_text(TILED)
    grown, same = load_file(path)
    assert grown.input_shapes == ((2, 3),) and grown.outputs == ((4, 9),) and grown.elements == 36
    assert same.outputs == ((2, 3),) and same.elements == 6
    described = grown.describe()
    assert described["input_shapes"] == [[2, 3]] and described["output_shapes"] == [[4, 9]]
    assert described["shape"] == [2, 3]  # the old field, as reports read it


def test_a_case_the_rule_refuses_is_one_line_naming_file_and_line(tiled, tmp_path):
    path = tmp_path / "tile.yaml"
    path.write_text(TILED.replace("{array: [1, 1]}", "{array: [2]}"))
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert error.value.problems == [f"{path}:4: groups[0].shapes: ELEMENT_WISE_IDENTITY: Repeats has 1 values "
                                    "for the 2 dimensions of [2, 3]"]


def test_a_family_without_a_shape_rule_asks_its_spec_for_one():
    spec = replace(specs.get("ELEMENT_WISE_IDENTITY"), family=families.CONTRACTION)
    assert families.CONTRACTION.output_shapes is None  # issue 26 gives the contraction family its rule
    with pytest.raises(NotImplementedError, match="the contraction family has no default shape rule"):
        spec.output_shapes(((2, 3),), {})
    assert spec.shape_problem(((2, 3),), {}) is None


def test_element_wise_outputs_are_the_inputs_broadcast_in_every_shipped_case():
    cases = [c for c in load_paths() if specs.get(c.op).family is families.ELEMENT_WISE]
    broadcast = [c for c in cases if any(i.broadcast for i in c.inputs)]
    assert len(broadcast) > 20
    for case in cases:
        assert case.outputs == (tuple(np.broadcast_shapes(*case.input_shapes)),) == (case.shape,), case.id
        assert case.elements == int(np.prod(case.shape, dtype=np.int64)), case.id
    assert any(len(set(c.input_shapes)) > 1 for c in broadcast)


def test_element_wise_inputs_that_do_not_broadcast_are_refused():
    spec = specs.get("ELEMENT_WISE_ADD")
    assert spec.shape_problem(((2, 3), (1, 3)), {}) is None
    assert spec.shape_problem(((2, 3), (2, 4)), {}) == "the input shapes [2, 3], [2, 4] do not broadcast"
    assert "one dimension count" in spec.shape_problem(((2, 3), (3,)), {})


def test_a_record_carries_input_and_output_shapes_and_counts_output_elements(tmp_path):
    path = tmp_path / "add.yaml"
    path.write_text("operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float32]\n    shapes: [[2, 3, 4]]\n"
                    "    inputs: [{kind: uniform}]\n    broadcast: {B: [0, 2]}\n")
    case, = load_file(path)
    record, = runner.run([case], backends.create("python:oracle:evaluate"), "6_0", ResultsWriter(None)).records
    assert record["input_shapes"] == [[2, 3, 4], [1, 3, 1]] and record["output_shapes"] == [[2, 3, 4]]
    assert record["elements"] == 24 and record["status"] == "pass"
