"""What the command says and when: exact operator selection, suggestions for a misspelt name, the
run's own usage, the backends it lists, the wait before a run, and the lines after it."""
import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from needs import missing

from conformance.run.results import read_results

ROOT = Path(__file__).resolve().parents[1]
CELU_FLOAT32_RANK1 = "ACTIVATION_CELU/float32/rank1[7]/Alpha=1/"  # one case


def conformance(*args, cwd=None, env=None, merged=False):
    """The command in a fresh process; merged: stderr into stdout, unbuffered, in the order written."""
    environment = {**os.environ, **(env or {}), **({"PYTHONUNBUFFERED": "1"} if merged else {})}
    return subprocess.run([sys.executable, "-m", "conformance", *map(str, args)], capture_output=not merged,
                          stdout=subprocess.PIPE if merged else None,
                          stderr=subprocess.STDOUT if merged else None, text=True, cwd=cwd, env=environment)


def test_op_selects_one_operator_where_k_takes_every_name_that_begins_with_it():
    by_k = conformance("list", "-k", "ELEMENT_WISE_ADD").stdout.split()
    by_op = conformance("list", "--op", "ELEMENT_WISE_ADD").stdout.split()
    assert by_op and all(case_id.startswith("ELEMENT_WISE_ADD/") for case_id in by_op)
    assert set(by_op) < set(by_k) and any(case_id.startswith("ELEMENT_WISE_ADD1/") for case_id in by_k)
    both = conformance("list", "--op", "dml_element_wise_add_operator_desc", "--op", "ELEMENT_WISE_ADD1",
                       "-k", "float16").stdout.split()
    assert both and {c.split("/")[0] for c in both} == {"ELEMENT_WISE_ADD", "ELEMENT_WISE_ADD1"}
    assert all("/float16/" in case_id for case_id in both)


def test_run_takes_op_and_says_which_options_selected_nothing(tmp_path):
    done = conformance("run", "--backend", "cpu", "--quiet", "--op", "ACTIVATION_CELU", "-k", "float32 and rank1[7]",
                       "--results", tmp_path / "r.jsonl")
    assert done.returncode in (0, 1), done.stderr
    assert {r["op"] for r in read_results(tmp_path / "r.jsonl")[1]} == {"ACTIVATION_CELU"}
    empty = conformance("run", "--backend", "cpu", "--op", "ACTIVATION_CELU", "-k", "int8", "--results",
                        tmp_path / "e.jsonl")
    assert empty.returncode == 2 and empty.stderr == ("error: no cases selected by --op ACTIVATION_CELU and "
                                                      "-k 'int8'\n"), empty.stderr


@pytest.mark.parametrize("args, line", [
    (["list", "--op", "ELEMENT_WISE_ADDD"], "error: --op unknown operator 'ELEMENT_WISE_ADDD'; did you mean "
                                            "ELEMENT_WISE_ADD, ELEMENT_WISE_ADD1"),
    (["specs", "celu"], "error: unknown operator 'celu'; did you mean ACTIVATION_CELU?"),
    (["run", "--backend", "dml-wnie", "-k", CELU_FLOAT32_RANK1], "error: backend unavailable: unknown backend "
                                                                 "'dml-wnie'; did you mean dml-wine"),
])
def test_a_misspelt_name_gets_the_closest_names_in_one_short_line(args, line, tmp_path):
    done = conformance(*args, *(["--results", tmp_path / "r.jsonl"] if args[0] == "run" else []))
    assert done.returncode in (2, 3) and done.stderr.startswith(line), done.stderr
    assert done.stderr.count("\n") == 1 and len(done.stderr) < 400, done.stderr


def test_an_option_a_command_does_not_know_gets_that_commands_usage():
    done = conformance("run", "--backnd", "cpu")
    assert done.returncode == 2 and done.stderr.startswith("usage: conformance run "), done.stderr
    assert done.stderr.splitlines()[-1] == ("conformance run: error: unrecognized arguments: --backnd "
                                            "(did you mean --backend?)")  # cpu is taken for a path


def test_run_help_lists_every_registered_backend():
    text = conformance("run", "--help", env={"COLUMNS": "1000"}).stdout  # argparse breaks lines at hyphens
    registered = [entry.name for entry in entry_points(group="dml_conformance.backends")]
    assert {"dml-direct", "webgpu", "cpu-worker"} <= set(registered)
    for name in ["cpu", "dml", "cuda", *registered, "ort:PROVIDER", "python:MODULE:FUNCTION", "auto"]:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), name


def test_validate_counts_in_the_singular_too(tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text("operator: ACTIVATION_CELU\ngroups:\n  - dtypes: [float32]\n    shapes: [[3]]\n"
                   "    inputs:\n      - {kind: uniform}\n")
    assert conformance("validate", one).stdout == "ok: 1 case (ACTIVATION_CELU 1)\n"


def test_the_summary_time_is_the_users_wait_and_a_slow_start_is_said(tmp_path):
    """A backend that takes 1.5 s to start and 1.2 s to stop: each said as it happens, both counted
    in the summary's time."""
    (tmp_path / "slowstart.py").write_text("import time\ntime.sleep(1.5)\nimport oracle\n\n\n"
                                           "def evaluate(*args, **params):\n    return oracle.evaluate(*args, **params)\n"
                                           "\n\nevaluate.close = lambda: time.sleep(1.2)\n")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = conformance("run", "--backend", "python:slowstart:evaluate", "-k", CELU_FLOAT32_RANK1,
                       "--results", tmp_path / "r.jsonl", env=env)
    assert done.returncode == 0, done.stderr
    assert "starting backend python:slowstart:evaluate ...\n" in done.stderr
    assert re.search(r"^backend python:slowstart:evaluate started in 1\.\d s; 1 case to run$", done.stderr, re.M)
    assert "stopping backend python:slowstart:evaluate ...\n" in done.stderr
    waited = float(re.search(r"^1 cases? in ([\d.]+) s", done.stdout, re.M).group(1))
    timing = re.search(r"^time: ([\d.]+) s from the command's start: loading the cases [\d.]+ s, starting the "
                       r"backend ([\d.]+) s, running and verifying the cases [\d.]+ s$", done.stdout, re.M)
    assert 1.5 <= float(timing.group(2)) and 2.7 <= waited and abs(waited - float(timing.group(1))) <= 0.1
    footer = read_results(tmp_path / "r.jsonl")[2]
    assert footer["seconds"] < 1.5 <= footer["backend_start_seconds"] <= footer["wall_seconds"]
    quick = conformance("run", "--backend", "cpu", "-k", CELU_FLOAT32_RANK1, "--results", tmp_path / "q.jsonl")
    assert "starting backend" not in quick.stderr and "stopping" not in quick.stderr  # under a second: silent


def test_a_workers_statistics_come_after_the_summary(tmp_path):
    done = conformance("run", "--backend", "cpu-worker", "-k", CELU_FLOAT32_RANK1, "--quiet", "--results",
                       tmp_path / "r.jsonl", merged=True)
    lines = done.stdout.splitlines()
    stats = [n for n, line in enumerate(lines) if line.startswith("cpu-worker: 1 worker start(s)")]
    summary = [n for n, line in enumerate(lines) if re.match(r"1 cases? in ", line)]
    assert done.returncode == 0 and stats and summary and stats[0] > summary[0], done.stdout


def test_a_default_results_file_replaced_is_said(tmp_path):
    first = conformance("run", "--backend", "cpu", "--quiet", "-k", CELU_FLOAT32_RANK1, cwd=tmp_path)
    assert first.returncode == 0 and "replaced" not in first.stderr, first.stderr
    again = conformance("run", "--backend", "cpu", "--quiet", "-k", CELU_FLOAT32_RANK1, cwd=tmp_path)
    assert again.stderr == ("results: results/cpu.jsonl is replaced by this run's (give --results PATH to keep a "
                            "run's results apart)\n"), again.stderr
    chosen = conformance("run", "--backend", "cpu", "--quiet", "-k", CELU_FLOAT32_RANK1, "--results",
                         "results/cpu.jsonl", cwd=tmp_path)
    assert chosen.stderr == ""  # a path the user gave is the user's to replace


def test_a_refusal_by_directml_points_to_its_explanation(tmp_path):
    """dml-direct on lavapipe refuses float32 ADD of packed tensors whose element count is a multiple
    of 4 (unsupported-required); the run points to where the documentation explains it."""
    from conformance.backends import dml_direct
    from conformance.cli.command import REFUSAL_DOCS
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    done = conformance("run", "--backend", "dml-direct", "--op", "ELEMENT_WISE_ADD", "-k",
                       "float32/rank2[3x4]/defaults/uniform or float32/rank1[11]/defaults/uniform", "--results",
                       tmp_path / "r.jsonl", "--quiet", merged=True)
    records = read_results(tmp_path / "r.jsonl")[1]
    refused = [r for r in records if r["status"] == "unsupported-required" and "refused the description" in r["message"]]
    lines = done.stdout.splitlines()
    notes = [line for line in lines if line.startswith("note: DirectML refused")]
    if refused:
        assert notes == [f"note: DirectML refused 1 required case (e.g. {refused[0]['id']}); why, and the refusals "
                         f"known per device: {REFUSAL_DOCS}"], done.stdout
    else:
        assert not notes, done.stdout  # a device that compiles them: nothing to explain
    stats = [n for n, line in enumerate(lines) if line.startswith("dml-direct: 1 worker start(s)")]
    assert stats and stats[0] > lines.index("results: " + str(tmp_path / "r.jsonl")), done.stdout
    backends_listed = conformance("backends", merged=True)
    assert "dml-direct: available" in backends_listed.stdout and "worker start(s)" not in backends_listed.stdout


def test_the_refusal_explanation_is_where_the_note_says():
    from conformance.cli.command import REFUSAL_DOCS
    named = re.findall(r"(docs/[\w./-]+\.md) \((\w+)\)", REFUSAL_DOCS)
    assert len(named) == 2
    for path, section in named:
        text = (ROOT / path).read_text()
        assert f"## {section}" in text and "E_INVALIDARG" in text
    assert "multiple of 4" in (ROOT / named[1][0]).read_text()
