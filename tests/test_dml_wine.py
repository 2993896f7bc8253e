"""The real DirectML through the dml-wine lane: the smoke suite CI runs, and fault survival.

Every number here comes from DirectML.dll (onnxruntime-directml's Windows wheel) executing under
Wine on lavapipe, judged by the oracle. With the environment variable CI set, a lane that is not
provisioned (scripts/setup-dml-wine.sh, run by scripts/ci.d/50-dml-wine.sh) or numbers the oracle
rejects FAIL; elsewhere the lane tests skip and say why. The comparator's own all-zeros check
runs everywhere.
"""
import os
import re
import shutil
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from needs import missing

from conformance import backends, featurelevels, specs, statuses
from conformance.backends import dml_wine, wine_lane
from conformance.backends.base import OK, Outcome
from conformance.caseset import inputs
from conformance.caseset.caseload import load_paths
from conformance.caseset.selection import select
from conformance.judge.compare import compare
from conformance.run import runner
from conformance.run.results import ResultsWriter

DOCS = Path(__file__).resolve().parent.parent / "docs"
ALL_CASES = load_paths()


def lane_or_skip():
    lane, reason = dml_wine.find_lane()
    if lane is None:
        logs = [home / "ci-setup.log" for home in wine_lane.lane_homes() if (home / "ci-setup.log").exists()]
        tail = f"\nthe CI hook's log ({logs[0]}) ends:\n" + logs[0].read_text(errors="replace")[-1500:] if logs else ""
        missing(f"the dml-wine lane is not provisioned ({reason}); provision it with "
                f"`bash scripts/setup-dml-wine.sh` (root, Debian 12){tail}")
    return lane


def pick(expression):
    chosen = select(ALL_CASES, expression)
    assert chosen, expression
    return chosen


def smoke_cases():
    """The smoke suite: each case file's own smoke cases (its `smoke` selection)."""
    chosen = [case for case in ALL_CASES if case.smoke]
    assert chosen, "no case file marks smoke cases"
    return chosen


# ---- the comparator catches DirectML's silent failure (old Mesa: every output zero) ----------------
@pytest.mark.parametrize("case_id", [
    "ACTIVATION_CELU/float32/rank4[2x3x4x5]/Alpha=1/uniform[-10,10]",
    "ACTIVATION_SCALED_ELU/float16/rank4[2x3x4x5]/Alpha=1.6732,Gamma=1.0507/uniform[-12,6]",
    "ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=-1,Max=1/uniform[-8,8]",
    "ELEMENT_WISE_CONSTANT_POW/float16/rank4[2x3x4x5]/Exponent=2/uniform[0.01,4]",
])
def test_an_all_zeros_output_is_rejected_by_the_comparator(case_id):
    (case,) = [c for c in ALL_CASES if c.id == case_id]
    x = case.make_input()
    expected, reference, zeros = runner.expected_for(case, x)
    result = compare(x, expected, np.zeros_like(expected), case.tolerance, case.flush_allowed, zeros, reference)
    assert not result.passed and result.mismatches >= 0.9 * case.elements
    record = runner.judge(case, x, Outcome(OK, output=np.zeros_like(expected)),
                          "5_0", "dml-wine", 0.0)
    assert record["status"] == statuses.FAIL and "Elements outside the Direct3D rules" in record["message"]
    assert record["verdicts"] == {"d3d": statuses.FAIL, "ulp": statuses.FAIL}
    assert record["d3d"]["failed"] >= 0.9 * case.elements


def test_known_deviations_excluded_from_the_smoke_suite_are_listed_with_case_ids_in_the_docs():
    """Every case the full run fails but the smoke selection leaves out is named in the findings."""
    findings = (DOCS / "dml-wine.md").read_text(encoding="utf-8")
    from conformance.run.results import read_results
    _, records, _ = read_results(DOCS / "results" / "dml-wine-lavapipe.jsonl.gz")
    failing = [r["id"] for r in records if r["status"] in statuses.FAILING]
    assert failing, "the full run's results should show DirectML's deviations"
    smoke = {c.id for c in smoke_cases()}
    assert not smoke & set(failing), "the smoke suite selects a case the full run fails"
    missing = [case_id for case_id in failing if case_id not in findings]
    assert not missing, f"failing cases not listed in docs/dml-wine.md: {missing[:5]}"


# The newest ONNX opset onnxruntime-directml 1.24.4 (the lane's) loads: CumProd's 26 "is under development"
# there (ValidateOpsetForDomain), so CUMULATIVE_PRODUCT is not reachable through dml-wine
LANE_OPSET = 25
# Operators whose ONNX node the lane's DirectML provider does not implement (it assigns them to the CPU
# provider, which the harness forbids): training-mode BatchNormalization (docs/findings/issue26-normalization.md)
PROVIDER_LACKS = {"BATCH_NORMALIZATION_TRAINING"}


def _reachable_through_onnx_runtime(case) -> bool:
    if case.no_input:  # a node of initializers alone (ConstantOfShape, Range) never runs on DirectML's provider:
        return False   # cpu-fallback (docs/findings/issue25-zero_input.md)
    if case.op in PROVIDER_LACKS:
        return False
    try:
        node = specs.get(case.op).to_onnx(case.dtype, case.params)
    except specs.NotReachable:
        return False
    return node.opset <= LANE_OPSET


def test_smoke_selection_is_small_explicit_and_per_operator():
    """Each operator's case file names its own smoke cases: a few per operator, every one reachable
    through ONNX Runtime (the suite runs through dml-wine), float32 and float16 (and the integer types
    of bitwise, logical and quantizing operators), ranks 1, 4 and 8, special values for most, nothing in
    place or with ScaleBias. Every operator that ONNX Runtime reaches in a float type has some."""
    chosen = smoke_cases()
    per_operator = {}
    for case in chosen:
        per_operator.setdefault(case.op, []).append(case)
    reachable = {c.op for c in ALL_CASES if c.dtype in ("float32", "float16") and _reachable_through_onnx_runtime(c)}
    assert reachable <= set(per_operator), f"operators without smoke cases: {sorted(reachable - set(per_operator))}"
    assert all(_reachable_through_onnx_runtime(c) for c in chosen)
    assert all(1 <= len(cases) <= 64 for cases in per_operator.values()), {
        op: len(cases) for op, cases in per_operator.items()}
    assert {c.dtype for c in chosen} >= {"float32", "float16"}
    # an element-wise kernel's; a gather's inputs of their own shapes are not refused so
    assert not [c.id for c in chosen if c.dtype == "float32" and c.several and c.elements % 4 == 0
                and not any(i.broadcast for i in c.inputs) and specs.get(c.op).family.pointwise], \
        "DirectML refuses these under vkd3d"
    assert {c.rank for c in chosen} >= {1, 4, 8}
    # Special values in the smoke run for the seed operators (their specials conform on lavapipe);
    # the catalogue's specials break on lavapipe for many operators (docs/d3d/batch-b-lavapipe.md,
    # docs/findings-activations.md) and are judged by the default suite, not the smoke run.
    with_specials = {c.op for c in chosen if c.generator.get("kind") == "specials"}
    assert len(with_specials) >= 3, with_specials
    assert all(not c.in_place and c.params.get("ScaleBias") is None for c in chosen)
    assert all(c.generator.get("kind") not in inputs.STREAMED and c.elements <= 1 << 16 for c in chosen)


# ---- the smoke suite, through the real DirectML --------------------------------------------------
@pytest.fixture(scope="module")
def smoke():
    lane_or_skip()
    chosen = smoke_cases()
    backend = backends.create("dml-wine", announce=lambda m: None)
    outputs = {}
    run_many = backend.run_many

    def keep_outputs(items):
        outcomes = run_many(items)
        for (case, x), outcome in zip(items, outcomes):
            outputs[case.id] = (x, outcome.output)
        return outcomes
    backend.run_many = keep_outputs
    began = time.monotonic()
    try:
        summary = runner.run(chosen, backend, "5_0", ResultsWriter(None))
        meta = backend.metadata()
    finally:
        backend.close()
    seconds = time.monotonic() - began
    print(f"\nsmoke suite: {len(chosen)} cases through dml-wine in {seconds:.1f} s, "
          f"{backend.sessions_created} sessions, {backend.worker_starts} worker start(s)")
    return {"records": summary.records, "outputs": outputs, "backend": backend, "meta": meta, "cases": chosen}


def test_smoke_every_case_ran_on_directml_and_passed(smoke):
    records = smoke["records"]
    assert len(records) == len(smoke["cases"])
    bad = [(r["id"], r["status"], r["message"][:300]) for r in records if r["status"] != statuses.PASS]
    assert not bad, f"{len(bad)} smoke cases did not pass on DirectML: {bad[:5]}"
    for record in records:
        assert record["placement"], record["id"]
        assert set(record["placement"].values()) == {"DmlExecutionProvider"}, (record["id"], record["placement"])


def test_smoke_numbers_were_judged_by_the_oracle(smoke):
    for record in smoke["records"]:
        assert record["max_ulp"] is not None, record["id"]
        assert record["elements"] == sum(int(np.prod(s)) for s in record["output_shapes"]), record["id"]
        # the deciding model (d3d) passed every smoke case; the ULP figures are there beside it
        assert record["verdicts"]["d3d"] == statuses.PASS and record["d3d"]["failed"] == 0, record["id"]
    assert any(r["max_ulp"] > 0 for r in smoke["records"]), "every element exact: suspicious for exp-based ops"


def test_smoke_outputs_are_not_all_zeros(smoke):
    cases = {c.id: c for c in smoke["cases"]}
    checked = 0
    from conformance.judge.expected import expected_and_reference
    for case_id, (x, output) in smoke["outputs"].items():
        expected = expected_and_reference(cases[case_id], x)[0]
        if output is None or not any(np.any(e) for e in _each(expected)):
            continue
        checked += 1
        assert any(np.any(o) for o in _each(output)), f"{case_id}: DirectML returned all zeros"
    assert checked > 100


def _each(outputs) -> tuple:
    """An operator's outputs, one or several (TOP_K: values and indices), as a tuple."""
    return outputs if isinstance(outputs, tuple) else (outputs,)


def test_smoke_reports_the_real_directml_and_shares_sessions(smoke):
    meta, backend = smoke["meta"], smoke["backend"]
    assert meta["provider"] == "DmlExecutionProvider"
    assert meta["onnxruntime"] == "1.24.4" and meta["directml"].startswith("1.15.")
    assert "llvmpipe" in meta["device"], meta["device"]
    assert featurelevels.at_least(meta["dml_max_feature_level"], "5_0"), meta["dml_max_feature_level"]
    families = {(c.op, c.dtype) for c in smoke["cases"]}
    # Sessions are shared: at most a few per operator and type (a refused family is split).
    assert 0 < backend.sessions_created <= 3 * len(families)


def test_cli_runs_the_smoke_selection_and_prints_sessions(tmp_path):
    lane_or_skip()
    import subprocess
    import sys
    out = tmp_path / "smoke.jsonl"
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "dml-wine", "-k",
                           "ELEMENT_WISE_CLIP/float16/rank1 and specials", "--results", str(out), "--markdown",
                           str(tmp_path / "smoke.md"), "--quiet"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\d+ sessions? created", done.stdout) and "DmlExecutionProvider" in done.stdout
    assert (tmp_path / "smoke.md").exists()


def test_graph_fusion_off_reaches_the_session_and_still_runs_on_directml():
    lane_or_skip()
    chosen = pick("ACTIVATION_SCALED_ELU/float16/rank4 and specials")
    backend = backends.create("dml-wine", {"graph_fusion": "off"}, announce=lambda m: None)
    try:
        assert backend.config["ep.dml.disable_graph_fusion"] == "1"
        records = runner.run(chosen, backend, "5_0", ResultsWriter(None)).records
    finally:
        backend.close()
        shutil.rmtree(backend.logdir, ignore_errors=True)  # kept because a worker died (on purpose here)
    assert {r["status"] for r in records} == {statuses.PASS}
    assert all(set(r["placement"].values()) == {"DmlExecutionProvider"} for r in records)


# ---- faults under Wine ----------------------------------------------------------------------------------
def test_killed_wine_worker_mid_run_fails_the_batch_in_flight_and_the_run_goes_on(monkeypatch):
    lane_or_skip()
    monkeypatch.setattr(runner, "BATCH", 6)
    chosen = pick("ELEMENT_WISE_CLIP/float32 and (uniform or specials) and not Scale= and not in-place")[:18]
    assert len(chosen) == 18
    backend = backends.create("dml-wine", {"test_hooks": "1"}, announce=lambda m: None)
    killed = []

    def kill(channel, header):
        if header["id"] == 2:  # the worker is busy with batch 2 (it waits 5 s before it starts)
            for pid in channel.pids():  # the Windows python.exe, as a Unix process, and its pty
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    backend.before_send = lambda channel, header: header.update(debug_delay=5) if header["id"] == 2 else None
    backend.after_send = kill
    try:
        records = runner.run(chosen, backend, "5_0", ResultsWriter(None)).records
    finally:
        backend.close()
        shutil.rmtree(backend.logdir, ignore_errors=True)  # kept because a worker died (on purpose here)
    assert killed
    assert [r["status"] for r in records[:6]] == [statuses.PASS] * 6
    assert [r["status"] for r in records[6:12]] == [statuses.CRASH] * 6
    assert "6 case(s) in flight" in records[6]["message"]
    assert [r["status"] for r in records[12:]] == [statuses.PASS] * 6
    assert backend.restarts == 1 and backend.worker_starts >= 2


def test_a_native_crash_under_wine_ends_the_worker_instead_of_waiting_on_a_crash_dialog(monkeypatch):
    """ShowCrashDialog=0 in the prefix: an access violation in python.exe must end the process."""
    lane_or_skip()
    monkeypatch.setattr(runner, "BATCH", 4)
    chosen = pick("ELEMENT_WISE_CONSTANT_POW/float16/rank1 and uniform")[:8]
    backend = backends.create("dml-wine", {"test_hooks": "1", "timeout": "120"}, announce=lambda m: None)
    backend.before_send = lambda channel, header: header.update(debug="crash") if header["id"] == 2 else None
    began = time.monotonic()
    try:
        records = runner.run(chosen, backend, "5_0", ResultsWriter(None)).records
    finally:
        backend.close()
        shutil.rmtree(backend.logdir, ignore_errors=True)  # kept because a worker died (on purpose here)
    assert time.monotonic() - began < 100, "the crashed worker hung (a crash dialog?) until the timeout"
    assert {r["status"] for r in records[:4]} == {statuses.PASS}
    assert {r["status"] for r in records[4:]} == {statuses.CRASH}
    assert backend.restarts == 1


# ---- nothing the harness started outlives it -----------------------------------------------------------
class HarnessRun:
    """`conformance ARGS` in a subprocess whose environment marks everything it starts (Wine's
    processes inherit it), with a TMPDIR of its own: what it leaves behind can be found."""

    def __init__(self, tmp_path, *args):
        import subprocess
        import sys
        import uuid
        self.mark = uuid.uuid4().hex
        self.tmpdir = tmp_path / "harness-tmp"
        self.tmpdir.mkdir()
        env = dict(os.environ, TMPDIR=str(self.tmpdir), DMLC_TEST_RUN=self.mark)
        self.popen = subprocess.Popen([sys.executable, "-m", "conformance", *map(str, args)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.clones = lane_or_skip().home / "run"

    def processes(self) -> dict:
        """{pid: name} of the processes this run started, Wine's included."""
        found, needle = {}, f"DMLC_TEST_RUN={self.mark}".encode()
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle in handle.read().split(b"\0"):
                        found[int(entry)] = Path(f"/proc/{entry}/comm").read_text().strip()
            except OSError:
                continue
        return found

    def leftovers(self, wait=10.0) -> list:
        """Processes, prefix clones, Wine's server folders and temporary files of this run still there
        after up to `wait` s (not ONNX Runtime's .ses, which `import onnxruntime` writes, nor Wine's
        per-user wine-XXXXXX folder, which holds the server folders of every prefix)."""
        deadline = time.monotonic() + wait
        while True:
            temporary = [str(p) for p in self.tmpdir.iterdir() if p.name != ".ses" and not p.name.startswith("wine-")]
            temporary += [str(p) for p in self.tmpdir.glob("wine-*/server-*")]
            left = ([f"{pid} {name}" for pid, name in self.processes().items()]
                    + [str(p) for p in self.clones.glob(f"{self.popen.pid}-*")] + temporary)
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.2)

    def clean_up(self):
        """Whatever the test found or not: end this run's processes (by pid) and remove its clones."""
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.communicate()
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for clone in self.clones.glob(f"{self.popen.pid}-*"):
            shutil.rmtree(clone, ignore_errors=True)


@pytest.fixture
def harness(tmp_path):
    lane_or_skip()
    runs = []

    def start(*args):
        runs.append(HarnessRun(tmp_path, *args))
        return runs[-1]
    yield start
    for run in runs:
        run.clean_up()


@pytest.mark.parametrize("option", ["--results", "--html", "--save-failures"])
def test_an_unwritable_output_on_dml_wine_starts_nothing_and_leaves_nothing(option, harness, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    results = [] if option == "--results" else ["--results", tmp_path / "r.jsonl"]
    run = harness("run", "--backend", "dml-wine", "-k", "ELEMENT_WISE_CLIP/float32/rank1 and specials", "--quiet",
                  option, blocker / "out", *results)
    stdout, stderr = run.popen.communicate(timeout=600)
    assert run.leftovers(wait=0) == []
    assert run.popen.returncode == 2 and stdout == "", stdout + stderr
    assert stderr == f"error: {option} {blocker / 'out'}: cannot write there: {blocker} is not a folder\n"


def test_a_harness_killed_mid_run_leaves_no_wine_process_prefix_clone_or_folder(harness, tmp_path):
    results = tmp_path / "r.jsonl"
    run = harness("run", "--backend", "dml-wine", "-k", "float32", "--quiet", "--results", results)
    deadline = time.monotonic() + 300
    while not (results.exists() and '"in-flight"' in results.read_text()):  # the worker runs a batch
        assert run.popen.poll() is None and time.monotonic() < deadline, run.popen.communicate()
        time.sleep(0.2)
    started = set(run.processes().values())
    # Wine's services are up (winedevice.exe is not required: on a lane prefix used for hours it was
    # not started at all, while every check below still applies to whatever was started)
    assert {"Xvfb", "python.exe", "services.exe"} <= started, started
    assert any(name.startswith("wineserver") for name in started), started
    assert list(run.clones.glob(f"{run.popen.pid}-*")), "no prefix clone while running"
    run.popen.send_signal(signal.SIGKILL)
    run.popen.communicate()
    assert run.leftovers(wait=10) == []


@pytest.mark.parametrize("backend", ["dml-wine", "dml-direct"])
def test_a_harness_killed_while_it_clones_the_prefix_leaves_nothing(backend, harness, tmp_path):
    """SIGKILL the moment the prefix clone appears (before, the guard did not exist yet: the clone,
    the worker's folder and dml-direct's folder stayed for good)."""
    run = harness("run", "--backend", backend, "-k", "ELEMENT_WISE_CLIP/float32/rank1 and specials", "--quiet",
                  "--results", tmp_path / "r.jsonl")
    deadline = time.monotonic() + 120
    while not list(run.clones.glob(f"{run.popen.pid}-*")):
        assert run.popen.poll() is None and time.monotonic() < deadline, run.popen.communicate()
        time.sleep(0.002)
    run.popen.send_signal(signal.SIGKILL)
    run.popen.communicate()
    assert run.leftovers(wait=10) == []


def test_a_finished_run_leaves_no_wine_server_folder(harness, tmp_path):
    run = harness("run", "--backend", "dml-wine", "-k", "ELEMENT_WISE_CLIP/float32/rank1 and specials", "--quiet",
                  "--results", tmp_path / "r.jsonl")
    out, err = run.popen.communicate(timeout=600)
    assert run.popen.returncode == 0, err[-2000:]
    assert run.leftovers(wait=5) == []
