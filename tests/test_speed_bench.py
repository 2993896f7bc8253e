"""`conformance bench` works end to end on small sizes (no timing is asserted)."""
from pathlib import Path

from conformance.cli import bench
from conformance.cli.command import build_parser


def test_bench_is_a_subcommand():
    args = build_parser().parse_args(["bench", "--quick", "--jobs", "2"])
    assert args.quick and args.jobs == 2 and args.handler.__name__ == "_cmd_bench" and args.only is None
    args = build_parser().parse_args(["bench", "--only", "end-to-end", "--only", "sweep"])
    assert args.only == ["end-to-end", "sweep"]


def test_end_to_end_runs_conformance_and_the_provider_alone_on_the_same_inputs(capsys):
    """The quick bench's end-to-end section: a real `conformance run --backend cpu` of 2**24 float32
    CELU inputs where every element passes and where every element is off the exact value (the
    tiniest negatives: the provider flushes each to zero), and the CPU provider alone on them."""
    from conformance.cli import bench_end_to_end
    op, _, params = bench.workloads()[0]
    exponent = bench_end_to_end.QUICK_EXPONENT
    figures = bench.run(quick=True, jobs=2, repeats=1, only=["end-to-end"], out=print)
    assert set(figures) >= {"end_to_end"} and not set(figures) & {"sweep", "verification", "small_cases"}
    passing, off = figures["end_to_end"]
    for row in (passing, off):
        assert row["op"] == op and row["record"]["elements"] == row["elements"] == 1 << exponent
        assert row["record"]["generator"]["start"] == bench_end_to_end.WORKLOADS[row["workload"]]
        assert row["wall"] > row["run_seconds"] > 0 and row["provider"]["wall"] > row["provider"]["run_seconds"] > 0
    assert passing["record"]["status"] == "pass" and passing["record"]["verdicts"] == {"d3d": "pass", "ulp": "pass"}
    assert passing["record"]["mismatches"] == 0
    # Every element is off the exact value; the subnormal inputs' zeros are allowed flushes, the
    # normal ones' zeros are mismatches.
    generator = off["record"]["generator"]
    patterns = range(generator["start"], generator["stop"], generator["step"])
    assert len(patterns) == 1 << exponent
    assert off["record"]["d3d"]["checked"] == 1 << exponent
    assert off["record"]["mismatches"] == sum(1 for bits in patterns if bits >= 0x80800000) > 0
    assert off["record"]["verdicts"]["ulp"] == "fail"
    shown = capsys.readouterr().out
    rows = [line for line in shown.splitlines() if line.startswith("end to end through cpu")]
    assert len(rows) == 2 and all(f">= {bench_end_to_end.TARGET_RATIO}x" in line for line in rows)
    assert f"{off['ratio']:.2f}x" in rows[1] and f"{1 << exponent:,} off" in rows[1]


def test_verification_figures_and_same_results():
    row = bench.verification("ACTIVATION_CELU", "float32", {"Alpha": 1.0}, 1 << 17, jobs=2, repeats=1)
    assert row["ort"] > 0 and row["fast"] > 0 and row["plain"] > 0
    assert row["identical"] and row["jobs_identical"]
    failing = bench.verification("ACTIVATION_CELU", "float32", {"Alpha": 1.0}, 1 << 17, jobs=2, repeats=1, tiny=True)
    assert failing["identical"] and failing["jobs_identical"] and failing["off"] == 1 << 17
    table = bench.verification("ACTIVATION_SCALED_ELU", "float16", {}, 1 << 17, jobs=1, repeats=1)
    assert table["identical"]


def test_a_sweep_in_its_own_process_reports_time_and_peak_memory():
    op, dtype, params = bench.workloads()[0]
    assert (op, dtype) == ("ACTIVATION_CELU", "float32")
    item = bench.sweep(16, 2, op, params)
    assert item["elements"] == 1 << 16 and item["wall"] > 0 and 10 < item["peak_rss_mib"] < 4096
    assert item["status"] == "fail"  # ONNX Runtime's Celu: NaN for NaN, 0 for tiny negatives


def test_the_workloads_come_from_the_bench_case_files():
    chosen = bench.workloads()
    assert len(chosen) == len({(op, dtype) for op, dtype, _ in chosen}) >= 4
    assert {dtype for _, dtype, _ in chosen} == {"float32", "float16"}


def test_the_baseline_gives_the_same_statuses_as_the_harness():
    from conformance.caseset.caseload import load_paths
    from conformance.caseset.selection import select
    cases = select(load_paths(), "rank1")[:40]
    records = bench.onnx_backend_style(cases)
    assert [r["id"] for r in records] == [c.id for c in cases]
    assert {r["status"] for r in records} >= {"pass"}


def test_the_figure_table_shows_every_figure_against_its_target():
    op, dtype, params = bench.workloads()[0]
    row = bench.verification(op, dtype, params, 1 << 16, jobs=1, repeats=1)
    failing = bench.verification(op, dtype, params, 1 << 16, jobs=1, repeats=1, plain=False, tiny=True)
    small = {"cases": 10, "load_seconds": 0.1, "seconds": 1.0, "sessions": 2, "baseline_seconds": 12.0,
             "baseline_sessions": 10, "identical": True}
    figures = {"verification": [row], "verification_failing": failing, "small_cases": small, "jobs": 1,
               "sweep": [bench.sweep(16, 1, op, params)]}
    table = {line[0]: line for line in bench.figure_rows(figures)}
    off = next(line for label, line in table.items() if label.strip().startswith("every element off"))
    assert f"{failing['off']:,} of {failing['elements']:,}" in off[0] and off[4].startswith(">=")
    suite = next(line for label, line in table.items() if "one session per case" in label)
    assert suite[3] == "12.0x" and suite[5].startswith("yes")
    assert any(label.startswith("sweep ") and "2**16" in label for label in table)


def test_the_baseline_runs_several_input_and_boolean_operators_as_the_harness_does(tmp_path):
    from conformance import backends
    from conformance.run import runner
    from conformance.caseset.caseload import load_paths
    from conformance.run.results import ResultsWriter
    from conformance.caseset.selection import select
    cases = select(load_paths(), "(ELEMENT_WISE_ADD/ or LOGICAL_EQUALS or ACTIVATION_GELU or IS_NAN) and rank4")
    assert len({c.op for c in cases}) == 4
    backend = backends.create("cpu", announce=lambda m: None)
    writer = ResultsWriter(tmp_path / "r.jsonl")
    summary = runner.run(cases, backend, "5_0", writer, jobs=1)
    writer.close()
    backend.close()
    baseline = bench.onnx_backend_style(cases)
    assert [(r["id"], r["status"], r["max_ulp"]) for r in baseline] == \
        [(r["id"], r["status"], r["max_ulp"]) for r in summary.records]
    assert {r["status"] for r in baseline} >= {"pass"}


def _gpu_run(folder, name, seconds, streamed, log_tail="", statuses=("pass", "fail"), kind="exhaustive_float32"):
    import json
    lines = [{"type": "header", "backend": "dml-direct", "device": "GPU X",
              "gpu_proof": {"verdict": {"gpu": True}}},
             *({"type": "case", "id": f"{name}/{n}", "op": "ACTIVATION_CELU", "status": status,
                "generator": {"kind": kind}} for n, status in enumerate(statuses)),
             {"type": "footer", "seconds": seconds, "cases": len(statuses), "interrupted": False}]
    (folder / f"{name}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (folder / f"{name}.log").write_text("".join(f"stream {name}/a[x]: 256 chunk(s), 1 elements in {s} s (1 M/s)\n"
                                                for s in streamed) + log_tail)


def test_the_gpu_table_says_which_targets_the_results_files_meet(tmp_path, capsys):
    """scripts/gpu/bench_table.py (device.sh bench): a sweep that passed within 60 s, a worker within 4 GiB."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "scripts" / "gpu" / "bench_table.py"
    spec = importlib.util.spec_from_file_location("bench_table", path)
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    _gpu_run(tmp_path, "quick-sweep", 45.3, [10.2, 7.8, 19.5, 7.8], statuses=("pass", "pass"))
    _gpu_run(tmp_path, "quick-failing-sweep", 45.3, [10.2, 7.8, 19.5, 7.8])
    _gpu_run(tmp_path, "slow-sweep", 61.0, [15.0, 16.0, 15.0, 15.0], statuses=("pass", "pass"))
    _gpu_run(tmp_path, "small-worker", 74.8, [], "dml-wine: 1 worker start(s), worker peak 2.1 GiB\n", kind="uniform")
    _gpu_run(tmp_path, "big-worker", 70.0, [], "dml-wine: 1 worker start(s), worker peak 4.6 GiB\n", kind="uniform")
    assert table.main([str(tmp_path)]) == 0
    rows = {line.split(" | ")[0].strip("| "): line for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["quick-sweep"].endswith("| 45.3 | 10.2, 7.8, 19.5, 7.8 |  | pass 2 | yes |"), rows["quick-sweep"]
    assert rows["quick-failing-sweep"].endswith("| fail 1, pass 1 | NO (not passed) |"), rows["quick-failing-sweep"]
    assert rows["slow-sweep"].endswith("| NO (over 60 s) |"), rows["slow-sweep"]
    assert rows["small-worker"].endswith("| 2.1 GiB | fail 1, pass 1 | yes |"), rows["small-worker"]
    assert rows["big-worker"].endswith("| 4.6 GiB | fail 1, pass 1 | NO |"), rows["big-worker"]
    assert table.main([str(tmp_path / "missing")]) == 2


def test_a_killed_bench_leaves_no_child_run_behind():
    """SIGKILL gives the bench no chance to clean up: its child run must be stopped with it (Linux's
    parent-death signal), not go on computing for nobody. The child's results say which: a run
    stopped by a signal writes an interrupted footer, one left alone runs to its end."""
    import json
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time
    bench_process = subprocess.Popen([sys.executable, "-m", "conformance", "bench", "--quick", "--repeats", "1",
                                      "--only", "end-to-end"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = None
    try:
        deadline = time.monotonic() + 120
        while results is None and bench_process.poll() is None and time.monotonic() < deadline:
            for pid in _children(bench_process.pid):
                argv = _argv(pid)
                if "--results" in argv:
                    child, results = pid, Path(argv[argv.index("--results") + 1])
            time.sleep(0.02)
        assert results is not None, "the bench started no child run"
        os.kill(bench_process.pid, signal.SIGKILL)
        bench_process.wait()
        deadline = time.monotonic() + 60
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the child run outlived the killed bench by a minute"
        # Stopped before it wrote anything, cut short, or interrupted: not run to its end.
        lines = results.read_text().splitlines() if results.exists() else []
        footer = [json.loads(line) for line in lines if line.startswith('{"type": "footer"')]
        assert not footer or footer[0].get("interrupted"), f"the child run went on to its end: {footer}"
    finally:
        if bench_process.poll() is None:
            bench_process.kill()
            bench_process.wait()
        if results is not None:
            shutil.rmtree(results.parent, ignore_errors=True)


def _argv(pid: int) -> list:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _children(pid: int) -> list:
    found = []
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(status.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
