"""List-valued fields (issue 25): {array: [...]} in a case file, one line per mistake naming file and
line, case ids without spaces that -k selects exactly, and the count field implied by the array.

No shipped operator has an array field yet, so the tests declare one: ELEMENT_WISE_IDENTITY with the
array fields of a slice (Offsets, Sizes, Strides sharing DimensionCount) and of a reduction (Axes)."""
from dataclasses import replace

import pytest

from conformance import specs
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.caseset.selection import select
from conformance.cli.command import main
from conformance.specs.base import Parameter
from reports.details import keyword_for

ARRAYS = (Parameter("Axes", "uint_array", None, "the axes", count="AxisCount"),
          Parameter("Offsets", "int_array", None, "per dimension", count="DimensionCount"),
          Parameter("Strides", "int_array", None, "per dimension", count="DimensionCount"),
          Parameter("Scales", "float_array", None, "per dimension", count="ScaleCount"))
CASES = """\
operator: ELEMENT_WISE_IDENTITY
groups:
  - dtypes: [float32]
    shapes: [[2, 3]]
    params:
      Axes: [{array: [1]}, {array: [0, 1]}, {array: []}]
      Scales: {array: [0.5, -2]}
    inputs:
      - {kind: uniform, low: -1, high: 1}
"""


@pytest.fixture
def with_arrays(monkeypatch):
    spec = specs.get("ELEMENT_WISE_IDENTITY")
    monkeypatch.setitem(specs.SPECS, spec.name, replace(spec, parameters=spec.parameters + ARRAYS))


def test_an_array_value_is_one_case_and_a_list_of_them_a_grid(with_arrays, tmp_path):
    path = tmp_path / "identity.yaml"
    path.write_text(CASES)
    cases = load_file(path)
    assert [c.params["Axes"] for c in cases] == [[1], [0, 1], []]
    assert all(c.params["Scales"] == [0.5, -2.0] for c in cases)
    assert [c.id for c in cases] == [
        f"ELEMENT_WISE_IDENTITY/float32/rank2[2x3]/Axes={axes},Scales=[0.5,-2]/uniform[-1,1]"
        for axes in ("[1]", "[0,1]", "[]")]
    assert not any(" " in c.id for c in cases)


def test_list_k_on_an_array_id_gives_exactly_that_case(with_arrays, tmp_path, capsys):
    path = tmp_path / "identity.yaml"
    path.write_text(CASES)
    wanted = "ELEMENT_WISE_IDENTITY/float32/rank2[2x3]/Axes=[1],Scales=[0.5,-2]/uniform[-1,1]"
    assert main(["list", "-k", wanted, str(path)]) == 0
    assert capsys.readouterr().out.split() == [wanted]
    assert main(["list", "-k", "Axes=[0,1]", str(path)]) == 0
    assert capsys.readouterr().out.split() == [wanted.replace("Axes=[1]", "Axes=[0,1]")]


def test_the_report_s_rerun_keyword_selects_each_array_case_alone(with_arrays, tmp_path):
    path = tmp_path / "identity.yaml"
    path.write_text(CASES.replace("{array: []}", "{array: [1, 0]}, {array: [0]}, {array: [10]}"))
    cases = load_file(path)
    assert len(cases) == 5
    for case in cases:
        assert select(cases, keyword_for(case.id, [c.id for c in cases])) == [case]


@pytest.mark.parametrize("value,line,words", [
    ("[1, 2]", 6, "Axes must be {array: [...]} of integers >= 0 (a bare list is a grid of cases), not 1"),
    ("{array: [1, -2]}", 6, "Axes must be {array: [...]} of integers >= 0"),
    ("{array: [1.5]}", 6, "Axes must be {array: [...]} of integers >= 0"),
    ("{array: [1, x]}", 6, "an array value is {array: [numbers]} ('x' is not of type 'number')"),
    ("{array: 1}", 6, "an array value is {array: [numbers]}"),
    ("{array: [1], more: 2}", 6, "an array value is {array: [numbers]}"),
])
def test_a_bad_array_value_is_one_line_naming_file_and_line(with_arrays, tmp_path, value, line, words):
    path = tmp_path / "identity.yaml"
    path.write_text(CASES.replace("[{array: [1]}, {array: [0, 1]}, {array: []}]", value))
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    first, *others = error.value.problems  # a grid [1, 2]: one line per value
    assert words in first and len(others) == (1 if value == "[1, 2]" else 0)
    assert all(p.startswith(f"{path}:{line}: ") and "\n" not in p for p in error.value.problems)


def test_a_count_field_is_implied_and_arrays_sharing_one_have_one_length(with_arrays, tmp_path):
    path = tmp_path / "identity.yaml"
    path.write_text(CASES.replace("Scales: {array: [0.5, -2]}", "AxisCount: 2"))
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert error.value.problems == [f"{path}:7: groups[0].params.AxisCount: AxisCount is the length of Axes, "
                                    "implied: give the array only"]
    path.write_text(CASES.replace("Scales: {array: [0.5, -2]}",
                                  "Offsets: {array: [0, 1]}\n      Strides: {array: [1]}"))
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert set(error.value.problems) == {f"{path}:6: groups[0].params: Offsets, Strides share DimensionCount "
                                         "and must have one length, not 2, 1"}


def test_a_number_field_refuses_an_array_value(tmp_path):
    path = tmp_path / "celu.yaml"
    path.write_text("operator: ACTIVATION_CELU\ngroups:\n  - dtypes: [float32]\n    shapes: [[2]]\n"
                    "    params:\n      Alpha: {array: [1.0]}\n    inputs:\n      - {kind: uniform}\n")
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert error.value.problems == [f"{path}:6: groups[0].params.Alpha: Alpha must be a number, not {{'array': [1.0]}}"]
