"""The operator registry: a new operator is its spec, its oracle module and its case file, and
nothing else in the harness names an operator.

The name scan's rule: no operator name of any spec appears in the harness's code outside
conformance/specs/, oracle/, cases/, sweeps/ (any folder of that name), tests/ and the generated
header tables (conformance/dmldirect/abi.py). Code is what runs: identifiers and the strings a
program uses (help texts, messages, file names). Comments and docstrings are documentation and may
use an operator as an example. A name counts in full (ELEMENT_WISE_CLIP, activation_celu in a file
name: any case, between non-alphanumerics) and in short (CONSTANT_POW, CELU: the name without its
ELEMENT_WISE_ or ACTIVATION_ prefix, in capitals, as a word of its own). A name that is one plain
word (PADDING, SLICE, TILE) counts in capitals only: in lower case it is the word (CSS's padding,
Python's slice), not the operator.
"""
import itertools
import io
import re
import subprocess
import tokenize
from pathlib import Path

import numpy as np
import pytest

import oracle
from conformance import specs
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.specs.base import computed_fields
from every import Failures

ROOT = Path(__file__).resolve().parents[1]
CODE = (".py", ".sh", ".js", ".html", ".css", ".toml", ".cfg", ".ini")
ALLOWED = ("conformance/specs/", "oracle/", "tests/", "docs/")
GENERATED = ("conformance/dmldirect/abi.py",)
ALLOWED_FOLDERS = {"cases", "sweeps"}
PREFIXES = ("ELEMENT_WISE_", "ACTIVATION_")


def _files():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    for name in listed:
        path = ROOT / name
        if (name.endswith(CODE) and not name.startswith(ALLOWED) and name not in GENERATED
                and not ALLOWED_FOLDERS & set(Path(name).parts[:-1]) and path.is_file()):
            yield name, path


def _python_code(text: str) -> str:
    """The source without its comments and docstrings (blanked, so line numbers stay)."""
    lines = text.splitlines(keepends=True)
    blank = []
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            blank.append((token.start, token.end))
        elif token.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                                             tokenize.NL):
            blank.append((token.start, token.end))  # a string standing alone as a statement: a docstring
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    for (start_row, start_col), (end_row, end_col) in reversed(blank):
        for row in range(start_row, end_row + 1):
            line = lines[row - 1]
            begin = start_col if row == start_row else 0
            end = end_col if row == end_row else len(line.rstrip("\n"))
            lines[row - 1] = line[:begin] + " " * (end - begin) + line[end:]
    return "".join(lines)


def _shell_code(text: str) -> str:
    """The script without its comment lines and trailing ' # ...' comments."""
    return "".join(re.sub(r"(^|\s+)#.*$", "", line) if not line.startswith("#!") else "\n"
                   for line in text.splitlines(keepends=True))


def _patterns():
    found = []
    for name in specs.SPECS:
        # Not after a dot: numpy's np.tile and ufunc.reduce are attributes, not the operators TILE and REDUCE
        plain_word = name.isalpha()
        found.append((name, re.compile(rf"(?<![A-Za-z0-9.]){name}(?![A-Za-z0-9])",
                                       0 if plain_word else re.IGNORECASE)))
        short = name
        for prefix in PREFIXES:
            short = short.removeprefix(prefix)
        if short != name:
            found.append((short, re.compile(rf"\b{short}\b")))
    return found


def names_in_code():
    """[(file:line, name)] for every operator name in the harness's code."""
    patterns = _patterns()
    hits = []
    for name, path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        code = _python_code(text) if name.endswith(".py") else _shell_code(text) if name.endswith(".sh") else text
        for number, line in enumerate(code.splitlines(), 1):
            hits += [(f"{name}:{number}", operator) for operator, pattern in patterns if pattern.search(line)]
    return hits


def test_no_operator_is_named_in_the_harness_code():
    hits = names_in_code()
    assert not hits, ("operator names in code outside specs/, oracle/, cases/, sweeps/ and tests/ "
                      "(make the code generic, or move the fact to the operator's spec, oracle or case "
                      "file):\n" + "\n".join(f"  {where}: {name}" for where, name in hits))


def test_the_scan_finds_names_in_code_but_not_in_comments_and_docstrings():
    text = ('"""A module about ACTIVATION_CELU."""\n'
            'def f():\n'
            '    """CELU in a docstring."""\n'
            '    x = 1  # ELEMENT_WISE_CLIP in a comment\n'
            '    return ("activation_celu_float32.yaml", CELU)\n')
    code = _python_code(text)
    assert "ACTIVATION_CELU" not in code and "docstring" not in code and "comment" not in code
    assert "activation_celu_float32.yaml" in code and "CELU)" in code
    assert code.count("\n") == text.count("\n")
    pattern = dict(_patterns())
    assert pattern["ACTIVATION_CELU"].search('open("sweeps/activation_celu_float32.yaml")')
    assert pattern["TILE"].search('run("TILE", repeats)') and not pattern["TILE"].search("np.tile(v, 2)")
    # a plain word in lower case is the word: CSS's padding, a field padding_written, Python's slice
    assert not any(pattern["PADDING"].search(t) for t in ("padding: 4px;", 'x["padding_written"]', "the padding"))
    assert pattern["PADDING"].search('op == "PADDING"') and pattern["PADDING1"].search("cases/padding1.yaml")
    assert not pattern["TILE"].search('run("tile", repeats)')
    assert pattern["ACTIVATION_CELU"].search("DML_OPERATOR_ACTIVATION_CELU")
    assert pattern["CELU"].search("LITERAL, CELU = 0, 1") and not pattern["CELU"].search("ACTIVATION_CELU")
    assert not pattern["CLIP"].search("Clip(opset 13)")
    assert _shell_code("# CLIP\necho 'CLIP and float32'  # CELU\n") == "\necho 'CLIP and float32'\n"


# ---- every operator is its three files ---------------------------------------------------------------
def test_every_spec_has_its_oracle_module_and_case_file():
    cases = {path.stem: path for path in (ROOT / "cases").glob("*.yaml")}
    for name, spec in specs.SPECS.items():
        module = oracle.OPERATORS.get(name)
        assert module is not None, f"{name}: no oracle module names OPERATOR = {name!r}"
        # ExecutionFlags says how DirectML may compute, not what: the oracle never gets it (computed_fields)
        assert computed_fields(module.DEFAULTS) == computed_fields(spec.defaults()), \
            f"{name}: the oracle's DEFAULTS differ from the spec's"
        owned = [path for path in cases.values() if f"operator: {name}\n" in path.read_text(encoding="utf-8")]
        assert owned, f"{name}: no case file in cases/ names it"
    assert set(oracle.OPERATORS) == set(specs.SPECS)


def test_output_types_agree_between_spec_and_oracle():
    for name, spec in specs.SPECS.items():
        for dtype in spec.dtypes:
            given = oracle.output_dtype(name, dtype)  # a tuple for several outputs (TOP_K: values, indices)
            wanted = tuple(str(np.dtype(spec.tensor_type(o.name, dtype))) for o in spec.outputs)
            assert (given if isinstance(given, tuple) else (given,)) == wanted, (name, dtype)


# ---- the smoke cases a case file marks -------------------------------------------------------------
SMOKE_FILE = """\
operator: ACTIVATION_CELU
smoke: {smoke}
groups:
  - dtypes: [float32, float16]
    shapes: [[4], [2, 3]]
    inputs:
      - {{kind: uniform}}
"""


def test_a_case_file_marks_its_own_smoke_cases(tmp_path):
    path = tmp_path / "celu.yaml"
    path.write_text(SMOKE_FILE.format(smoke='"float16 and rank2"'))
    cases = load_file(path)
    assert [c.id for c in cases if c.smoke] == ["ACTIVATION_CELU/float16/rank2[2x3]/defaults/uniform[-10,10]"]
    path.write_text(SMOKE_FILE.format(smoke='"float64"'))
    with pytest.raises(CaseFileError, match=r"celu.yaml:2: .*smoke 'float64' selects none of the file's cases"):
        load_file(path)
    path.write_text(SMOKE_FILE.format(smoke='"(float16"'))
    with pytest.raises(CaseFileError, match=r"celu.yaml:2: .*missing '\)'"):
        load_file(path)


# ---- integer semantics: the oracle against Python integers ------------------------------------------
def _integer_inputs(dtype: str) -> list:
    """Each integer type's extremes and their neighbours, and for 64-bit types the integers around
    2^53 and 2^63 that float64 cannot tell apart."""
    info = np.iinfo(dtype)
    values = [info.min, info.min + 1, info.min + 2, -2, -1, 0, 1, 2, 3, 100, info.max - 2, info.max - 1, info.max]
    if info.bits == 64:
        values += [sign * ((1 << 53) + k) for sign in (1, -1) for k in (-1, 0, 1, 2, 3)]
        values += [(1 << 62) + 1, (1 << 63) - 3, -(1 << 63) + 3, (1 << 63) + 1, (1 << 64) - 3]
    return sorted({v for v in values if info.min <= v <= info.max})


def _integer_sets():
    """(operator, data type, fields) of every integer case in cases/, once each."""
    from conformance.caseset.caseload import load_paths
    found = []
    for case in load_paths():
        entry = (case.op, case.dtype, case.params)
        if np.dtype(case.dtype).kind in "iu" and entry not in found:
            found.append(entry)
    return found


def test_every_operator_with_integer_types_states_its_integer_semantics():
    missing = [name for name, spec in specs.SPECS.items()
               if any(np.dtype(d).kind in "iu" for d in spec.dtypes) and spec.integers is None]
    assert not missing, f"specs with integer types but no `integers` (their semantics on Python ints): {missing}"


def test_integer_results_are_the_python_integer_ones():
    """The oracle on integer tensors, every value, against the spec's own statement of the integer
    semantics on Python ints: exact (no float64 on the way: 2^53 + 1 stays itself). One test over
    every integer case's operator, type and fields; a failure names them."""
    failures, exact = Failures(), 0
    for op, dtype, params in _integer_sets():
        spec = specs.get(op)
        formula = spec.integers(params, dtype) if spec.integers is not None else None
        if formula is None:  # no statement (the test above fails), or a float computation on integers
            continue
        with failures.check(f"{op} {dtype} {params}"):
            values = _integer_inputs(dtype)
            if spec.several_inputs:  # every combination of the values over the inputs
                values = list(itertools.product(values, repeat=len(spec.inputs)))
                x = tuple(np.array(column, dtype=dtype) for column in zip(*values))
            else:
                x = np.array(values, dtype=dtype)
            got = oracle.evaluate(op, x, dtype, **params)
            assert got.dtype == np.dtype(spec.tensor_type("OutputTensor", dtype, params)), got.dtype
            wanted = [formula(*v) if spec.several_inputs else formula(v) for v in values]
            assert all(type(w) is int for w in wanted), wanted
            wrong = [(v, g, w) for v, g, w in zip(values, got.tolist(), wanted) if g != w]
            assert not wrong, f"(x, oracle, Python int) {wrong[:5]}"
            exact += 1
    failures.assert_none("integer sets differ from the Python integers")
    assert exact > 100, f"only {exact} integer sets checked"
