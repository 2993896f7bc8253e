"""scripts/windows_harness/run_in_pieces.py on the real Windows harness (under the lane's Wine, on
lavapipe): pieces in parallel give the records sequential pieces give, --by op the same as --by family,
the pytest plugin's pieces the same verdicts, and Ctrl-C keeps what finished and leaves no Windows
process. Small selections: each piece starts Wine and a Windows Python (about 10 s here)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_windows_harness import by_id, harness_or_skip

from conformance.backends import wine_lane

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "windows_harness" / "run_in_pieces.py"
# Two operators, three operator-and-data-type families, 10 cases; pytest's -k reads it too.
PATHS = ["cases/activation_celu.yaml", "cases/activation_relu.yaml"]
SELECTION = ("(ACTIVATION_CELU/float32/ or ACTIVATION_RELU/float32/ or ACTIVATION_RELU/int32/) "
             "and (rank1[7] or rank2[3x5])")
FAMILIES = ["ACTIVATION_CELU/float32/", "ACTIVATION_RELU/float32/", "ACTIVATION_RELU/int32/"]

# Two pieces that each run a small case and then stream 2**30 inputs (minutes), and a third piece:
# with --jobs 2, Ctrl-C comes while the first two run and before the third starts.
LONG = """operator: {op}
groups:
  - name: a small case first
    dtypes: [float32]
    shapes: [[2, 3]]
    params: {params}
    inputs:
      - {{kind: uniform, low: -4, high: 4}}
  - name: then a long stream
    dtypes: [float32]
    shapes: [auto]
    params: {params}
    inputs:
      - {{kind: exhaustive_float32}}  # all 2**32: long enough to be stopped on a fast machine too
"""
QUICK = """operator: ACTIVATION_RELU
groups:
  - name: never started
    dtypes: [int32]
    shapes: [[5]]
    inputs:
      - {kind: uniform, low: -100, high: 100}
"""


def pieces(*argv, timeout=900):
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def comparable(records: dict) -> dict:
    return {case_id: {k: v for k, v in r.items() if k != "seconds"} for case_id, r in records.items()}


def test_parallel_pieces_give_the_sequential_records_and_by_op_the_same(tmp_path):
    harness_or_skip()
    runs = {}
    for name, options in (("sequential", ["--jobs", "1"]), ("parallel", ["--jobs", "3"]),
                          ("by-op", ["--jobs", "2", "--by", "op"])):
        code, console = pieces(*options, "--results", tmp_path / f"{name}.jsonl", *PATHS, "-k", SELECTION)
        assert code == 0, console
        runs[name] = by_id(tmp_path / f"{name}.jsonl")
    header, records, footer = runs["sequential"]
    assert len(records) == 10 and footer["cases"] == 10 and not footer["interrupted"]
    assert [p["keyword"] for p in header["pieces"]] == FAMILIES
    assert all(p["exit_code"] == 0 and "missing" not in p for p in header["pieces"])
    assert [p["cases"] for p in header["pieces"]] == [6, 2, 2]
    assert header["backend"] == "dml" and header["os"].startswith("Windows")
    assert footer["sessions_created"] == sum(p["sessions_created"] for p in header["pieces"]) >= 3
    assert comparable(runs["parallel"][1]) == comparable(records)
    assert list(runs["parallel"][1]) == list(records)  # merged in `conformance list` order
    assert [p["keyword"] for p in runs["by-op"][0]["pieces"]] == ["ACTIVATION_CELU/", "ACTIVATION_RELU/"]
    by_op = runs["by-op"][1]
    assert {i: (r["status"], r["max_ulp"], r["mismatches"]) for i, r in by_op.items()} == \
        {i: (r["status"], r["max_ulp"], r["mismatches"]) for i, r in records.items()}
    # A run mode and a pytest mode piece for the same selection: the plugin's verdicts.
    code, console = pieces("--jobs", "2", "--pytest", "--results", tmp_path / "pytest.jsonl", *PATHS, "-k", SELECTION)
    assert code == 0, console
    pytest_header, pytest_records, _ = by_id(tmp_path / "pytest.jsonl")
    assert pytest_header["runner"] == "pytest" and len(pytest_header["pieces"]) == 3
    keys = ("status", "max_ulp", "mismatches", "nan_mismatches", "flushed", "ulp_histogram", "worst")
    assert {i: [r[k] for k in keys] for i, r in pytest_records.items()} == \
        {i: [r[k] for k in keys] for i, r in records.items()}


def parents() -> dict:
    """{pid: parent pid} of every process now."""
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as handle:
                found[int(entry)] = int(handle.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return found


def wine_prefixes_below(pid: int, lane_runs: str) -> set:
    """The WINEPREFIX of every process descended from pid that runs in a clone under lane_runs."""
    tree, prefixes = parents(), set()
    for child in tree:
        ancestor = child
        while ancestor not in (0, 1, pid) and ancestor in tree:
            ancestor = tree[ancestor]
        prefix = environ(child).get("WINEPREFIX", "") if ancestor == pid else ""
        if prefix.startswith(lane_runs):
            prefixes.add(prefix)
    return prefixes


def environ(pid) -> dict:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            pairs = handle.read().split(b"\0")
    except OSError:
        return {}
    return dict(pair.decode(errors="replace").partition("=")[::2] for pair in pairs if b"=" in pair)


def processes_in(prefixes: set) -> list:
    return [pid for pid in filter(str.isdigit, os.listdir("/proc")) if environ(pid).get("WINEPREFIX") in prefixes]


def test_ctrl_c_keeps_finished_cases_and_leaves_no_windows_process(tmp_path):
    """SIGINT (what `timeout -s INT` sends) while two pieces run and one waits: exit 130, the merged
    file holds every case done, names what each stopped piece did not do, says it was interrupted,
    and no Wine process of the run is left."""
    harness = harness_or_skip()
    (tmp_path / "clip.yaml").write_text(LONG.format(op="ELEMENT_WISE_CLIP", params="{Min: -1.0, Max: 1.0}"))
    (tmp_path / "relu.yaml").write_text(LONG.format(op="ACTIVATION_RELU", params="{}"))
    (tmp_path / "quick.yaml").write_text(QUICK)
    results = tmp_path / "merged.jsonl"
    code, console, seen = watched(harness, ["--jobs", "2", "--results", results,
                                            *(tmp_path / name for name in ("clip.yaml", "relu.yaml", "quick.yaml"))],
                                  interrupt_when=lambda pid: small_cases_done(pid) >= 2)
    assert code == 130, console
    assert "interrupted" in console
    header, records, footer = by_id(results)
    assert footer["interrupted"] and footer["cases"] == len(records), (footer, console)
    whole = [r for r in records.values() if not r.get("partial")]
    # a sweep Ctrl-C cut short keeps the chunks it verified as a partial record (none, if it had none)
    cut = {i: r["partial"] for i, r in records.items() if r.get("partial")}
    assert sorted(r["dtype"] for r in whole) == ["float32", "float32"]
    assert all(r["elements"] == 6 for r in whole)
    assert all("exhaustive_float32" in i and 0 < p["verified"] < p["of"] for i, p in cut.items()), cut
    stopped, waiting = header["pieces"][:2], header["pieces"][2]
    for piece in stopped:
        assert piece["exit_code"] == 130, piece
        sweep = piece.get("missing", []) + [i for i in cut if i.startswith(piece["keyword"])]
        assert len(sweep) == 1 and "exhaustive_float32" in sweep[0], (piece, cut)
        assert piece["cases"] == 1 + (sweep[0] in cut), piece
    assert waiting["keyword"] == "ACTIVATION_RELU/int32/" and waiting["exit_code"] is None
    assert len(seen) >= 2, "the pieces' Wine prefixes were never seen"
    assert processes_in(seen) == [], f"Wine processes left in {seen}"
    assert not any(Path(prefix).exists() for prefix in seen)
    assert not list(results.parent.glob(".merged.jsonl.*")), "the temporary merged file was left"


def watched(harness, argv, interrupt_when=None):
    """run_in_pieces ARGV, SIGINT once interrupt_when(its pid) holds -> (exit code, console, the Wine
    prefixes its pieces ran in)."""
    process = subprocess.Popen([sys.executable, str(SCRIPT), *map(str, argv)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lane_runs, seen = str(harness.lane.home / "run"), set()
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            seen |= wine_prefixes_below(process.pid, lane_runs)
            if interrupt_when and interrupt_when(process.pid):
                seen |= wine_prefixes_below(process.pid, lane_runs)
                process.send_signal(signal.SIGINT)
                break
            time.sleep(1)
        console, _ = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, console, seen


def small_cases_done(pid: int) -> int:
    """How many of pid's pieces have written their first case record (each piece is a child process
    `... conformance lane windows -- run ... --results PIECE`)."""
    done = 0
    for child in [c for c, parent in parents().items() if parent == pid]:
        try:
            with open(f"/proc/{child}/cmdline", "rb") as handle:
                argv = handle.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "--results" in argv:
            path = Path(argv[argv.index("--results") + 1])
            if path.exists() and '"type": "case"' in path.read_text(encoding="utf-8"):
                done += 1
    return done


def test_a_killed_piece_keeps_its_partial_records_and_names_the_rest(tmp_path):
    """--piece-timeout ends a piece that streams 2**30 inputs (the lane kills its Wine processes):
    exit 124, the cases it finished stay, the ones it did not are named, the run is not called
    interrupted."""
    harness = harness_or_skip()
    (tmp_path / "clip.yaml").write_text(LONG.format(op="ELEMENT_WISE_CLIP", params="{Min: -1.0, Max: 1.0}"))
    code, console, seen = watched(harness, ["--piece-timeout", "45", "--results", tmp_path / "merged.jsonl",
                                            tmp_path / "clip.yaml"])
    assert code == 124, console
    header, records, footer = by_id(tmp_path / "merged.jsonl")
    (piece,) = header["pieces"]
    assert piece["exit_code"] == 124 and piece["cases"] == len(records) == footer["cases"] <= 1, piece
    assert len(records) + len(piece["missing"]) == 2 and not set(records) & set(piece["missing"])
    assert any("exhaustive_float32" in case_id for case_id in piece["missing"])
    assert not footer["interrupted"]
    assert len(seen) == 1 and processes_in(seen) == [], f"Wine processes left in {seen}"


def test_bad_usage_is_refused_in_one_line_before_anything_runs(tmp_path):
    for argv, expected in ((["--html", tmp_path / "r.html"], "--html: each piece would write its own"),
                           (["--jobs", "0"], "--jobs: at least 1"),
                           (["--pytest", "--smoke"], "--smoke: the pytest plugin has no such option")):
        code, console = pieces("--results", tmp_path / "r.jsonl", *argv)
        assert code == 2 and expected in console, console
    assert not (tmp_path / "r.jsonl").exists()
