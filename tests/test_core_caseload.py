"""Malformed or hostile case files are refused before anything runs, naming file and line."""
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.caseset.caseload import CaseFileError, load_file, load_paths

REPO = Path(__file__).resolve().parents[1]
GOOD = """\
operator: ACTIVATION_CELU
groups:
  - dtypes: [float32]
    shapes: [[2, 3]]
    params:
      Alpha: [1.0, 2.0]
    inputs:
      - {kind: uniform, low: -1, high: 1}
"""


def problems(write_case_file, text, **options):
    path = write_case_file(text)
    with pytest.raises(CaseFileError) as error:
        load_file(path, **options)
    return path, error.value.problems


def test_a_good_file_expands_to_the_cartesian_product(write_case_file):
    cases = load_file(write_case_file(GOOD))
    assert [c.id for c in cases] == ["ACTIVATION_CELU/float32/rank2[2x3]/Alpha=1/uniform[-1,1]",
                                     "ACTIVATION_CELU/float32/rank2[2x3]/Alpha=2/uniform[-1,1]"]
    assert cases[0].required_level == "3_0" and cases[0].tolerance == 18


@pytest.mark.parametrize("text,line,words", [
    (GOOD.replace("[2, 3]]", "[2, 3]"), 5, "invalid YAML: expected ',' or ']'"),
    (GOOD.replace("ACTIVATION_CELU", "ACTIVATION_NOT_AN_OPERATOR"), 1, "unknown operator 'ACTIVATION_NOT_AN_OPERATOR'"),
    (GOOD.replace("Alpha:", "Beta:"), 6, "has no parameter 'Beta'"),
    (GOOD.replace("[1.0, 2.0]", "[fast]"), 6, "Alpha must be a number, not 'fast'"),
    (GOOD.replace("[float32]", "[int8]"), 3, "never allows data type 'int8'"),
    (GOOD.replace("[float32]", "[float64]"), 3, "never allows data type 'float64'"),
    (GOOD.replace("[[2, 3]]", "[[]]"), 4, "rank 0"),
    (GOOD.replace("[[2, 3]]", "[[1, 1, 1, 1, 1, 1, 1, 1, 2]]"), 4, "rank 9"),
    (GOOD.replace("[[2, 3]]", "[[100000, 100000]]"), 4, "10000000000 elements"),
    (GOOD.replace("    inputs:", "    colour: red\n    inputs:"), 3, "unknown key(s) ('colour'"),
    (GOOD + "extra: 1\n", 1, "unknown key(s) ('extra'"),
    (GOOD.replace("dtypes:", "dtypes: [float32]\n    dtypes:"), 4, "duplicate key 'dtypes'"),
    (GOOD.replace("low: -1, high: 1", "low: 1, high: -1"), 8, "low 1 is above high -1"),
    (GOOD.replace("low: -1, high: 1", "low: 20"), 8, "low 20 is above high 10.0"),  # the default high
    (GOOD.replace("{kind: uniform, low: -1, high: 1}", "{kind: exhaustive_float16}"), 8, "float16 only"),
    (GOOD.replace("[2, 3]", "[2, '3']"), 4, "'3' is a string, not a number (remove the quotes)"),
])
def test_each_problem_names_the_file_the_line_and_what_is_wrong(write_case_file, text, line, words):
    path, found = problems(write_case_file, text)
    assert any(p.startswith(f"{path}:{line}:") and words in p for p in found), found


ENUM_AND_SCALAR = """\
operator: {op}
groups:
  - dtypes: [{dtype}]
    shapes: [[4]]
    params:
      {field}: [{value}]
    inputs:
      - {{kind: uniform}}
"""


@pytest.mark.parametrize("op,dtype,field,value,words", [
    ("ELEMENT_WISE_IS_INFINITY", "float32", "InfinityMode", "POSITIVE", "must be one of DML_IS_INFINITY_MODE_EITHER"),
    ("ELEMENT_WISE_IS_INFINITY", "float32", "InfinityMode", "1", "must be one of DML_IS_INFINITY_MODE_EITHER"),
    ("ELEMENT_WISE_CLIP1", "int32", "Min", "low", "Min must be a number, not 'low'"),
    ("ELEMENT_WISE_CLIP1", "int32", "MinMaxDataType", "float128", "must be a data type"),
])
def test_enum_data_type_and_scalar_fields_are_checked(write_case_file, op, dtype, field, value, words):
    path, found = problems(write_case_file, ENUM_AND_SCALAR.format(op=op, dtype=dtype, field=field, value=value))
    assert any(p.startswith(f"{path}:6:") and words in p for p in found), found


def test_an_unset_data_type_field_is_the_tensors_type(write_case_file):
    text = ENUM_AND_SCALAR.format(op="ELEMENT_WISE_CLIP1", dtype="uint16", field="Max", value=9)
    (case,) = load_file(write_case_file(text))
    assert case.params["MinMaxDataType"] == "uint16" and case.params["Max"] == 9
    assert case.id == "ELEMENT_WISE_CLIP1/uint16/rank1[4]/Max=9/uniform[-10,10]"


def test_duplicate_case_ids_are_refused(write_case_file):
    text = GOOD + GOOD.split("groups:\n", 1)[1]
    path, found = problems(write_case_file, text)
    assert any("duplicate case id ACTIVATION_CELU/float32/rank2[2x3]/Alpha=1" in p for p in found), found


def test_anchors_and_aliases_are_refused(write_case_file):
    bomb = "operator: ACTIVATION_CELU\nlol: &a [1, 1, 1]\nlol2: &b [*a, *a, *a]\ngroups: [*b]\n"
    path, found = problems(write_case_file, bomb)
    assert any("anchors and aliases are not allowed" in p for p in found), found


def test_no_object_construction(write_case_file, tmp_path):
    marker = tmp_path / "pwned"
    text = f"operator: !!python/object/apply:os.system ['touch {marker}']\ngroups: []\n"
    path, found = problems(write_case_file, text)
    assert not marker.exists()
    assert found and found[0].startswith(f"{path}:1:")


def test_the_element_limit_is_configurable(write_case_file):
    path, found = problems(write_case_file, GOOD, max_elements=5)
    assert any("the limit is 5" in p for p in found)


def test_a_shape_too_small_for_the_generators_values_is_refused(write_case_file):
    text = GOOD.replace("{kind: uniform, low: -1, high: 1}", "{kind: specials}")
    path, found = problems(write_case_file, text)
    assert any("holds 6 elements but generator specials has" in p for p in found), found


def test_bad_input_exits_2_with_no_traceback(write_case_file):
    path = write_case_file(GOOD.replace("Alpha:", "Beta:"))
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "cpu", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert f"{path}:6:" in done.stderr and "Traceback" not in done.stderr + done.stdout


def test_missing_path_exits_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "conformance", "validate", str(tmp_path / "nope.yaml")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "no such file" in done.stderr


def test_the_shipped_cases_cover_every_type_rank_and_level_boundary():
    from conformance import specs
    cases = load_paths()
    for spec in specs.SPECS.values():
        mine = [c for c in cases if c.op == spec.name]
        assert {c.dtype for c in mine} == set(spec.dtypes), spec.name
        for dtype in spec.dtypes:
            ranks = {c.rank for c in mine if c.dtype == dtype}
            assert ranks >= set(spec.ranks), (spec.name, dtype, set(spec.ranks) - ranks)
        levels = {c.required_level for c in mine}
        by_value = {spec.parameter_level(c.params) for c in mine} - {None} if spec.parameter_level else set()
        assert levels == {t.level for t in spec.tables} | by_value, (spec.name, levels)
        for parameter in spec.parameters:
            if _others_refused(spec, parameter, mine[0]):
                continue  # every other value is refused at load (RESAMPLE's LINEAR mode): none to cover
            assert any(c.params[parameter.name] != parameter.default for c in mine), parameter.name
        assert any(c.in_place for c in mine) == spec.in_place


def _others_refused(spec, parameter, case) -> bool:
    """Whether the spec's shape check refuses a case for every value of the field but its default (an
    enum's other choices; an integer's default + 1)."""
    others = [c for c in parameter.choices if c != parameter.default]
    if not others and parameter.kind in ("int", "uint") and isinstance(parameter.default, int):
        others = [parameter.default + 1]
    return bool(others) and all(spec.shape_problem(case.input_shapes, {**case.params, parameter.name: v})
                                for v in others)


def test_only_regular_files_are_read_and_never_past_the_limit(tmp_path):
    """A FIFO would block for ever and /dev/zero (st_size 0) never ends: each, and a link to it, is
    one line naming the file, before a byte is read; a file over the limit is refused after limit + 1."""
    import os

    from conformance.caseset import caseload
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.yaml"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero):
        with pytest.raises(CaseFileError, match=rf"{path.name}:1: not a regular file"):
            load_paths([str(path)])
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * caseload.MAX_FILE_BYTES + "\n")
    with pytest.raises(CaseFileError, match=rf"big.yaml:1: file is over {caseload.MAX_FILE_BYTES} bytes"):
        load_paths([str(big)])


@pytest.mark.parametrize("value", ["{a: " * 500 + "1" + "}" * 500, "[" * 500 + "]" * 500])
def test_deep_nesting_is_one_line_not_a_recursion_error(tmp_path, value):
    path = tmp_path / "deep.yaml"
    path.write_text(f"operator: ACTIVATION_CELU\ngroups:\n  - dtypes: [float32]\n    shapes: [[2]]\n"
                    f"    params: {value}\n    inputs: [{{kind: uniform}}]\n")
    with pytest.raises(CaseFileError, match=r"deep.yaml:5: nested more than \d+ levels deep"):
        load_paths([str(path)])


SWEEP = """\
operator: ACTIVATION_CELU
groups:
  - dtypes: [float32]
    shapes: [auto]
    inputs:
      - {kind: exhaustive_float32}
      - {kind: exhaustive_float32, start: 0x3f800000, stop: 0x40000000}
      - {kind: exhaustive_float32, step: 3, label: every-third}
"""


def test_max_elements_cuts_a_sweep_to_a_prime_stride_its_id_names(write_case_file):
    path = write_case_file(SWEEP)
    whole = load_file(path)
    assert [c.elements for c in whole] == [1 << 32, 1 << 23, -(-(1 << 32) // 3)] and not any(c.cut for c in whole)
    cut = load_file(path, max_elements=1 << 20)
    assert [c.id.rsplit("/", 1)[1] for c in cut] == ["exhaustive_float32[0x00000000,0x100000000,step=4099]",
                                                     "exhaustive_float32[0x3f800000,0x40000000,step=11]",
                                                     "every-third[step=4101]"]
    for case, stride in zip(cut, (4099, 11, 4101)):
        assert case.generator["step"] == stride and case.elements <= 1 << 20 and case.shape == (case.elements,)
        assert case.describe()["cut"] == case.cut and f"to 1 in {stride // (3 if stride == 4101 else 1)}" in case.cut
    assert cut[0].cut == "exhaustive_float32: 4294967296 inputs cut by --max-elements 1048576 to 1 in 4099: " \
                         "1047809 inputs"
    assert cut[0].make_input().view("uint32")[-1] == 1047808 * 4099  # the first pattern, then every 4099th
    assert load_file(path, max_elements=1 << 23)[1].cut == ""  # a sweep within the limit runs whole


@pytest.mark.parametrize("limit", [1 << 14, 1 << 16, 1 << 20])
def test_a_cut_float16_pairs_sweep_spreads_over_every_region_of_a_and_b(tmp_path, limit):
    """A and B each in 16 ranges of bit patterns: the sample reaches all 256 combinations (a step of
    65537, the least prime for 65536 pairs, gives A = B: 16 of them)."""
    import numpy as np
    path = tmp_path / "pairs.yaml"
    path.write_text("operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float16]\n    shapes: [auto]\n"
                    "    inputs:\n      - {kind: exhaustive_float16_pairs}\n")
    case, = load_file(path, max_elements=limit)
    a, b = (x.reshape(-1).view(np.uint16) >> 12 for x in case.make_input())
    assert 0.75 * limit <= case.elements <= limit and case.generator["step"] % 2 == 1
    assert len(np.unique(a * 16 + b)) == 256


def test_a_cut_sweep_is_said_and_runs_on_the_command_line(tmp_path):
    sweep = "sweeps/activation_celu_float32.yaml"
    listed = subprocess.run([sys.executable, "-m", "conformance", "run", sweep, "--backend", "cpu", "--quiet",
                             "--max-elements", "65536", "--results", tmp_path / "r.jsonl"],
                            capture_output=True, text=True, cwd=REPO)
    case_id = "ACTIVATION_CELU/float32/rank1/Alpha=1/exhaustive_float32[0x00000000,0x100000000,step=65537]"
    assert listed.stderr.splitlines()[0] == (f"{sweep}:9: {case_id}: exhaustive_float32: 4294967296 inputs cut by "
                                             "--max-elements 65536 to 1 in 65537: 65536 inputs"), listed.stderr
    from conformance.run.results import read_results
    _, (record,), _ = read_results(tmp_path / "r.jsonl")
    assert record["id"] == case_id and record["elements"] == 65536 and record["cut"]
    refused = subprocess.run([sys.executable, "-m", "conformance", "list", sweep, "--max-elements", "0"],
                             capture_output=True, text=True, cwd=REPO)
    assert refused.returncode == 2 and refused.stderr == "error: --max-elements 0: expected a positive number of " \
                                                         "elements\n"


def test_cases_and_sweeps_paths_name_the_shipped_ones_from_any_folder(tmp_path, monkeypatch):
    """`conformance run sweeps/probes` in a folder without one (an installed harness's user): the shipped
    sweeps; a folder of that name here is the user's own and wins; a name shipped nowhere stays an error."""
    from conformance.caseset.caseload import SHIPPED_SWEEPS, discover
    monkeypatch.chdir(tmp_path)
    shipped = discover(["sweeps/probes"])
    assert shipped and all(p.is_relative_to(SHIPPED_SWEEPS / "probes") for p in shipped), shipped
    own = tmp_path / "sweeps" / "probes"
    own.mkdir(parents=True)
    (own / "mine.yaml").write_text("operator: ACTIVATION_CELU\ngroups: []\n")
    assert discover(["sweeps/probes"]) == [Path("sweeps/probes/mine.yaml")]
    with pytest.raises(CaseFileError, match="sweeps/nothing.yaml: no such file"):
        discover(["sweeps/nothing.yaml"])
