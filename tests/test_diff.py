"""Run diffs and side-by-side comparisons: ordering, a planted regression, a real one, the renderings."""
import json
import re

import pytest
from test_reports_fixtures import FOOTER, HEADER, conformance, known_records, record, write_results
from test_reports import parse, unescaped_pipes

from conformance.run.results import read_results
from reports import diff, sidebyside

OP = "ELEMENT_WISE_CLIP"


def ids(n):
    return [f"{OP}/float32/rank1[{i}]/x/uniform" for i in range(n)]


def test_changes_are_classified_and_regressions_come_first():
    a_id = ids(10)
    before = [record(a_id[0], "pass"), record(a_id[1], "pass"), record(a_id[2], "fail", max_ulp=7),
              record(a_id[3], "pass", max_ulp=0), record(a_id[4], "fail", max_ulp=9), record(a_id[5], "pass"),
              record(a_id[6], "fail", max_ulp=3), record(a_id[7], "pass"), record(a_id[8], "not-reachable")]
    after = [record(a_id[0], "fail", max_ulp=2), record(a_id[1], "crash"), record(a_id[2], "pass"),
             record(a_id[3], "pass", max_ulp=1), record(a_id[4], "fail", max_ulp=4),
             record(a_id[5], "not-reachable"), record(a_id[6], "fail", max_ulp=300), record(a_id[9], "error"),
             record(a_id[8], "not-reachable")]
    result = diff.diff_records(HEADER, before, FOOTER, HEADER, after, FOOTER)
    listed = [(c.kind, c.id) for c in result.changes]
    assert listed == [
        (diff.REGRESSION, a_id[1]),  # pass -> crash: the biggest jump first
        (diff.REGRESSION, a_id[0]),  # pass -> fail
        (diff.NEW_FAILURE, a_id[9]),
        (diff.ULP_WORSE, a_id[6]),  # fail 3 -> 300 ULP
        (diff.ULP_WORSE, a_id[3]),  # pass 0 -> 1 ULP
        (diff.STATUS_CHANGE, a_id[5]),  # pass -> not reachable: coverage lost, not a failure
        (diff.MISSING, a_id[7]),
        (diff.ULP_BETTER, a_id[4]),
        (diff.IMPROVEMENT, a_id[2]),
    ]
    assert result.unchanged == 1 and [c.id for c in result.regressions] == [a_id[1], a_id[0]]


def test_same_results_have_no_changes(tmp_path):
    path = write_results(tmp_path / "a.jsonl")
    result = diff.diff_files(path, path)
    assert result.changes == [] and result.unchanged == len(known_records())
    done = conformance("diff", path, path)
    assert done.returncode == 0 and "0 regression(s): no changes" in done.stdout


def plant(source, target, case_id, **changes):
    lines = [json.loads(line) for line in source.read_text().splitlines()]
    hit = [line for line in lines if line.get("id") == case_id]
    assert hit, case_id
    hit[0].update(changes)
    target.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return target


@pytest.fixture(scope="module")
def cpu_subset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff")
    done = conformance("run", "--backend", "cpu", "--quiet", "-k", "ACTIVATION_CELU/ and float32",
                       "--results", folder / "cpu.jsonl")
    assert done.returncode in (0, 1), done.stderr
    return folder / "cpu.jsonl"


def test_diff_finds_a_planted_regression(cpu_subset, tmp_path):
    _, records, _ = read_results(cpu_subset)
    victim = [r for r in records if r["status"] == "pass"][3]
    planted = plant(cpu_subset, tmp_path / "b.jsonl", victim["id"], status="fail", max_ulp=41, mismatches=1,
                    message="Mismatched elements: 1 / 7 (tolerance 18 ULP, max 41 ULP)")
    done = conformance("diff", cpu_subset, planted, "--markdown", tmp_path / "d.md", "--html", tmp_path / "d.html")
    assert done.returncode == 1, done.stderr
    assert "1 regression(s)" in done.stdout
    section = done.stdout.split("regression (1):")[1].split("\n\n")[0]
    assert victim["id"] in section and "pass (0 ULP)" in section and "fail (41 ULP)" in section
    text = (tmp_path / "d.md").read_text()
    assert "## Regression (1)" in text and f"`{victim['id']}`" in text
    for block in re.findall(r"(?:^\|.*\n)+", text, re.M):
        assert len({unescaped_pipes(line) for line in block.splitlines()}) == 1
    page = (tmp_path / "d.html").read_text()
    assert 'id="regression"' in page and victim["id"] in page
    assert page.index('id="regression"') < page.index(victim["id"])


def test_diff_finds_a_real_regression_between_two_devices(cpu_subset, tmp_path):
    """The same cases on a device that is 19 ULP off in three elements (tolerance 18)."""
    done = conformance("run", "--backend", "python:faults:off_by_tolerance_plus_one", "--quiet", "-k",
                       "ACTIVATION_CELU/ and float32", "--results", tmp_path / "faulty.jsonl")
    assert done.returncode == 1
    result = diff.diff_files(cpu_subset, tmp_path / "faulty.jsonl")
    assert result.regressions and all(c.status_after == "fail" for c in result.regressions)
    assert sum(c.status_before == "pass" for c in result.regressions) > 10
    assert all(c.ulp_after == 19 for c in result.regressions if c.after["mismatches"] == 3)
    assert conformance("diff", cpu_subset, tmp_path / "faulty.jsonl").returncode == 1
    # the other way round the same cases are improvements, and nothing regresses
    back = conformance("diff", tmp_path / "faulty.jsonl", cpu_subset)
    assert back.returncode == 0 and f"improvement ({len(result.regressions)})" in back.stdout


def test_compare_renders_several_backends_as_one_matrix(cpu_subset, tmp_path):
    conformance("run", "--backend", "python:oracle:evaluate", "--quiet", "-k", "ACTIVATION_CELU/ and float32",
                "--results", tmp_path / "oracle.jsonl")
    conformance("run", "--backend", "python:faults:off_by_tolerance_plus_one", "--quiet", "-k",
                "ACTIVATION_CELU/ and float32", "--results", tmp_path / "faulty.jsonl")
    paths = [cpu_subset, tmp_path / "oracle.jsonl", tmp_path / "faulty.jsonl"]
    result = sidebyside.compare_files(paths)
    assert result.labels[0].startswith("cpu (")  # the backend, and the device it ran on
    assert result.labels[1:] == ["python:oracle:evaluate", "python:faults:off_by_tolerance_plus_one"]
    (op, dtype, level, cells), = result.rows
    assert (op, dtype, level) == ("ACTIVATION_CELU", "float32", "3_0")
    assert cells[1].status == "pass" and cells[2].status == "fail"
    assert result.differing and all(records[1]["status"] == "pass" for _, records in result.differing
                                    if records[1]["status"] != "not-reachable")
    done = conformance("compare", *paths, "--html", tmp_path / "c.html", "--markdown", tmp_path / "c.md")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "c.md").read_text()
    assert "| ACTIVATION_CELU | float32 | 3_0 |" in re.sub(r" +", " ", text)
    assert "python:faults:off_by_tolerance_plus_one" in text
    page = (tmp_path / "c.html").read_text()
    rows = parse(page).tables["compare-table"]
    assert [c[0] for c in rows[0]][3:] == result.labels
    assert rows[1][4][1] == "cell st-pass" and rows[1][5][1] == "cell st-fail"


def test_compare_needs_results_files(tmp_path):
    write_results(tmp_path / "a.jsonl")
    assert conformance("compare", tmp_path / "a.jsonl", tmp_path / "nope.jsonl").returncode == 2


@pytest.fixture(scope="module")
def full_and_interrupted(tmp_path_factory):
    """The float32 cases on the oracle itself, and the same run stopped by Ctrl-C at the first CLIP."""
    folder = tmp_path_factory.mktemp("interrupted")
    selection = ["-k", "float32 and not exhaustive", "--quiet"]
    full = conformance("run", "--backend", "python:oracle:evaluate", *selection, "--results", folder / "full.jsonl")
    assert full.returncode == 0, full.stderr
    cut = conformance("run", "--backend", "python:faults:interrupt_at_clip", *selection,
                      "--results", folder / "interrupted.jsonl")
    assert cut.returncode == 130, cut.stderr
    return folder / "full.jsonl", folder / "interrupted.jsonl"


def test_cases_missing_from_an_interrupted_run_fail_the_diff_which_says_so_first(full_and_interrupted, tmp_path):
    full, cut = full_and_interrupted
    missing = len(read_results(full)[1]) - len(read_results(cut)[1])
    assert missing > 100
    done = conformance("diff", full, cut, "--markdown", tmp_path / "d.md", "--html", tmp_path / "d.html")
    assert done.returncode == 1, done.stdout
    assert done.stdout.splitlines()[0] == f"WARNING: B ({cut}) is partial: the run was interrupted"
    assert f"0 regression(s), {missing} case(s) missing in B: the comparison fails" in done.stdout
    text = (tmp_path / "d.md").read_text()
    assert text.index("is partial: the run was interrupted") < text.index("| backend")
    page = (tmp_path / "d.html").read_text()
    assert page.index("is partial: the run was interrupted") < page.index('id="verdict"')
    assert 'class="verdict bad" id="verdict"' in page


def test_allow_missing_accepts_a_smaller_b_but_still_says_it_is_partial(full_and_interrupted):
    full, cut = full_and_interrupted
    done = conformance("diff", full, cut, "--allow-missing")
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith(f"WARNING: B ({cut}) is partial") and "missing in B (allowed)" in done.stdout
    planted = plant(cut, cut.parent / "regressed.jsonl", read_results(cut)[1][0]["id"], status="fail")
    assert conformance("diff", full, planted, "--allow-missing").returncode == 1  # a regression still fails


def test_a_run_without_footer_is_named_partial_at_the_top(tmp_path):
    whole = write_results(tmp_path / "a.jsonl")
    lines = whole.read_text().splitlines(keepends=True)
    crashed = tmp_path / "b.jsonl"
    crashed.write_text("".join(lines[:-1]))  # the footer never written: the process died
    done = conformance("diff", crashed, whole)
    assert done.returncode == 0, done.stdout  # nothing is missing from B
    assert done.stdout.splitlines()[0] == f"WARNING: A ({crashed}) is partial: it has no footer: the run stopped " \
                                          "early (a crash or a kill)"


NOT_RESULTS = {
    "hello world, no newline": (b"hello world", "not a results file: it has no header line"),
    "1000 NUL bytes": (b"\0" * 1000, "not a results file: it has no header line"),
    "a record without op": (b'{"type": "header"}\n{"id": "a", "status": "pass"}\n', ":2: a case record without 'op'"),
    "an unknown status": (b'{"type": "header"}\n{"id": "a", "op": "X", "status": "weird"}\n',
                          ":2: unknown status 'weird'"),
    "a max_ulp that is no number": (b'{"type": "header"}\n{"id": "a", "op": "X", "status": "pass", "max_ulp": "lots"}\n',
                                    ":2: max_ulp is 'lots', not a number"),
}


@pytest.mark.parametrize("name", sorted(NOT_RESULTS))
def test_what_is_not_a_results_file_is_one_line_and_exit_2_for_every_reader(name, tmp_path, capsys):
    """report, diff and compare read results files one way (read_results): each refuses these in one
    line naming the file (and line), exit 2, and writes no report."""
    from conformance.cli.command import main
    content, words = NOT_RESULTS[name]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    good = tmp_path / "good.jsonl"
    good.write_text('{"type": "header", "backend": "cpu"}\n{"id": "a", "op": "X", "status": "pass", "max_ulp": 0}\n'
                    '{"type": "footer", "seconds": 1, "cases": 1}\n')
    for command in (["report", str(bad), "--markdown", str(tmp_path / "out.md")], ["diff", str(good), str(bad)],
                    ["compare", str(good), str(bad), "--markdown", str(tmp_path / "out.md")]):
        assert main(command) == 2, (name, command)
        err = capsys.readouterr().err
        assert err.startswith(f"error: {bad}") and words in err and err.count("\n") == 1, (command, err)
        assert not (tmp_path / "out.md").exists()


def test_a_long_diff_and_comparison_fit_a_pull_request_comment_with_the_whole_beside(tmp_path):
    """A driver that regresses 3,000 cases: the markdown diff stays under a comment's 65,536
    characters, regressions first, and links the whole one beside it; the comparison fits; a short
    diff is one file."""
    from reports.markdown import COMMENT_LIMIT
    many = [f"{OP}/float32/rank4[2x3x4x{i}]/Min=-1,Max=1/uniform[-8,8]" for i in range(3000)]
    a = write_results(tmp_path / "a.jsonl", records=[record(i, "pass") for i in many])
    b = write_results(tmp_path / "b.jsonl", records=[record(i, "fail", max_ulp=9) for i in many])
    done = conformance("diff", a, b, "--markdown", tmp_path / "d.md")
    assert done.returncode == 1, done.stderr
    done = conformance("compare", a, b, "--markdown", tmp_path / "c.md")
    assert done.returncode == 0, done.stderr
    short, whole = (tmp_path / "d.md").read_text(), (tmp_path / "d.full.md").read_text()
    assert len(short) < COMMENT_LIMIT < len(whole), (len(short), len(whole))
    assert "[d.full.md](<d.full.md>)" in short and whole.startswith(short[:1000])
    assert all(i in whole for i in many)
    # the comparison lists a bounded number of differing cases: it fits whole
    assert len((tmp_path / "c.md").read_text()) < COMMENT_LIMIT and not (tmp_path / "c.full.md").exists()
    assert "## Regression" in (tmp_path / "d.md").read_text()
    small = write_results(tmp_path / "s.jsonl", records=[record(i, "fail") for i in many[:3]])
    conformance("diff", write_results(tmp_path / "t.jsonl", records=[record(i, "pass") for i in many[:3]]), small,
                "--markdown", tmp_path / "small.md")
    assert (tmp_path / "small.md").exists() and not (tmp_path / "small.full.md").exists()
