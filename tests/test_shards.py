"""conformance run --shard K/N and conformance merge, end to end on the real ONNX Runtime CPU provider:
four shards merged are the records and reports of one run of every case."""
import os
import shutil
import subprocess
import sys

import pytest

from conformance.caseset import shards
from conformance.caseset.caseload import load_paths
from conformance.cli import command
from conformance.run.results import read_results

SELECTION = ["--op", "ELEMENT_WISE_ADD", "--op", "ACTIVATION_CELU"]  # 208 cases, three of 65,536 elements
RUN = ["run", "--backend", "cpu", "--quiet", "--jobs", "1", *SELECTION]
TIMES = {"seconds", "start", "end", "wall_seconds", "backend_start_seconds"}
# The cpu backend proves where a shared graph's nodes ran once, on the first case that uses it
# (backends/ort.py _proven): in a sharded run the first case of each part that does.
RECORD_OWN = TIMES | {"placement"}
# Not the same in a merged run: its argv (--results), and how many sessions each machine made.
HEADER_OWN = {"argv", "merged_from"}
FOOTER_OWN = {"sessions_created"}


def main(args) -> int:
    """The command in this process (the cases' loading and imports once for every run)."""
    return command.main([str(arg) for arg in args])


def conformance(*args, env=None):
    return subprocess.run([sys.executable, "-m", "conformance", *map(str, args)], capture_output=True,
                          text=True, env=env)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The selection run whole and in 4 shards."""
    folder = tmp_path_factory.mktemp("shards")
    codes = {"whole": main([*RUN, "--results", folder / "whole.jsonl", "--markdown", folder / "whole" / "r.md"])}
    for k in range(1, 5):
        codes[k] = main([*RUN, "--shard", f"{k}/4", "--results", folder / f"part{k}.jsonl"])
    assert set(codes.values()) <= {0, 1}, codes
    return folder


def parts(folder):
    return [folder / f"part{k}.jsonl" for k in range(1, 5)]


def merged(folder, *paths, extra=()):
    out = folder / "merged" / "r.jsonl"
    shutil.rmtree(out.parent, ignore_errors=True)
    done = conformance("merge", *paths, "--results", out, "--markdown", out.parent / "r.md", *extra)
    return done, out


def without(record: dict, keys) -> dict:
    return {key: value for key, value in record.items() if key not in keys}


def test_four_shards_merge_into_the_records_of_one_run(runs):
    whole_header, whole, whole_footer = read_results(runs / "whole.jsonl")
    held = [read_results(path)[1] for path in parts(runs)]
    assert all(held) and sum(map(len, held)) == len(whole) == 208
    done, out = merged(runs, *reversed(parts(runs)))  # in any order
    assert done.returncode == (1 if any(r["status"] == "fail" for r in whole) else 0), done.stderr
    header, records, footer = read_results(out)
    assert [without(r, RECORD_OWN) for r in records] == [without(r, RECORD_OWN) for r in whole]
    assert without(header, TIMES | HEADER_OWN) == without(whole_header, TIMES | HEADER_OWN)
    assert without(footer, TIMES | FOOTER_OWN) == without(whole_footer, TIMES | FOOTER_OWN)
    assert [entry["shard"] for entry in header["merged_from"]] == [1, 2, 3, 4]
    assert "--shard" not in header["argv"]
    assert footer["seconds"] == pytest.approx(sum(read_results(p)[2]["seconds"] for p in parts(runs)), abs=0.01)


def test_the_report_of_the_merged_run_is_the_report_of_one_run(runs):
    done, out = merged(runs, *parts(runs))
    assert done.returncode in (0, 1), done.stderr
    for name in ("r.md", "r.full.md"):
        mine = (out.parent / name).read_text().splitlines()
        theirs = (runs / "whole" / name).read_text().splitlines()
        changing = ("| date ", "| duration ", "| sessions created ")
        assert [line for line in mine if not line.startswith(changing)] == \
            [line for line in theirs if not line.startswith(changing)], name
        assert len(mine) == len(theirs)


def test_every_case_in_exactly_one_part_balanced_by_cost_with_few_sessions():
    """Over every shipped case (9,000 and more, sweeps of 65,536 elements among them): the largest part
    is within one group's cost of the mean, no part is empty, and an operator and data type's cases
    stay together unless their group is more than a part's share (the sessions of the parts add up to
    little more than one run's)."""
    cases = load_paths(None, 0, None, None, False)
    groups = {(case.op, case.dtype) for case in cases}
    largest = max(shards.SESSION_COST + sum(shards.cost(c) for c in cases if (c.op, c.dtype) == group)
                  for group in groups)
    for count in (2, 4, 7):
        split, loads = shards.plan(cases, count)
        assert sorted(p for part in split for p in part) == list(range(len(cases)))
        assert all(part == sorted(part) for part in split) and all(split)
        assert max(loads) <= sum(loads) / count + largest, (count, loads)
        sessions = sum(len({(cases[p].op, cases[p].dtype) for p in part}) for part in split)
        assert sessions <= len(groups) * 1.1, (count, sessions, len(groups))


def test_the_parts_are_the_same_in_another_process_and_hash_seed(runs):
    header = read_results(runs / "part2.jsonl")[0]
    listed = []
    for seed in ("1", "2"):
        done = conformance("list", *SELECTION, "--shard", "2/4", env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        listed.append(done.stdout.split())
    assert listed[0] == listed[1] == [r["id"] for r in read_results(runs / "part2.jsonl")[1]]
    assert header["shard"]["index"] == 2 and header["shard"]["count"] == 4 and header["shard"]["of_cases"] == 208


@pytest.mark.parametrize("value", ["0/4", "5/4", "x", "4", "1/0", "-1/4"])
def test_a_bad_shard_is_one_line_and_exit_2(value, tmp_path):
    done = conformance(*RUN, f"--shard={value}", "--results", tmp_path / "r.jsonl")
    assert done.returncode == 2 and done.stderr.startswith("error: --shard") and done.stderr.count("\n") == 1, \
        done.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_a_shard_with_no_cases_runs_and_merges(tmp_path):
    """Two cases in three shards: one part is empty, and still a part of the run."""
    run = ["run", "--backend", "cpu", "--quiet", "-k", "ACTIVATION_CELU/float32/rank1/Alpha=1/specials"]
    assert main([*run, "--results", tmp_path / "whole.jsonl"]) in (0, 1)
    held = []
    for k in (1, 2, 3):
        assert main([*run, "--shard", f"{k}/3", "--results", tmp_path / f"p{k}.jsonl"]) in (0, 1)
        held.append(len(read_results(tmp_path / f"p{k}.jsonl")[1]))
    whole = read_results(tmp_path / "whole.jsonl")[1]
    assert 0 in held and sum(held) == len(whole) >= 1
    done, out = merged(tmp_path, *(tmp_path / f"p{k}.jsonl" for k in (1, 2, 3)))
    assert done.returncode in (0, 1), done.stderr
    assert [without(r, RECORD_OWN) for r in read_results(out)[1]] == [without(r, RECORD_OWN) for r in whole]


def refused(done, out, named):
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert named in done.stderr, done.stderr
    assert not out.exists()
    return done.stderr


def test_parts_of_another_run_are_refused(runs):
    other = runs / "ulp2.jsonl"
    assert main([*RUN, "--shard", "2/4", "--tolerance-model", "ulp", "--results", other]) in (0, 1)
    done, out = merged(runs, runs / "part1.jsonl", other, runs / "part3.jsonl", runs / "part4.jsonl")
    assert "tolerance_model" in refused(done, out, str(other))


def test_parts_of_another_case_set_are_refused(runs):
    other = runs / "tolerance2.jsonl"
    assert main([*RUN, "--shard", "2/4", "--tolerance", "7", "--results", other]) in (0, 1)
    done, out = merged(runs, runs / "part1.jsonl", other, runs / "part3.jsonl", runs / "part4.jsonl")
    assert "case set" in refused(done, out, str(other))


def test_a_missing_shard_is_named(runs):
    done, out = merged(runs, runs / "part1.jsonl", runs / "part2.jsonl", runs / "part4.jsonl")
    assert "missing shard 3/4" in refused(done, out, str(runs / "part1.jsonl"))


def test_a_shard_given_twice_is_refused(runs, tmp_path):
    again = tmp_path / "again.jsonl"
    shutil.copy(runs / "part2.jsonl", again)
    done, out = merged(runs, *parts(runs), again)
    assert "shard 2/4 is given twice" in refused(done, out, "part2.jsonl")


def test_a_file_that_is_not_a_part_is_refused(runs, tmp_path):
    text = tmp_path / "notes.jsonl"
    text.write_text("just some notes\n")
    done, out = merged(runs, *parts(runs)[:3], text)
    assert "not a results record" in refused(done, out, str(text))
    done, out = merged(runs, *parts(runs)[:3], runs / "whole.jsonl")  # a results file, but of no shard
    assert "not a part of a sharded run" in refused(done, out, str(runs / "whole.jsonl"))


def test_a_part_cut_short_is_refused_unless_partial_is_allowed(runs, tmp_path):
    """A shard killed midway: its header and first records, no footer (as the results writer leaves it)."""
    whole_parts = parts(runs)
    longest = max(whole_parts, key=lambda path: len(path.read_text().splitlines()))
    lines = longest.read_text().splitlines(keepends=True)
    cut = tmp_path / f"{longest.stem}-killed.jsonl"
    cut.write_text("".join(lines[:len(lines) // 2]))
    kept = len(read_results(cut)[1])
    others = [path for path in whole_parts if path != longest]
    done, out = merged(runs, *others, cut)
    assert "partial" in refused(done, out, str(cut))
    done, out = merged(runs, *others, cut, extra=["--allow-partial"])
    assert done.returncode in (0, 1), done.stderr
    _, records, footer = read_results(out)
    assert footer["interrupted"] and 0 < kept < len(lines) - 2
    assert footer["cases"] == len(records) == sum(len(read_results(p)[1]) for p in others) + kept
    whole = [r["id"] for r in read_results(runs / "whole.jsonl")[1]]
    ids = [r["id"] for r in records]
    assert ids == [i for i in whole if i in set(ids)]  # the selection's order
