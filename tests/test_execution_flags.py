"""A case's ExecutionFlags (DML_EXECUTION_FLAGS): the loader's check, what dml-direct compiles with
(the real DirectML.dll under Wine), and which cases ONNX Runtime's routes reach (docs/execution-flags.md).

The specs that accumulate take execution_flags(); here a stand-in, SCALED_ELU (ONNX Runtime's Selu,
which its DirectML provider runs in float16) with the parameter added, registered for the test alone."""
import dataclasses
import subprocess
import sys

import pytest
from needs import missing

from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs.base import (ALLOW_HALF_PRECISION, DISABLE_META_COMMANDS, EXECUTION_FLAG_CHOICES, execution_flags,
                                    flags_of, half_precision_allowed)

BOTH = f"{ALLOW_HALF_PRECISION}|{DISABLE_META_COMMANDS}"
CASES = """\
operator: ACTIVATION_SCALED_ELU
groups:
  - dtypes: [{dtype}]
    shapes: [[5]]
    params:
      Alpha: 1.0
      Gamma: 2.0
      ExecutionFlags: {flags}
    inputs:
      - {{kind: values, values: [-2, -0.5, 0, 0.5, 2]}}
"""


@pytest.fixture
def flagged(monkeypatch):
    """SCALED_ELU whose cases choose their ExecutionFlags."""
    spec = specs.get("ACTIVATION_SCALED_ELU")
    monkeypatch.setitem(specs.SPECS, spec.name,
                        dataclasses.replace(spec, parameters=spec.parameters + (execution_flags(),)))


def cases(write_case_file, flags, dtype="float32"):
    return load_file(write_case_file(CASES.format(flags=flags, dtype=dtype)))


def test_the_loader_takes_each_choice_into_the_case_and_its_id(flagged, write_case_file):
    loaded = cases(write_case_file, f"[{', '.join(repr(c) for c in EXECUTION_FLAG_CHOICES)}]")
    assert [flags_of(c.params) for c in loaded] == [set(), {ALLOW_HALF_PRECISION}, {DISABLE_META_COMMANDS},
                                                    {ALLOW_HALF_PRECISION, DISABLE_META_COMMANDS}]
    assert [half_precision_allowed(c.params) for c in loaded] == [False, True, False, True]
    assert f"ExecutionFlags={BOTH}" in loaded[3].id and "ExecutionFlags" in loaded[0].id


@pytest.mark.parametrize("value", ["HALF", "DISABLE_META_COMMANDS|ALLOW_HALF_PRECISION_COMPUTATION", "3"])
def test_a_bad_value_is_one_line_naming_the_file_and_line(flagged, write_case_file, value):
    path = write_case_file(CASES.format(flags=repr(value), dtype="float32"))
    with pytest.raises(CaseFileError) as error:
        load_file(path)
    assert error.value.problems == [f"{path}:8: groups[0].params.ExecutionFlags: ExecutionFlags must be one of "
                                    f"{', '.join(EXECUTION_FLAG_CHOICES)}, not {value!r}"]


def _run(backend, chosen):
    return runner.run(chosen, backend, "5_0", ResultsWriter(None)).records


def test_dml_direct_compiles_with_the_case_flags_and_records_them(flagged, write_case_file):
    """One description, two sets of flags: two operators compiled (the cache keys on the flags), each
    case's record saying what CompileOperator got, as the worker reports it."""
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    backend = dml_direct.DmlDirectBackend("dml-direct", {})
    try:
        before = backend.sessions_created
        records = _run(backend, cases(write_case_file, f"['{BOTH}', NONE]"))
        compiled = backend.sessions_created - before
    finally:
        backend.close()
    assert [(r["status"], r["execution_flags"]) for r in records] == [(statuses.PASS, BOTH), (statuses.PASS, "NONE")]
    assert records[0]["params"]["ExecutionFlags"] == BOTH
    assert compiled == 2


def test_onnx_runtime_cpu_runs_every_case_whatever_its_flags(flagged, write_case_file):
    backend = backends.create("cpu", announce=lambda m: None)
    records = _run(backend, cases(write_case_file, f"[NONE, '{BOTH}']"))
    assert [r["status"] for r in records] == [statuses.PASS, statuses.PASS]
    assert all("execution_flags" not in r for r in records)  # no DirectML: no flags compiled


def test_dml_wine_reaches_the_flags_its_provider_sets(flagged, write_case_file):
    """float16 SCALED_ELU: ONNX Runtime's DirectML provider compiles it with ALLOW_HALF_PRECISION_COMPUTATION,
    and with DISABLE_META_COMMANDS under disable_metacommands=true; other choices are not reachable."""
    from conformance.backends import dml_wine
    lane, reason = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({reason})")
    loaded = cases(write_case_file, f"[NONE, {ALLOW_HALF_PRECISION}, '{BOTH}']", "float16")
    backend = backends.create("dml-wine", {"disable_metacommands": "true"}, announce=lambda m: None)
    try:
        records = _run(backend, loaded)
    finally:
        backend.close()
    assert [r["status"] for r in records] == [statuses.NOT_REACHABLE, statuses.NOT_REACHABLE, statuses.PASS]
    assert records[2]["execution_flags"] == BOTH and records[2]["placement"] == {"Selu_0": "DmlExecutionProvider"}
    assert records[0]["message"].startswith(f"ExecutionFlags NONE: ONNX Runtime's DirectML provider compiles "
                                            f"this operator with {BOTH} ")


def test_dml_wine_hands_disable_metacommands_to_the_provider(flagged, write_case_file):
    """The provider parses the option itself (its ParseBoolean refuses a value it cannot read): the
    DISABLE_META_COMMANDS cases dml-wine runs are the provider's, not a name the harness only records."""
    from conformance.backends import dml_wine
    lane, reason = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({reason})")
    backend = backends.create("dml-wine", {"disable_metacommands": "maybe"}, announce=lambda m: None)
    try:
        (record,) = _run(backend, cases(write_case_file, "NONE", "float32"))
    finally:
        backend.close()
    assert record["status"] == statuses.ERROR
    assert "ParseBoolean" in record["message"] and "'disable_metacommands' should be 'True' or 'False'" in record["message"]


def test_the_command_line_refuses_a_bad_value_with_exit_code_2_and_one_line(write_case_file):
    """REDUCE's spec takes ExecutionFlags: a case file giving it a value DirectML.h has no name for runs nothing."""
    path = write_case_file("""\
operator: REDUCE
groups:
  - dtypes: [float32]
    shapes: [[2, 3]]
    params:
      Function: DML_REDUCE_FUNCTION_SUM
      Axes: {array: [1]}
      ExecutionFlags: ALLOW_HALF
    inputs:
      - {kind: uniform}
""")
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "cpu", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].strip() == (
        f"{path}:8: groups[0].params.ExecutionFlags: ExecutionFlags must be one of "
        f"{', '.join(EXECUTION_FLAG_CHOICES)}, not 'ALLOW_HALF'")
