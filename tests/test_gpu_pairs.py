"""The float16 pair sweeps on the GPU (scripts/gpu): the quarter files against the shipped sweeps,
`device.sh pairs` and `device.sh bench` refusing plans over one device command, and bench_table's
pair figures from the H100's pair results (docs/gpu/pairs-h100)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import specs, statuses
from conformance.caseset import inputs
from conformance.caseset.caseload import load_paths

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "scripts" / "gpu"
sys.path.insert(0, str(GPU))

import make_pair_quarters  # noqa: E402
from unpacked import unpacked  # noqa: E402

# The issue's operators: the arithmetic ones and every comparison whose spec takes float16.
ISSUE_OPERATORS = {"ELEMENT_WISE_ADD", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_DIVIDE",
                   "ELEMENT_WISE_MIN", "ELEMENT_WISE_MAX"}
COMPARISONS = ("ELEMENT_WISE_LOGICAL_EQUALS", "ELEMENT_WISE_LOGICAL_GREATER_THAN", "ELEMENT_WISE_LOGICAL_LESS_THAN",
               "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL")


def shipped_files():
    return sorted(make_pair_quarters.SHIPPED.glob("*.yaml"))


def test_every_operator_of_the_issue_has_a_shipped_pair_sweep():
    wanted = ISSUE_OPERATORS | {op for op in COMPARISONS
                                if any("float16" in t.dtypes for t in specs.get(op).tables)}
    assert len(wanted) == 11  # both _OR_EQUAL comparisons take float16
    assert {load_paths([str(p)], 0)[0].op for p in shipped_files()} >= wanted


@pytest.mark.parametrize("shipped", shipped_files(), ids=lambda p: p.stem)
def test_the_quarters_cover_exactly_their_shipped_sweep(shipped):
    (whole,) = load_paths([str(shipped)], 0)
    quarters = load_paths([str(make_pair_quarters.quarter_path(shipped))], 0)
    assert len(quarters) == make_pair_quarters.QUARTERS
    for case in quarters:
        assert (case.op, case.dtype, case.params, case.generator["kind"]) == \
            (whole.op, whole.dtype, whole.params, whole.generator["kind"])
        assert len(case.shape) == len(whole.shape)
    covered = sorted((inputs.bit_range(c.generator).start, inputs.bit_range(c.generator).stop) for c in quarters)
    assert all(inputs.bit_range(c.generator).step == 1 for c in quarters)
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:])), covered  # no gap, no overlap
    whole_range = inputs.bit_range(whole.generator)
    assert (covered[0][0], covered[-1][1]) == (whole_range.start, whole_range.stop) == (0, 1 << 32)


def test_the_quarter_files_are_those_the_script_writes():
    done = subprocess.run([sys.executable, str(GPU / "make_pair_quarters.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    quarter_files = set(GPU.glob(f"sweeps/*{make_pair_quarters.SUFFIX}"))
    assert quarter_files == {make_pair_quarters.quarter_path(p) for p in shipped_files()}


def device(tmp_path, *args, **env):
    return subprocess.run(["bash", str(GPU / "device.sh"), *args], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "GPU_ROOT": str(tmp_path / "gpu"), **env})


def refused(done) -> str:
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, (done.returncode, done.stderr)
    return done.stderr


def past_the_limits(done) -> bool:
    """device.sh got as far as needing the machine's setup: every check of the plan passed."""
    return done.returncode == 1 and "run setup first" in done.stderr


def test_pairs_refuses_a_plan_over_one_device_command_and_says_how_to_split_it(tmp_path):
    names = sorted(p.name.removesuffix(make_pair_quarters.SUFFIX).removeprefix("element_wise_")
                   for p in GPU.glob(f"sweeps/*{make_pair_quarters.SUFFIX}"))
    line = refused(device(tmp_path, "pairs"))  # all 11 at the default 150 s: 11 * 180 s
    assert f"{len(names)} sweeps of PAIRS_LIMIT=150 s" in line and f"{len(names) * 180} s" in line, line
    calls = [c.split("device.sh pairs ")[1].split() for c in line.split("calls: ")[1].split("; ")]
    assert sorted(n for call in calls for n in call) == names and max(map(len, calls)) == 600 // 180
    for call in calls:  # each call it proposes fits
        assert past_the_limits(device(tmp_path, "pairs", *call)), call
    assert past_the_limits(device(tmp_path, "pairs", "add", "ELEMENT_WISE_DIVIDE", "element_wise_min"))
    assert "4 sweeps" in refused(device(tmp_path, "pairs", "add", "divide", "min", "max"))
    assert past_the_limits(device(tmp_path, "pairs", "add", "divide", "min", "max", PAIRS_LIMIT="100"))
    assert "at most 570" in refused(device(tmp_path, "pairs", "add", PAIRS_LIMIT="571"))
    assert "PAIRS_LIMIT=2m" in refused(device(tmp_path, "pairs", "add", PAIRS_LIMIT="2m"))
    assert "'power'" in refused(device(tmp_path, "pairs", "add", "power"))
    assert not (tmp_path / "gpu").exists()


def test_bench_includes_the_pair_sweeps_within_one_device_command(tmp_path):
    assert past_the_limits(device(tmp_path, "bench"))  # float32 sweeps, ADD and DIVIDE pairs, cases: 600 s
    line = refused(device(tmp_path, "bench", BENCH_LIMIT_PAIRS="40"))
    assert "2 pair sweeps of BENCH_LIMIT_PAIRS=40 s" in line and "4 float32 sweeps" in line and "630 s" in line
    assert past_the_limits(device(tmp_path, "bench", BENCH_SET="pairs", BENCH_LIMIT_PAIRS="270"))
    line = refused(device(tmp_path, "bench", BENCH_SET="pairs", BENCH_PAIRS="add divide min", BENCH_LIMIT_PAIRS="171"))
    assert "3 pair sweeps" in line and "0 float32 sweeps" in line and "cases'" not in line
    assert past_the_limits(device(tmp_path, "bench", BENCH_SET="f32,cases", BENCH_LIMIT="70", BENCH_LIMIT_CASES="150"))
    assert "'sweeps'" in refused(device(tmp_path, "bench", BENCH_SET="f32 sweeps"))


def h100_pairs(tmp_path: Path) -> Path:
    """The H100's ADD and DIVIDE pair results and logs (docs/gpu/pairs-h100, each cut short at 240 s
    in its second quarter by a runner that kept no record of it), unpacked as device.sh writes them."""
    return unpacked(ROOT / "docs/gpu/pairs-h100", tmp_path / "pairs")


def test_bench_table_gives_the_pair_figures_of_the_h100_runs(tmp_path):
    import bench_table
    folder = h100_pairs(tmp_path)
    add = bench_table.pair_row(folder / "element_wise_add-f16-pairs.jsonl")
    assert add["verified"] == 1 << 30 and add["seconds"] == 237.265  # the first quarter, in the runner's time
    assert add["rate"] == pytest.approx((1 << 30) / 237.265) and add["projected_s"] == pytest.approx(4 * 237.265)
    assert [(s["chunks"], s["elements"], s["seconds"]) for s in add["streams"]] == [
        (256, 1 << 30, 193.7), (70, 297_795_584, 43.6)]
    assert [(s["backend_ms"], s["verification_ms"], s["waited_ms"]) for s in add["streams"]] == [
        (96.0, 720.1, 596.1), (92.5, 617.6, 499.3)]
    assert add["cut_short"] == ["[0x40000000,0x80000000] in flight, no record"]
    done = subprocess.run([sys.executable, str(GPU / "bench_table.py"), str(folder)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = {line.split(" | ")[0]: line for line in done.stdout.splitlines()}
    divide = lines["| element_wise_divide-f16-pairs"]
    assert "| 1,073,741,824 | 237.5 | 4,520,181 | 950 | 91.9, 97.9 | 515.8, 569.3 | 392.3, 442.3 | pass 1 |" in divide
    assert divide.endswith("| [0x40000000,0x80000000] in flight, no record |")
    assert "target met" not in done.stdout  # no float32 sweep given: no float32 table, no 60 s target for pairs


def rewrite(path: Path, change) -> Path:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(r) + "\n" for r in change(lines)))
    return path


def test_bench_table_says_where_a_pair_sweep_was_cut_short(tmp_path):
    """The runner of today keeps a quarter cut short as a record with "partial" {verified, of}: its
    pairs count, and the table names it; a run killed (no footer) has no seconds and says so; a case
    the backend failed on (error) verified nothing."""
    import bench_table
    folder = h100_pairs(tmp_path)
    second = "ELEMENT_WISE_ADD/float16/rank1/defaults/exhaustive_float16_pairs[0x40000000,0x80000000]"

    def partial(lines):
        first = next(r for r in lines if r.get("type") == "case")
        kept = dict(first, id=second, elements=297_795_584, partial={"verified": 297_795_584, "of": 1 << 30},
                    generator={"kind": inputs.PAIRS, "start": 1 << 30, "stop": 2 << 30})
        return lines[:-1] + [kept, lines[-1]]
    results = rewrite(folder / "element_wise_add-f16-pairs.jsonl", partial)
    row = bench_table.pair_row(results)
    assert row["verified"] == (1 << 30) + 297_795_584
    assert row["cut_short"] == ["[0x40000000,0x80000000] 297,795,584 of 1,073,741,824 (partial)"]
    rewrite(results, lambda lines: [dict(r, status="error") if r.get("id") == second else r for r in lines])
    assert bench_table.pair_row(results)["verified"] == 1 << 30
    rewrite(results, lambda lines: [r for r in lines if r.get("type") != "footer"])
    row = bench_table.pair_row(results)
    assert row["seconds"] is None and row["rate"] is None and "no footer (the run was killed)" in row["cut_short"]
    assert bench_table.tables([results]).endswith("; no footer (the run was killed) |")
    # a run that finished: nothing cut short
    done = rewrite(folder / "element_wise_divide-f16-pairs.jsonl", lambda lines: [
        dict(r, interrupted=False) if r.get("type") == "footer" else r for r in lines if r.get("type") != "in-flight"])
    assert bench_table.pair_row(done)["cut_short"] == []


def test_bench_table_reads_the_stream_line_of_this_runner(tmp_path):
    """The per-chunk medians come from the runner's console only: a real pair run (cpu, 3 chunks in
    two cases) through this checkout's runner, read back the way device.sh writes its log."""
    import bench_table
    sweep = tmp_path / "add.yaml"
    sweep.write_text("operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float16]\n    shapes: [auto]\n    inputs:\n"
                     "      - {kind: exhaustive_float16_pairs, start: 0x3C000000, stop: 0x3C800000}\n"
                     "      - {kind: exhaustive_float16_pairs, start: 0xBC000000, stop: 0xBC400000}\n")
    results = tmp_path / "add-f16-pairs.jsonl"
    with open(tmp_path / "add-f16-pairs.log", "w") as log:
        subprocess.run([sys.executable, "-m", "conformance", "run", str(sweep), "--backend", "cpu", "--results",
                        str(results), "--quiet"], stdout=log, stderr=subprocess.STDOUT, check=True, cwd=ROOT)
    row = bench_table.pair_row(results)
    assert row["verified"] == 3 << 22 and row["cut_short"] == [] and row["statuses"] == {"pass": 2}
    assert [(s["chunks"], s["elements"]) for s in row["streams"]] == [(2, 2 << 22), (1, 1 << 22)]
    lines = [line for line in (tmp_path / "add-f16-pairs.log").read_text().splitlines() if line.startswith("stream ")]
    for stream, line in zip(row["streams"], lines, strict=True):
        assert f", backend {stream['backend_ms']:.1f}" in line and f"verification {stream['verification_ms']:.1f} on" \
            in line and f"backend waited for it {stream['waited_ms']:.1f};" in line, (stream, line)
    assert row["rate"] == pytest.approx(row["verified"] / row["seconds"])


def test_pairs_hands_back_its_three_files(tmp_path):
    folder = h100_pairs(tmp_path)
    (folder / "pairs.log").write_text("[gpu] run element_wise_add-f16-pairs: exit 0, 240 s\n")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(GPU / "bench_table.py"), str(folder), "--pack", str(out), "--name",
                           "pairs"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["pairs.log", "pairs.md", "pairs.tar.gz"]
    assert (out / "pairs.md").read_text().strip() == done.stdout.strip() and "| pair sweep |" in done.stdout
    import tarfile
    with tarfile.open(out / "pairs.tar.gz") as archive:
        assert sorted(archive.getnames()) == sorted(p.name for p in folder.iterdir())


def test_a_shipped_file_that_does_not_split_is_refused_naming_it(tmp_path, monkeypatch, capsys):
    shipped = tmp_path / "float16_pairs"
    shipped.mkdir()
    (shipped / "element_wise_add_float16.yaml").write_text(
        "operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float16]\n    shapes: [auto]\n    inputs:\n"
        "      - {kind: exhaustive_float16_pairs, start: 0, stop: 6}\n")
    monkeypatch.setattr(make_pair_quarters, "SHIPPED", shipped)
    monkeypatch.setattr(make_pair_quarters, "ROOT", tmp_path)
    monkeypatch.setattr(make_pair_quarters, "OUT", tmp_path / "out")
    assert make_pair_quarters.main(["--check"]) == 2
    assert "float16_pairs/element_wise_add_float16.yaml: its pair indices" in capsys.readouterr().err
    (shipped / "element_wise_add_float16.yaml").write_text(
        "operator: ELEMENT_WISE_ADD\ngroups:\n  - dtypes: [float16]\n    shapes: [auto]\n    inputs:\n"
        "      - {kind: exhaustive_float16_pairs, start: 0, stop: 8}\n      - {kind: exhaustive_float16_pairs}\n")
    assert make_pair_quarters.main([]) == 2
    assert "loads to 2 case(s)" in capsys.readouterr().err


def test_the_committed_h100_pair_sweeps_hold_every_pair_of_every_shipped_operator(tmp_path):
    """docs/gpu/pairs-h100/at-pace: for each shipped pair sweep, all 2**32 pairs judged on the GPU (its
    proof in the header), none cut short, none failing, and the runner's time the docs state."""
    import bench_table
    from conformance.run.results import read_results
    folder = unpacked(ROOT / "docs/gpu/pairs-h100/at-pace", tmp_path / "at-pace")
    seconds = {}
    for shipped in shipped_files():
        (case,) = load_paths([str(shipped)], 0)
        results = folder / f"{case.op.lower()}-f16-pairs.jsonl"
        header, records, _ = read_results(results)
        assert header["gpu_proof"]["verdict"]["gpu"] is True and header["backend"] == "dml-direct", results.name
        assert {r["op"] for r in records} == {case.op} and {r["status"] for r in records} == {statuses.PASS}
        figures = bench_table.pair_row(results)
        assert figures["verified"] == 1 << 32 and figures["cut_short"] == [], (results.name, figures["cut_short"])
        seconds[case.op] = figures["seconds"]
    assert max(seconds.values()) == seconds["ELEMENT_WISE_DIVIDE"] == 122.633  # the one over 120 s
    assert sorted(seconds.values())[-2] <= 101.1
