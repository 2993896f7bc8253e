"""The command line, end to end, on the real ONNX Runtime CPU provider."""
import json
import re
import subprocess
import sys

import pytest

from conformance.run.results import read_results


def conformance(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "conformance", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cpu")
    done = conformance("run", "--backend", "cpu", "--quiet", "--results", folder / "cpu.jsonl",
                       "--markdown", folder / "cpu.md", "--json", folder / "cpu.json",
                       "--save-failures", folder / "repro")
    return done, folder


def test_cpu_run_covers_every_default_case_and_is_not_conformant(cpu_run):
    done, folder = cpu_run
    listed = conformance("list").stdout.split()
    assert done.returncode == 1, done.stderr  # ONNX Runtime's CPU provider misses the DirectML spec
    header, records, footer = read_results(folder / "cpu.jsonl")
    assert [r["id"] for r in records] == listed
    assert header["backend"] == "cpu" and header["provider"] == "CPUExecutionProvider"
    assert footer["cases"] == len(listed) and footer["sessions_created"] < len(listed) / 4
    for key in ("id", "op", "dtype", "shape", "params", "feature_level", "status", "elements",
                "mismatches", "max_ulp", "tolerance", "worst", "backend", "seconds", "seed"):
        assert key in records[0]


def test_cpu_run_finds_the_known_onnx_versus_directml_differences(cpu_run):
    _, folder = cpu_run
    _, records, _ = read_results(folder / "cpu.jsonl")
    status = {r["id"]: r for r in records}
    min_above_max = status["ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=2,Max=-1/uniform[-5,5]"]
    assert min_above_max["status"] == "fail" and min_above_max["worst"][0]["expected"] == 2.0
    assert min_above_max["worst"][0]["actual"] == -1.0
    nan_clip = status["ELEMENT_WISE_CLIP/float32/rank1/Min=-1.5,Max=2.25/specials"]
    assert nan_clip["status"] == "fail" and nan_clip["nan_mismatches"] == 1
    assert status["ACTIVATION_CELU/float16/rank4[2x3x4x5]/Alpha=1/uniform[-10,10]"]["status"] == "not-reachable"


def test_the_summary_and_reports_name_every_operator(cpu_run):
    done, folder = cpu_run
    markdown = (folder / "cpu.md").read_text()
    summary = json.loads((folder / "cpu.json").read_text())
    for op in ("ACTIVATION_CELU", "ACTIVATION_SCALED_ELU", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_CONSTANT_POW"):
        assert op in done.stdout and f"| {op}" in markdown
    assert {row["operator"] for row in summary["operators"]} >= {"ELEMENT_WISE_CLIP"}
    assert re.search(r"\d+ sessions? created", done.stdout)


def test_failures_are_saved_to_reproduce_alone(cpu_run):
    import numpy as np
    _, folder = cpu_run
    saved = folder / "repro" / "ELEMENT_WISE_CLIP_float32_rank4_2x3x4x5_Min=2,Max=-1_uniform_-5,5_"
    tensors = np.load(saved / "tensors.npz")
    assert tensors["input"].shape == (2, 3, 4, 5) and (tensors["expected"] == 2.0).all()
    assert (saved / "model.onnx").stat().st_size > 0 and json.loads((saved / "case.json").read_text())["seed"]


def test_the_python_oracle_self_check_is_conformant(tmp_path):
    done = conformance("run", "--backend", "python:oracle:evaluate", "--quiet", "--results", tmp_path / "r.jsonl")
    assert done.returncode == 0, done.stdout + done.stderr
    _, records, _ = read_results(tmp_path / "r.jsonl")
    assert {r["status"] for r in records} == {"pass"} and {r["max_ulp"] for r in records} == {0}


def test_auto_says_what_it_chose_and_never_claims_directml(tmp_path):
    done = conformance("run", "--backend", "auto", "--quiet", "-k", "ACTIVATION_CELU/ and float32 and rank1[7]",
                       "--results", tmp_path / "r.jsonl")
    assert "backend auto: chose" in done.stderr
    header, _, _ = read_results(tmp_path / "r.jsonl")
    chosen = done.stderr.split("chose ", 1)[1].split()[0]
    assert header["backend"] == chosen
    if chosen == "cpu":
        assert "does NOT test DirectML" in done.stderr
    else:
        assert chosen in ("dml", "dml-wine")
        assert header["provider"] == "DmlExecutionProvider"


def test_k_selects_and_an_empty_selection_is_a_usage_error(tmp_path):
    done = conformance("list", "-k", "CLIP and int8 and not specials")
    assert done.returncode == 0 and done.stdout and all("int8" in line for line in done.stdout.split())
    empty = conformance("run", "--backend", "cpu", "-k", "NO_SUCH_CASE", "--results", tmp_path / "r.jsonl")
    assert empty.returncode == 2 and "no cases selected" in empty.stderr


def test_unknown_backend_exits_3():
    done = conformance("run", "--backend", "nonesuch", "-k", "CELU")
    assert done.returncode == 3 and "unknown backend 'nonesuch'" in done.stderr


def test_results_already_written_survive_a_backend_that_kills_the_process(tmp_path):
    results = tmp_path / "r.jsonl"
    done = conformance("run", "--backend", "python:faults:die_at_clip", "--quiet", "--results", results,
                       cwd=None)
    assert done.returncode == 70
    header, records, footer = read_results(results)
    assert header["backend"] == "python:faults:die_at_clip" and footer is None
    first_clip = conformance("list", "-k", "ELEMENT_WISE_CLIP").stdout.split()[0]
    listed = conformance("list").stdout.split()
    before_clip = listed[:listed.index(first_clip)]  # every case file that sorts before CLIP's
    assert len(records) > 100 and [r["id"] for r in records] == before_clip[:len(records)]
    assert len(before_clip) - len(records) < 64  # only the batch in flight is missing
    assert first_clip in header["unfinished"] and len(header["unfinished"]) <= 64
    report = conformance("report", results)
    assert f"{results} is partial: it has no footer" in report.stderr and "ACTIVATION_CELU" in report.stdout
    assert [line.strip() for line in report.stderr.splitlines()[1:]] == header["unfinished"]


def test_report_names_every_case_an_interrupted_run_never_finished(tmp_path):
    results = tmp_path / "r.jsonl"
    done = conformance("run", "--backend", "python:faults:interrupt_at_clip", "--quiet", "-k",
                       "float32 and not exhaustive", "--results", results)
    assert done.returncode == 130, done.stderr  # Ctrl-C at the first CLIP case
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert lines[-1]["type"] == "footer" and lines[-1]["interrupted"] is True
    finished = {line["id"] for line in lines if line["type"] == "case"}
    in_flight = [line for line in lines if line["type"] == "in-flight"][-1]["ids"]
    never = [case_id for case_id in in_flight if case_id not in finished]
    assert never and any(case_id.startswith("ELEMENT_WISE_CLIP/") for case_id in never)
    report = conformance("report", results, "--html", tmp_path / "r.html")
    assert report.returncode == 0, report.stderr
    first, *listed = report.stderr.splitlines()
    assert first == (f"warning: {results} is partial: the run was interrupted; {len(never)} case(s) the backend "
                     "was running never finished:")
    assert [line.strip() for line in listed if line.startswith("  ")] == never
    assert never[-1] in (tmp_path / "r.html").read_text()


def test_specs_prints_every_feature_level_table_of_clip():
    done = conformance("specs", "ELEMENT_WISE_CLIP")
    assert done.returncode == 0
    for level in ("5_0", "3_0", "2_1", "1_0"):
        assert f"DML_FEATURE_LEVEL_{level}" in done.stdout
    assert "INT64, UINT64" in done.stdout and "Min > Max" in done.stdout
    assert "family: element-wise" in done.stdout


def test_backends_lists_cpu_as_available():
    done = conformance("backends")
    assert done.returncode == 0 and "cpu: available" in done.stdout and "auto ->" in done.stdout


def test_tolerance_override_from_the_command_line(tmp_path):
    done = conformance("run", "--backend", "python:faults:off_by_tolerance_plus_one", "--quiet",
                       "-k", "ACTIVATION_CELU/float32/rank4[2x3x4x5]/Alpha=1/uniform",
                       "--tolerance", "ACTIVATION_CELU:float32=19", "--tolerance-model", "ulp",
                       "--results", tmp_path / "r.jsonl")
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("expression", ["CLIP and (float32", "(CLIP", "CLIP and", "not", "CLIP )", "()", "a b"])
@pytest.mark.parametrize("command", ["list", "run"])
def test_a_malformed_k_expression_is_one_line_naming_it_and_exit_2(command, expression, tmp_path):
    extra = ["--backend", "cpu", "--results", tmp_path / "r.jsonl"] if command == "run" else []
    done = conformance(command, "-k", expression, *extra)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: -k {expression!r}: "), done.stderr
    assert not (tmp_path / "r.jsonl").exists()


def cli_with(patch: str, *args):
    """The command line with a fault planted first (patch: Python run before main)."""
    script = f"import sys\n{patch}\nfrom conformance.cli.command import main\nsys.exit(main({[str(a) for a in args]!r}))"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


@pytest.fixture
def results_file(tmp_path):
    from test_reports_fixtures import write_results
    return write_results(tmp_path / "known.jsonl")


@pytest.mark.parametrize("error", ["KeyError('status')", "ValueError('cannot convert')"])
def test_a_harness_bug_is_its_traceback_and_exit_4_not_bad_input(error, results_file):
    done = cli_with(f"import reports.summary\ndef text(*a): raise {error}\nreports.summary.text = text",
                    "report", results_file)
    assert done.returncode == 4, done.stderr
    assert "Traceback (most recent call last)" in done.stderr and error.split("(")[0] in done.stderr
    assert "a bug in the harness" in done.stderr.splitlines()[-1]


def test_a_broken_module_of_the_harness_is_a_bug_not_a_missing_command(results_file):
    done = cli_with("sys.modules['conformance.cli.report_commands'] = None  # its import now fails", "report", results_file)
    assert done.returncode == 4 and "Traceback" in done.stderr and "conformance.cli.report_commands" in done.stderr, done.stderr


@pytest.mark.parametrize("args", [["specs", "NO_SUCH_OP"], ["list", "--tolerance", "float16=x"],
                                  ["run", "--feature-level", "9_9", "-k", "CELU"],
                                  ["run", "--backend", "cpu-worker", "--provider-option", "max_nodes=many"],
                                  ["run", "--backend", "cpu-worker", "--provider-option", "transport=pigeon"]])
def test_bad_input_is_one_line_and_exit_2(args, tmp_path):
    done = conformance(*args, "--results", tmp_path / "r.jsonl") if args[0] == "run" else conformance(*args)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "r.jsonl").exists()


OUTPUT_OPTIONS = ["--results", "--html", "--markdown", "--junit", "--json", "--save-failures"]


@pytest.mark.parametrize("option", OUTPUT_OPTIONS)
def test_an_unwritable_output_stops_the_run_before_anything_starts(option, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker / "out"
    results = [] if option == "--results" else ["--results", tmp_path / "r.jsonl"]
    done = conformance("run", "--backend", "cpu", "-k", "CLIP and int8 and rank1", "--quiet", option, target, *results)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr  # no summary: nothing ran
    assert done.stderr == f"error: {option} {target}: cannot write there: {blocker} is not a folder\n"
    assert list(tmp_path.iterdir()) == [blocker]


def test_save_failures_through_a_symbolic_link_is_refused_and_a_planted_case_link_not_followed(tmp_path):
    """As root, a link in a shared folder would send the saved failures anywhere (/etc): the folder
    given as a link is one line and exit 2, before anything runs; a link planted where a failing
    case's folder will go is not followed (the record says so), the other failures are saved."""
    def run(folder):
        return conformance("run", "--backend", "python:faults:all_zeros", "-k", "ACTIVATION_CELU and float32 and "
                           "rank1", "--quiet", "--results", tmp_path / "r.jsonl", "--save-failures", folder)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "repro"
    link.symlink_to(elsewhere)
    done = run(link)
    assert done.returncode == 2 and done.stderr.startswith(f"error: --save-failures {link}: a symbolic link"), done.stderr
    assert done.stderr.count("\n") == 1 and list(elsewhere.iterdir()) == [] and not (tmp_path / "r.jsonl").exists()
    repro = tmp_path / "real-repro"
    repro.mkdir()
    planted = repro / "ACTIVATION_CELU_float32_rank1_Alpha=1_specials"
    planted.symlink_to(elsewhere)
    done = run(repro)
    assert done.returncode == 1, done.stderr
    assert list(elsewhere.iterdir()) == [], "the planted link was followed"
    _, records, _ = read_results(tmp_path / "r.jsonl")
    saved = {r["id"]: r.get("repro") for r in records if r["status"] == "fail"}
    assert any(str(v).startswith("not saved: ") and "symbolic link" in v for v in saved.values()), saved
    assert sum(1 for v in saved.values() if v and not v.startswith("not saved")) >= 1, saved


def test_a_report_file_where_a_folder_is_is_refused_before_running(tmp_path):
    done = conformance("run", "--backend", "cpu", "-k", "CLIP and int8 and rank1", "--quiet",
                       "--results", tmp_path / "r.jsonl", "--html", tmp_path)
    assert done.returncode == 2 and done.stderr == f"error: --html {tmp_path}: cannot write there: it is a folder\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command, option", [("report", "--html"), ("report", "--markdown"), ("report", "--junit"),
                                             ("diff", "--html"), ("compare", "--markdown")])
def test_report_commands_refuse_an_unwritable_output_in_one_line(command, option, results_file):
    target = results_file / "out"
    inputs = [results_file] if command == "report" else [results_file, results_file]
    done = conformance(command, *inputs, option, target)
    assert done.returncode == 2 and done.stderr == (f"error: {option} {target}: cannot write there: "
                                                    f"{results_file} is not a folder\n"), done.stderr


@pytest.mark.parametrize("args", [["list"], ["list", "-v"], ["specs"],
                                  ["run", "--backend", "cpu", "-k", "CLIP and int8", "--quiet"]])
def test_a_reader_that_goes_away_ends_the_output_quietly(args, tmp_path):
    """`conformance list | head`: the pipe's reader is gone before the output is written."""
    import os
    read_end, write_end = os.pipe()
    os.close(read_end)
    extra = ["--results", tmp_path / "r.jsonl"] if args[0] == "run" else []
    done = subprocess.run([sys.executable, "-m", "conformance", *args, *map(str, extra)], stdout=write_end,
                          stderr=subprocess.PIPE, text=True)
    os.close(write_end)
    assert done.returncode == 141 and done.stderr == "", done.stderr  # 128 + SIGPIPE, as Unix tools end
    if args[0] == "run":
        assert read_results(tmp_path / "r.jsonl")[2]["cases"] > 0  # the results were written in full


def test_a_broken_pipe_that_is_not_standard_output_is_a_harness_bug():
    done = cli_with("import conformance.cli.command as cli\ndef lost(args): raise BrokenPipeError(32, 'Broken pipe')\n"
                    "cli.cmd_list = lost", "list")
    assert done.returncode == 4 and "BrokenPipeError" in done.stderr, done.stderr


def test_sigterm_is_handled_as_ctrl_c_with_its_own_exit_code(tmp_path):
    """SIGTERM mid-run: the records so far and the footer are written, the run says so and exits 143
    (README's exit-code table), not a silent death."""
    import json
    import os
    import signal
    import time
    results = tmp_path / "run.jsonl"
    run = subprocess.Popen([sys.executable, "-m", "conformance", "run", "--backend", "python:faults:slow", "-k",
                            "ACTIVATION_CELU and float32", "--quiet", "--results", str(results)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(__file__), os.environ.get("PYTHONPATH")]))})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not results.exists() or '"in-flight"' not in results.read_text()):
        time.sleep(0.05)
    time.sleep(0.5)  # inside the batch: 38 cases of 0.1 s each
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 143, (run.returncode, err[-2000:])
    assert "terminated (SIGTERM)" in err, err[-2000:]
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert lines[-1]["type"] == "footer" and lines[-1]["interrupted"] is True, lines[-1]
    header, records, footer = read_results(results)
    assert footer["interrupted"] and header.get("unfinished"), header  # the cases it was running, named


def test_a_second_run_on_the_same_results_file_is_refused_and_the_first_loses_nothing(tmp_path):
    import os
    import time
    results = tmp_path / "run.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(__file__),
                                                                     os.environ.get("PYTHONPATH")]))}
    # 184 cases at 0.1 s each: the first run still writes while the second loads the whole catalogue
    command = [sys.executable, "-m", "conformance", "run", "--backend", "python:faults:slow", "-k",
               "ACTIVATION_CELU or ACTIVATION_ELU", "--quiet", "--results", str(results)]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not results.exists() or '"header"' not in results.read_text()):
        time.sleep(0.05)
    second = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    out, err = first.communicate(timeout=120)
    assert second.returncode == 2, (second.returncode, second.stderr[-2000:])
    assert second.stderr == f"error: --results {results}: another run is writing it now; wait for it, or give " \
                            "another path\n", second.stderr
    assert first.returncode == 0, err[-2000:]
    header, records, footer = read_results(results)
    assert footer is not None and footer["cases"] == len(records) > 10


NON_FINITE_CASES = """operator: ELEMENT_WISE_CLIP
groups:
  - name: bounds and values a driver engineer writes
    dtypes: [float32]
    shapes: [[4]]
    params:
      Min: [.nan, -.inf]
      Max: [.inf]
    inputs:
      - {kind: values, values: [1.0, .nan, .inf, -.inf]}
"""


def test_nan_and_infinity_in_a_case_file_run_and_come_back_from_the_results(tmp_path):
    """NaN and infinities in fields and values: the run records them (strict JSON, README's "Results
    files" names: "NaN", "Infinity", "-Infinity"), read_results gives the floats back, and the
    reports and diff read them."""
    import math
    cases = tmp_path / "nonfinite.yaml"
    cases.write_text(NON_FINITE_CASES)
    results = tmp_path / "run.jsonl"
    done = conformance("run", "--backend", "cpu", "--quiet", "--results", results, "--save-failures",
                       tmp_path / "saved", cases)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    for line in results.read_text().splitlines():
        json.loads(line, parse_constant=lambda name: pytest.fail(f"bare {name} in the results: not JSON"))
    header, records, footer = read_results(results)
    assert footer is not None and len(records) == 2
    by_min = {repr(r["params"]["Min"]): r for r in records}
    assert set(by_min) == {"nan", "-inf"}, by_min.keys()
    assert all(r["params"]["Max"] == math.inf for r in records)
    values = records[0]["generator"]["values"]
    assert values[0] == 1.0 and math.isnan(values[1]) and values[2:] == [math.inf, -math.inf], values
    # Direct3D's min and max return the number, not the NaN: clip(NaN) is Max, whatever the backend says
    worst = [w for r in records for w in r.get("worst", [])]
    assert all(w["expected"] == "inf" for w in worst if w["input"] == "nan"), worst
    for saved in (tmp_path / "saved").glob("*/case.json"):
        json.loads(saved.read_text(), parse_constant=lambda name: pytest.fail(f"bare {name} in {saved}"))
    for args in (("report", results, "--markdown", tmp_path / "r.md", "--html", tmp_path / "r.html"),
                 ("diff", results, results)):
        done = conformance(*args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr[-2000:])
    assert "Min=nan" in (tmp_path / "r.md").read_text()


def test_the_workers_frames_carry_nan_and_infinity():
    import math
    import socket
    from conformance.worker import protocol
    a, b = socket.socketpair()
    with a, b:
        protocol.send(a, {"params": {"Min": math.nan, "Max": -math.inf, "Mode": "keep"}})
        header, _ = protocol.recv(b)
    assert math.isnan(header["params"]["Min"]) and header["params"]["Max"] == -math.inf, header
    assert header["params"]["Mode"] == "keep"


def _file_size_limit(limit):
    """A child whose files cannot grow past limit bytes (a full disk for every file it writes):
    writes past it fail with EFBIG, SIGXFSZ ignored as a full disk sends none."""
    def apply():
        import resource
        import signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("option", ["--results", "--html", "--markdown", "--junit", "--json"])
def test_an_output_on_dev_full_is_one_line_and_exit_5(option, tmp_path):
    extra = [] if option == "--results" else ["--results", tmp_path / "r.jsonl"]
    done = conformance("run", "--backend", "cpu", "--quiet", "-k", "ACTIVATION_CELU and float32 and rank4",
                       *extra, option, "/dev/full")
    assert done.returncode == 5, (done.returncode, done.stderr[-3000:])
    assert done.stderr.startswith("error: /dev/full: cannot write") and "No space left" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    if option != "--results":  # the results were complete before the report failed
        header, records, footer = read_results(tmp_path / "r.jsonl")
        assert footer is not None and records


def test_a_disk_that_fills_mid_run_keeps_the_records_written_and_leaves_no_partial_report(tmp_path):
    selection = ["-k", "ACTIVATION_CELU"]
    results = tmp_path / "r.jsonl"
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "cpu", "--quiet", *selection,
                           "--results", results], capture_output=True, text=True, preexec_fn=_file_size_limit(40_000))
    assert done.returncode == 5, (done.returncode, done.stderr[-3000:])
    assert done.stderr.startswith(f"error: {results}: cannot write the results: File too large; the ") \
        and done.stderr.count("\n") == 1, done.stderr
    header, records, footer = read_results(results)  # valid: what was flushed, a cut last line skipped
    assert footer is None and len(records) > 5 and results.stat().st_size <= 40_000
    # the results fit, the HTML report (128 KB) does not: no report is left, and the one before it stays
    html = tmp_path / "r.html"
    html.write_text("the report of an earlier run")
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "cpu", "--quiet", *selection,
                           "--results", results, "--html", html], capture_output=True, text=True,
                          preexec_fn=_file_size_limit(100_000))
    assert done.returncode == 5 and done.stderr == f"error: {html}: cannot write it: File too large; the " \
                                                   "file is as it was\n", done.stderr
    assert html.read_text() == "the report of an earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.jsonl"]
    assert read_results(results)[2] is not None  # the results themselves were whole


def test_ctrl_c_while_the_backend_closes_keeps_the_footer(tmp_path):
    """The run is over, the backend is shutting down (slowly), Ctrl-C: the footer is already written,
    so the report does not call the run a crash."""
    import os
    import signal
    import time
    results, closing = tmp_path / "run.jsonl", tmp_path / "closing"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(__file__),
                                                                     os.environ.get("PYTHONPATH")])),
           "DMLC_TEST_CLOSING": str(closing)}
    run = subprocess.Popen([sys.executable, "-m", "conformance", "run", "--backend", "python:faults:slow_to_close",
                            "-k", "ACTIVATION_CELU and float32", "--quiet", "--results", str(results)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while run.poll() is None and time.monotonic() < deadline and not closing.exists():  # in the close
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, (run.returncode, err[-2000:])
    header, records, footer = read_results(results)
    assert footer is not None and footer["cases"] == len(records) > 10 and not footer["interrupted"], footer
    done = conformance("report", results)
    assert done.returncode == 0 and "did not finish" not in done.stdout + done.stderr, done.stdout[-2000:]


def test_readme_lists_every_exit_code_and_no_other():
    """README's exit-code table and conformance/cli/exitcodes.py name the same codes."""
    import re
    from pathlib import Path
    from conformance.cli import exitcodes
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| exit code | meaning |"):]
    table = table[:table.index("\n\n")]
    listed = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.M)}
    codes = {value for name, value in vars(exitcodes).items() if name.isupper()}
    assert listed == codes, (sorted(listed), sorted(codes))
