"""The pytest plugin, through pytester, on ONNX Runtime's CPU provider."""
import json
import re
import subprocess
import sys
from pathlib import Path

import onnx  # noqa: F401  imported here, before pytester's in-process runs: they drop the modules
import onnxruntime  # noqa: F401  they import from sys.modules, and these C extensions abort when loaded twice
import pytest
from test_reports_fixtures import conformance

from conformance.backends import ort as _ort  # noqa: F401  (likewise)

from conformance.caseset.caseload import SHIPPED_CASES, source_file
from conformance.run.results import read_results

CLIP_FILE = """\
operator: ELEMENT_WISE_CLIP
groups:
  - name: floats
    dtypes: [float32]
    shapes: [[2, 3, 4, 5]]
    params:
      Min: [-1.0, 2.0]
      Max: [1.0, -1.0]
    inputs:
      - {kind: uniform, low: -5, high: 5}
  - name: int16 (the CPU provider has no int16 Clip)
    dtypes: [int16]
    shapes: [[2, 3, 4, 5]]
    inputs:
      - {kind: uniform, low: -100, high: 100}
  - name: ScaleBias
    dtypes: [float32]
    shapes: [[6]]
    params:
      ScaleBias: [{Scale: 2.0, Bias: 1.0}]
    inputs:
      - {kind: uniform, low: -5, high: 5}
"""
PASS_1 = "ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=-1,Max=1/uniform[-5,5]"
PASS_2 = "ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=-1,Max=-1/uniform[-5,5]"
FAIL_1 = "ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=2,Max=1/uniform[-5,5]"
FAIL_2 = "ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=2,Max=-1/uniform[-5,5]"
INT16 = "ELEMENT_WISE_CLIP/int16/rank4[2x3x4x5]/defaults/uniform[-100,100]"
SCALE_BIAS = "ELEMENT_WISE_CLIP/float32/rank1[6]/Scale=2,Bias=1/uniform[-5,5]"
ALL = [PASS_1, PASS_2, FAIL_1, FAIL_2, INT16, SCALE_BIAS]


@pytest.fixture
def cases_dir(pytester):
    pytester.makefile(".yaml", **{"cases/clip": CLIP_FILE})
    return pytester.path / "cases"


def outcomes(result) -> dict:
    """{case id: outcome} from an in-process run's reports ('xfailed' and 'xpassed' told apart)."""
    found = {}
    recorder = getattr(result, "reprec", result)  # runpytest result or inline_run recorder
    for report in recorder.getreports("pytest_runtest_logreport"):
        if report.when == "call" or report.outcome != "passed":
            outcome = report.outcome
            if hasattr(report, "wasxfail"):
                outcome = "xfailed" if report.skipped else "xpassed"
            found[report.nodeid.split("::", 1)[1]] = outcome
    return found


def test_case_files_are_collected_and_other_yaml_is_not(pytester, cases_dir):
    pytester.makefile(".yaml", **{"cases/settings": "name: not a case file\noperator_notes: none\n"})
    pytester.makefile(".yml", **{"cases/nested": "config:\n  operator: ELEMENT_WISE_CLIP\n"})
    result = pytester.runpytest("cases", "--collect-only", "-q", "-p", "no:cacheprovider")
    lines = [line for line in result.outlines if "::" in line]
    assert lines == [f"cases/clip.yaml::{case_id}" for case_id in ALL]
    assert result.ret == pytest.ExitCode.OK


def test_statuses_map_to_outcomes_with_the_reason(pytester, cases_dir):
    result = pytester.inline_run("cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider")
    assert outcomes(result) == {PASS_1: "passed", PASS_2: "passed", FAIL_1: "failed", FAIL_2: "failed",
                                INT16: "failed", SCALE_BIAS: "skipped"}
    skipped = [r for r in result.getreports("pytest_runtest_logreport") if r.skipped][0]
    path, line, reason = skipped.longrepr
    assert Path(path).name == "clip.yaml" and line == 16  # the group's line in the case file
    assert reason.startswith("Skipped: not-reachable:") and "ScaleBias" in reason
    # at a level that does not require int16, the refusal is a skip, not a failure
    lower = pytester.inline_run("cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider",
                                "--conformance-feature-level", "2_0", "-k", "int16")
    assert outcomes(lower) == {INT16: "skipped"}


def test_a_failure_reads_as_the_mismatch_summary(pytester, cases_dir):
    result = pytester.runpytest(f"cases/clip.yaml::{FAIL_1}", f"cases/clip.yaml::{INT16}",  # by node id
                                "--conformance-backend", "cpu", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    text = result.stdout.str()
    block = text[text.index("Min=2,Max=1/uniform[-5,5] _"):]
    assert re.search(r"^fail: Elements outside the Direct3D rules: 120 / 120 \(120 outside their interval, "
                     r"\d+ breaking a rule; 0 lowering-defined; max \d+ ULP\)$", block, re.M)
    assert re.search(r"^  at \(0, 0, 0, 0\): input [-\d.]+, expected 2\.0, actual 1\.0, interval \[2\.0, 2\.0\] "
                     r"\((outside|range), \d+ ULP\)$", block, re.M)
    assert "rerun: conformance run --backend cpu --seed 0 -k 'ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=2,Max=1" \
           in block
    assert "unsupported-required: unsupported, but required at this feature level (from FL 2_1): " \
           "[ONNXRuntimeError]" in text
    assert "Traceback" not in text and "pytest_plugin.py" not in text


def test_expectations_make_known_failures_xfail_and_catch_a_pass(pytester, cases_dir):
    pytester.makefile(".txt", expectations=f"# known failures\n{FAIL_1}  # Min above Max: ONNX returns Max\n"
                                           f"{PASS_1}\n")
    result = pytester.inline_run("cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider",
                                 "--conformance-expectations", "expectations.txt")
    found = outcomes(result)
    assert found[FAIL_1] == "xfailed" and found[FAIL_2] == "failed"
    assert found[PASS_1] == "failed"  # strict: a known failure that passes must be looked at
    xpass = [r for r in result.getreports("pytest_runtest_logreport") if PASS_1 in r.nodeid and r.failed][0]
    assert "XPASS(strict)" in str(xpass.longrepr)
    lenient = pytester.inline_run("cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider",
                                  "--conformance-expectations", "expectations.txt",
                                  "--conformance-expectations-lenient")
    assert outcomes(lenient)[PASS_1] == "xpassed"


def test_expectations_in_yaml_and_stale_entries(pytester, cases_dir):
    pytester.makefile(".yaml", known=f"expected_failures:\n  {json.dumps(FAIL_2)}: NaN rule\n"
                                     f"  ELEMENT_WISE_CLIP/float32/gone: was renamed\n")
    result = pytester.runpytest("cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider",
                                "--conformance-expectations", "known.yaml", "-rx", "-k", "float32")
    result.assert_outcomes(passed=2, failed=1, xfailed=1, skipped=1, warnings=1)
    result.stdout.fnmatch_lines(["*known.yaml: 1 listed case(s) match no collected case*gone*",
                                 "*XFAIL*Min=2,Max=-1*NaN rule (known failure, listed in known.yaml)*"])


def test_a_bad_case_file_is_a_collection_error_naming_file_and_line(pytester, cases_dir):
    pytester.makefile(".yaml", **{"cases/bad": "operator: ELEMENT_WISE_CLIP\ngroups:\n  - dtypes: [float32]\n"
                                                "    shapes: [[2, 2]]\n    inputs:\n      - {kind: uniform, "
                                                "low: 5, high: -5}\n"})
    result = pytester.runpytest("cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED  # pytest stops on collection errors
    result.stdout.fnmatch_lines(["*ERROR collecting cases/bad.yaml*", "*bad.yaml:6: *uniform low 5 is above high -5*"])
    assert "Traceback" not in result.stdout.str()


def test_bad_options_are_usage_errors(pytester, cases_dir):
    result = pytester.runpytest("cases", "--conformance-feature-level", "9_9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown feature level '9_9'" in result.stderr.str()


def test_markers_select_by_data_type_operator_and_level(pytester, cases_dir):
    result = pytester.runpytest("cases", "--collect-only", "-q", "-p", "no:cacheprovider", "-m",
                                "element_wise_clip and int16 and fl_2_1", "--strict-markers")
    assert [line for line in result.outlines if "::" in line] == [f"cases/clip.yaml::{INT16}"]


def test_last_failed_and_exit_first(pytester, cases_dir):
    first = pytester.runpytest("cases", "--conformance-backend", "cpu")
    first.assert_outcomes(passed=2, failed=3, skipped=1)
    again = pytester.runpytest("cases", "--conformance-backend", "cpu", "--lf")
    again.assert_outcomes(failed=3)
    stop = pytester.runpytest("cases", "--conformance-backend", "cpu", "-x", "-p", "no:cacheprovider")
    stop.assert_outcomes(passed=2, failed=1)


def test_one_backend_per_session_closed_at_the_end(pytester, cases_dir):
    pytester.makeconftest("""
        import conformance.backends as backends
        from conformance.backends.ort import OrtBackend
        events = []
        original_create, original_close = backends.create, OrtBackend.close
        def create(*args, **kwargs):
            events.append("create")
            return original_create(*args, **kwargs)
        def close(self):
            events.append("close")
            return original_close(self)
        backends.create, OrtBackend.close = create, close
        def pytest_unconfigure(config):
            backends.create, OrtBackend.close = original_create, original_close
            print("EVENTS", events)
    """)
    result = pytester.runpytest("cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=2, failed=3, skipped=1)
    result.stdout.fnmatch_lines(["EVENTS ['create', 'close']"])


def test_an_unavailable_backend_fails_every_case_with_the_reason(pytester, cases_dir):
    result = pytester.runpytest("cases", "--conformance-backend", "ort:NoSuchExecutionProvider", "-p",
                                "no:cacheprovider", "-k", "float32")
    result.assert_outcomes(failed=5)
    assert result.stdout.str().count("backend unavailable: ort:NoSuchExecutionProvider") >= 5


def test_the_projects_own_test_run_does_not_collect_case_files(pytester, cases_dir):
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    pytester.makefile(".yaml", **{"tests/data/fixture": CLIP_FILE})
    pytester.makepyfile(**{"tests/test_one": "def test_one():\n    pass\n"})
    result = pytester.runpytest("--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == ["tests/test_one.py::test_one"]
    named = pytester.runpytest("cases", "--collect-only", "-q")
    assert len([line for line in named.outlines if "::" in line]) == len(ALL)


def test_results_and_reports_from_xdist_workers(pytester, cases_dir):
    result = pytester.runpytest_subprocess(
        "cases", "--conformance-backend", "cpu", "-p", "no:cacheprovider", "-n", "2",
        "--conformance-results", "out/r.jsonl", "--conformance-html", "out/r.html",
        "--conformance-junit", "out/r.xml", "--conformance-markdown", "out/r.md")
    result.assert_outcomes(passed=2, failed=3, skipped=1)
    header, records, footer = read_results(pytester.path / "out/r.jsonl")
    assert sorted(r["id"] for r in records) == sorted(ALL)
    assert header["backend"] == "cpu" and header["runner"] == "pytest" and footer["cases"] == len(ALL)
    assert header["argv"][0] == "pytest" and "-n" in header["argv"]
    for name in ("r.html", "r.xml", "r.md"):
        assert FAIL_1 in (pytester.path / "out" / name).read_text()


def test_pytest_and_the_cli_give_the_same_verdicts(pytester, tmp_path):
    """The shipped cases, a subset chosen with the same -k on both sides."""
    keyword = "CLIP and (float16 or int16 or uint64) and not exhaustive or CELU and rank1"
    done = conformance("run", "--backend", "cpu", "--quiet", "-k", keyword, "--results", tmp_path / "cli.jsonl")
    assert done.returncode in (0, 1), done.stderr
    cli_header, cli_records, _ = read_results(tmp_path / "cli.jsonl")
    result = pytester.inline_run(str(SHIPPED_CASES), "--conformance-backend", "cpu", "-p", "no:cacheprovider",
                                 "-k", keyword, "--conformance-results", str(tmp_path / "pytest.jsonl"))
    py_header, py_records, py_footer = read_results(tmp_path / "pytest.jsonl")
    # Planned as `conformance run` plans them: one shared session per operator and data type, not
    # one per parameter set (each DirectML session holds 1.5 GB under Wine on lavapipe).
    assert py_footer["sessions_created"] == read_results(tmp_path / "cli.jsonl")[2]["sessions_created"]
    # Both name every case of the files the cases came from, for the reports' rerun commands.
    files = cli_header["case_files"]
    assert set(files) == {source_file(r["source"]) for r in cli_records}
    assert {source: py_header["case_files"][source] for source in files} == files
    cli = {r["id"]: (r["status"], r["max_ulp"], r["mismatches"]) for r in cli_records}
    assert {r["id"]: (r["status"], r["max_ulp"], r["mismatches"]) for r in py_records} == cli
    assert len(cli) > 100 and {s for s, _, _ in cli.values()} >= {"pass", "fail", "unsupported-required",
                                                                    "not-reachable"}
    expected = {"pass": "passed", "fail": "failed", "unsupported-required": "failed", "not-reachable": "skipped",
                "unsupported": "skipped", "error": "failed", "crash": "failed", "timeout": "failed",
                "cpu-fallback": "failed"}
    assert outcomes(result) == {case_id: expected[status] for case_id, (status, _, _) in cli.items()}


def test_the_plugin_is_registered_through_the_entry_point():
    done = subprocess.run([sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True)
    assert "--conformance-backend" in done.stdout and "--conformance-expectations" in done.stdout
    from importlib.metadata import entry_points
    assert [e.value for e in entry_points(group="pytest11") if e.name == "conformance"] == [
        "conformance.cli.pytest_plugin"]


@pytest.mark.parametrize("option", ["--conformance-results", "--conformance-html", "--conformance-markdown",
                                    "--conformance-junit", "--conformance-save-failures"])
def test_an_unwritable_output_is_a_usage_error_before_any_case_runs(pytester, cases_dir, option):
    blocker = pytester.path / "a-file"
    blocker.write_text("")
    result = pytester.runpytest("cases", "--conformance-backend", "cpu", option, blocker / "out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{option} {blocker / 'out'}: cannot write there: {blocker} is not a folder" in result.stderr.str()
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()


UNBALANCED = """\
operator: ELEMENT_WISE_CLIP
groups:
  - name: int16 specials (the CPU provider has no int16 Clip)
    dtypes: [int16]
    shapes: [[3, 4]]
    inputs:
      - {kind: specials}
"""
UNBALANCED_ID = "ELEMENT_WISE_CLIP/int16/rank2[3x4]/defaults/specials"  # a '[' but no ']' at its end


@pytest.mark.parametrize("xdist", [[], ["-n", "1"]])
def test_a_failed_case_is_summarised_under_its_own_id_and_found_again_by_lf(pytester, xdist):
    pytester.makefile(".yaml", **{"cases/unbalanced": UNBALANCED})
    first = pytester.runpytest_subprocess("cases", "--conformance-backend", "cpu", "-rf", *xdist)
    first.assert_outcomes(failed=1)
    summary = [line for line in first.outlines if line.startswith("FAILED ")]
    assert len(summary) == 1 and re.fullmatch(rf"FAILED cases/unbalanced\.yaml::{re.escape(UNBALANCED_ID)}( - .*)?",
                                              summary[0]), summary
    lastfailed = pytester.path / ".pytest_cache/v/cache/lastfailed"
    assert json.loads(lastfailed.read_text()) == {f"cases/unbalanced.yaml::{UNBALANCED_ID}": True}
    again = pytester.runpytest_subprocess("cases", "--conformance-backend", "cpu", "--lf", *xdist)
    again.assert_outcomes(failed=1)
    lower = pytester.runpytest_subprocess("cases", "--conformance-backend", "cpu", "--lf",
                                          "--conformance-feature-level", "2_0", *xdist)  # not required: a skip
    lower.assert_outcomes(skipped=1)
    assert json.loads(lastfailed.read_text()) == {}  # passed or skipped: no longer a failure


ADD_FILES = {name: f"operator: {name.upper()}\ngroups:\n  - dtypes: [float32]\n    shapes: [[3]]\n"
                   "    inputs:\n      - {kind: uniform}\n" for name in ("element_wise_add", "element_wise_add1")}


def test_conformance_op_takes_one_operator_where_k_takes_every_name_it_begins(pytester):
    pytester.makefile(".yaml", **{f"cases/{name}": text for name, text in ADD_FILES.items()})
    by_k = pytester.runpytest("cases", "--collect-only", "-q", "-p", "no:cacheprovider", "-k", "ELEMENT_WISE_ADD")
    assert len([line for line in by_k.outlines if "::" in line]) == 2
    by_op = pytester.runpytest("cases", "--collect-only", "-q", "-p", "no:cacheprovider",
                               "--conformance-op", "ELEMENT_WISE_ADD")
    assert [line for line in by_op.outlines if "::" in line] == [
        "cases/element_wise_add.yaml::ELEMENT_WISE_ADD/float32/rank1[3]/defaults/uniform[-10,10]"]
    unknown = pytester.runpytest("cases", "--conformance-op", "ELEMENT_WISE_ADDD")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    assert "conformance: --conformance-op unknown operator 'ELEMENT_WISE_ADDD'; did you mean ELEMENT_WISE_ADD, " \
           "ELEMENT_WISE_ADD1" in unknown.stderr.str()


def test_the_plugin_imports_nothing_heavy_until_a_case_file_is_collected(pytester):
    """Registered in every pytest run of the environment, it must not cost a run that has no case file."""
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    pytester.makeconftest("""
        import sys
        def pytest_unconfigure(config):
            heavy = ("numpy", "conformance.specs", "conformance.judge.d3d", "conformance.cli.command")
            with open("loaded.txt", "w") as out:
                out.write(" ".join(name for name in heavy if name in sys.modules))
    """)
    plain = pytester.runpytest_subprocess("test_one.py", "-p", "no:cacheprovider")
    plain.assert_outcomes(passed=1)
    assert (pytester.path / "loaded.txt").read_text() == ""
    pytester.makefile(".yaml", **{"cases/clip": CLIP_FILE})
    used = pytester.runpytest_subprocess("cases", "--collect-only", "-p", "no:cacheprovider")
    assert used.ret == pytest.ExitCode.OK
    assert "conformance.specs" in (pytester.path / "loaded.txt").read_text()
