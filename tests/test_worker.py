"""The worker and its backend machinery, on ONNX Runtime's CPU provider (runs anywhere).

The dml-wine lane uses exactly this code with the real DirectML under Wine; here the worker
is a native subprocess (cpu-worker), so batching, shared multi-node graphs, placement proof
and fault handling are tested on every machine. Nothing is simulated: every number comes
from ONNX Runtime, every crash is a real dead process.
"""
import ast
import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from needs import missing

from conformance import backends, specs, statuses
from conformance.backends import base
from conformance.backends.dml_wine import cpu_worker, worker_settings
from conformance.backends.worker_backend import WorkerBackend
from conformance.backends.ort import multi_node_model
from conformance.caseset.caseload import load_paths
from conformance.caseset.selection import select
from conformance.errors import BadInput
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.worker import devinfo, onnxmini, protocol
from conformance.worker.engine import Engine, selfcheck

WORKER = Path(__file__).resolve().parent.parent / "conformance" / "worker"
ALL_CASES = load_paths()


def pick(expression):
    chosen = select(ALL_CASES, expression)
    assert chosen, expression
    return chosen


def run(backend, cases, level="5_0"):
    try:
        return runner.run(cases, backend, level, ResultsWriter(None)).records
    finally:
        close(backend)


def close(backend):
    """Close, and drop the worker logs a backend keeps after a worker died (these tests kill on purpose)."""
    import shutil
    backend.close()
    if hasattr(backend, "logdir"):
        shutil.rmtree(backend.logdir, ignore_errors=True)


def by_id(records):
    return {r["id"]: r for r in records}


# ---- the package runs under Windows Python with nothing but numpy and onnxruntime -------------
def test_worker_package_imports_only_stdlib_numpy_and_onnxruntime():
    allowed = set(sys.stdlib_module_names) | {"numpy", "onnxruntime"}
    for path in sorted(WORKER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_worker_starts_from_a_copy_of_its_folder_without_the_harness(tmp_path):
    """As under Wine: the package copied elsewhere, run by file path, harness not importable."""
    import shutil
    import subprocess
    copy = tmp_path / "dmlc_worker"
    shutil.copytree(WORKER, copy, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "check.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-I", str(copy / "__main__.py"), "--self-check", str(out),
                           "--provider", "CPUExecutionProvider", "--log", str(tmp_path / "log")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    import json
    result = json.loads(out.read_text())
    assert done.returncode == 0, (result, done.stderr)
    assert result["ok"] and result["y0"] == [-1.0, -0.5, 0.25, 1.0, 1.0]
    assert result["placement"]["Clip_0"] == "CPUExecutionProvider"


# ---- protocol ---------------------------------------------------------------------------------------
def test_frames_carry_every_dtype_bit_for_bit():
    left, right = socket.socketpair()
    out = protocol.Buffers()
    arrays = [np.arange(12, dtype=dtype).reshape(3, 4) for dtype in protocol.DTYPES if dtype != "bool"]
    arrays += [np.array([True, False]), np.zeros((2, 0, 3), np.float32),
               np.array([0x7E01, 0xFC00, 0x8001, 0x0001], np.uint16).view(np.float16)]  # NaN payload, -inf, subnormals
    refs = [out.put(a) for a in arrays]
    protocol.send(left, {"op": "test", "arrays": refs}, out.items)
    header, buffers = protocol.recv(right)
    for array, ref in zip(arrays, header["arrays"]):
        got = protocol.take(ref, buffers)
        assert got.dtype == array.dtype and got.shape == array.shape
        assert got.tobytes() == array.tobytes()


def test_garbage_and_truncation_are_protocol_errors():
    left, right = socket.socketpair()
    left.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
    with pytest.raises(protocol.ProtocolError, match="bad frame start"):
        protocol.recv(right)
    left, right = socket.socketpair()
    left.sendall(protocol.MAGIC + (50).to_bytes(4, "little") + b'{"op": ')
    left.close()
    with pytest.raises(protocol.PeerClosed, match="inside a frame"):
        protocol.recv(right)
    with pytest.raises(protocol.ProtocolError, match="needs 16 bytes"):
        protocol.take({"dtype": "float32", "shape": [4], "buffer": 0}, [b"\0" * 12])
    with pytest.raises(protocol.ProtocolError):
        protocol.take({"dtype": "object", "shape": [1], "buffer": 0}, [b"\0" * 8])


# ---- the hand-made model and the device info used by the setup's self-check ---------------------------
def test_hand_encoded_selfcheck_model_is_the_model_onnx_would_write():
    import onnx
    model = onnx.load_from_string(onnxmini.selfcheck_model())
    assert [n.op_type for n in model.graph.node] == ["Clip", "Pow"]
    assert [i.name for i in model.graph.input] == ["x0", "x1"]
    assert [onnx.numpy_helper.to_array(t).item() for t in model.graph.initializer] == [-1.0, 1.0, 2.0]
    assert model.opset_import[0].version == 15


def test_selfcheck_catches_wrong_numbers_and_passes_right_ones():
    engine = Engine()
    try:
        result = selfcheck(engine, "CPUExecutionProvider", {})
    finally:
        engine.close()
    assert result["ok"], result
    assert result["y1"] == [2.25, 9.0, 0.25, 4.0, 0.0]


def test_a_workers_profiles_are_kept_beside_its_log_so_a_killed_worker_leaves_none_elsewhere():
    backend = backends.create("cpu-worker")
    try:
        inside = [p.name for p in backend.logdir.iterdir() if p.is_dir()]
    finally:
        backend.close()
    assert len(inside) == 1 and inside[0].startswith("dmlc-worker-profile-")
    assert not backend.logdir.exists()


@pytest.mark.parametrize("transport", ["subprocess", "inprocess"])
def test_a_cpu_worker_run_leaves_no_profile_or_log_folder(transport, tmp_path):
    import subprocess
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "cpu-worker", "--provider-option",
                           f"transport={transport}", "-k", "ACTIVATION_CELU/ and float32 and rank1", "--quiet",
                           "--results", tmp_path / "r.jsonl"], capture_output=True, text=True,
                          env=dict(os.environ, TMPDIR=str(tmp_path / "tmp")))
    assert done.returncode == 1, done.stderr  # the CPU provider's CELU is not DirectML's
    assert re.search(r"\d+ sessions? created", done.stdout)
    left = [p.name for p in (tmp_path / "tmp").iterdir()]
    assert [name for name in left if name != ".ses"] == []  # .ses: `import onnxruntime` writes it


def test_file_version_reads_a_version_resource(tmp_path):
    import struct
    # VS_FIXEDFILEINFO: signature, struct version 1.0, file version 1.15.4.0
    blob = b"MZ" + b"\0" * 100 + struct.pack("<IIII", 0xFEEF04BD, 0x00010000, (1 << 16) | 15, 4 << 16)
    (tmp_path / "fake.dll").write_bytes(blob + b"\0" * 40)
    assert devinfo.file_version(str(tmp_path / "fake.dll")) == "1.15.4.0"
    (tmp_path / "none.dll").write_bytes(b"MZ" + b"\0" * 64)
    assert devinfo.file_version(str(tmp_path / "none.dll")) is None
    assert devinfo.feature_level_name(0x6400) == "6_4"


# ---- graphs: several parameter sets, one session -------------------------------------------------------
def test_multi_node_graph_keeps_each_case_on_its_own_node():
    """Three Clip parameter sets share one graph; each output must follow its own bounds."""
    chosen = pick("ELEMENT_WISE_CLIP/float32/rank2")
    assert len({tuple(sorted(c.params.items(), key=str)) for c in chosen}) >= 4
    backend = cpu_worker("cpu-worker", {})
    try:
        backend.prepare(chosen)
        items = [(case, case.make_input()) for case in chosen]
        outcomes = backend.run_many(items)
        assert backend.sessions_created == 1
        for (case, x), outcome in zip(items, outcomes):
            assert outcome.status == base.OK
            np.testing.assert_array_equal(outcome.output, np.clip(x, case.params["Min"], case.params["Max"]))
    finally:
        backend.close()


def test_shared_graph_names_inputs_outputs_and_nodes_by_index():
    """The worker feeds x{i}, fetches y{i} and reads node i's placement as {op}_{i}."""
    nodes = [specs.get("ELEMENT_WISE_CLIP").to_onnx("float16", {"Min": lo, "Max": 1.0, "ScaleBias": None})
             for lo in (-1.0, 0.0)]
    import onnx
    model = onnx.load_from_string(multi_node_model(nodes, "float16"))
    assert [n.name for n in model.graph.node] == ["Clip_0", "Clip_1"]
    assert [list(n.input) for n in model.graph.node] == [["x0", "c0_0", "c0_1"], ["x1", "c1_0", "c1_1"]]


def test_cpu_worker_gives_the_same_records_as_cpu_with_far_fewer_sessions():
    cpu_records = run(backends.create("cpu"), ALL_CASES)
    worker = backends.create("cpu-worker")
    worker_records = run(worker, ALL_CASES)
    families = {(c.op, c.dtype) for c in ALL_CASES if not c.in_place and c.params.get("ScaleBias") is None
                and not (c.op == "ACTIVATION_CELU" and c.dtype == "float16")}
    # One graph a family; a family the provider refuses as a whole is split, one graph a parameter set.
    refused = {(r["op"], r["dtype"], str(r["params"])) for r in cpu_records
               if r["status"] in (statuses.UNSUPPORTED, statuses.UNSUPPORTED_REQUIRED)}
    # a node kept alone (a shared graph's placeholder refused: Tile, Gather) has a graph per parameter set
    alone = {(r["op"], r["dtype"], str(r["params"])) for r in cpu_records if r["status"] != statuses.NOT_REACHABLE
             and specs.get(r["op"]).to_onnx(r["dtype"], r["params"]).alone}
    assert worker.sessions_created <= len(families) + len(refused) + len(alone)
    cpu_sets = {(r["op"], r["dtype"], str(r["params"])) for r in cpu_records if r["status"] != statuses.NOT_REACHABLE}
    # cpu needs a session a parameter set; the worker one a family: what the families with several
    # parameter sets save (operators without fields have one set a family and save nothing).
    saved = len(cpu_sets) - len({(op, dtype) for op, dtype, _ in cpu_sets})
    assert saved > 100 and worker.sessions_created <= len(cpu_sets) - saved + len(refused) + len(alone)
    expected = by_id(cpu_records)
    assert len(worker_records) == len(expected) > 700
    for record in worker_records:
        want = expected[record["id"]]
        assert (record["status"], record["max_ulp"], record["mismatches"]) == \
               (want["status"], want["max_ulp"], want["mismatches"]), record["id"]
        if record["status"] in (statuses.PASS, statuses.FAIL):
            assert set(record["placement"].values()) == {"CPUExecutionProvider"}, record["id"]


def test_in_process_transport_serves_the_same_engine():
    chosen = pick("ACTIVATION_SCALED_ELU/float16/rank4")
    records = run(backends.create("cpu-worker", {"transport": "inprocess"}), chosen)
    assert {r["status"] for r in records} <= {statuses.PASS, statuses.FAIL, statuses.NOT_REACHABLE}
    assert any(r["status"] == statuses.PASS for r in records)


def test_without_prepare_graphs_grow_batch_by_batch_and_still_agree():
    chosen = pick("ELEMENT_WISE_CONSTANT_POW and float32")
    backend = cpu_worker("cpu-worker", {"max_nodes": "3"})
    try:
        for start in range(0, len(chosen), 10):
            batch = chosen[start:start + 10]
            for case, outcome in zip(batch, backend.run_many([(c, c.make_input()) for c in batch])):
                assert outcome.status in (base.OK, base.NOT_REACHABLE), (case.id, outcome.message)
        assert backend.sessions_created >= 4  # at most three nodes a graph
    finally:
        backend.close()


def test_placement_on_another_provider_is_cpu_fallback():
    """The provider under test is Azure (it takes no node), fallback allowed: every node lands on
    the CPU provider, and the profile says so."""
    import onnxruntime
    if "AzureExecutionProvider" not in onnxruntime.get_available_providers():
        missing("this onnxruntime has no AzureExecutionProvider to put nodes elsewhere than CPU")
    from conformance.backends.worker_channels import socket_factory
    from conformance.backends.worker_launchers import NativeLauncher
    settings, options = worker_settings({})
    backend = WorkerBackend("azure-worker", "AzureExecutionProvider", options, {},
                            socket_factory(NativeLauncher(), settings), settings)
    chosen = pick("ELEMENT_WISE_CLIP/float32/rank3")
    records = run(backend, chosen)
    assert {r["status"] for r in records} == {statuses.CPU_FALLBACK}
    assert all(set(r["placement"].values()) == {"CPUExecutionProvider"} for r in records)
    assert "ran on CPUExecutionProvider" in records[0]["message"]


# ---- faults: a dead, hung or babbling worker fails only the cases in flight -------------------------
def _three_batches(monkeypatch, expression, size=8):
    monkeypatch.setattr(runner, "BATCH", size)
    chosen = [c for c in pick(expression) if not c.in_place and c.params.get("ScaleBias") is None][:3 * size]
    assert len(chosen) == 3 * size, len(chosen)
    return chosen


def _inject_delay(number, seconds=5):
    def hook(channel, header):
        if header.get("id") == number:
            header["debug_delay"] = seconds
    return hook


def _on_round_trip(number, action):
    def hook(channel, header):
        if header.get("id") == number:
            action(channel)
    return hook


def test_killed_worker_mid_run_fails_the_batch_in_flight_and_the_run_goes_on(monkeypatch):
    chosen = _three_batches(monkeypatch, "ELEMENT_WISE_CLIP and float32")
    backend = backends.create("cpu-worker", {"test_hooks": "1"})
    first_pids = backend.worker_pids()
    killed = []

    def kill(channel):
        for pid in channel.pids():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    backend.before_send = _inject_delay(2)  # the worker is still busy with batch 2 when it is killed
    backend.after_send = _on_round_trip(2, kill)
    records = run(backend, chosen)
    assert killed == first_pids
    statuses_by_batch = [[r["status"] for r in records[i:i + 8]] for i in (0, 8, 16)]
    assert set(statuses_by_batch[0]) == {statuses.PASS}
    assert set(statuses_by_batch[1]) == {statuses.CRASH}
    assert set(statuses_by_batch[2]) == {statuses.PASS}
    message = records[8]["message"]
    assert "worker" in message and "8 case(s) in flight" in message and "last output" in message
    assert backend.worker_starts == 2 and backend.restarts == 1
    assert backend.sessions_created == 2  # the family's graph again, in the new worker


def test_hung_worker_times_out_is_replaced_and_the_run_goes_on(monkeypatch):
    chosen = _three_batches(monkeypatch, "ACTIVATION_SCALED_ELU and float32")
    backend = backends.create("cpu-worker", {"timeout": "3", "session_timeout": "1", "test_hooks": "1"})
    backend.before_send = _inject_delay(2)
    stopped = []

    def stop(channel):
        for pid in channel.pids():
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
    backend.after_send = _on_round_trip(2, stop)
    began = time.monotonic()
    records = run(backend, chosen)
    assert stopped and time.monotonic() - began < 60
    assert {r["status"] for r in records[8:16]} == {statuses.TIMEOUT}
    assert "did not answer in time (limit 3 s)" in records[8]["message"]
    assert {r["status"] for r in records[16:]} <= {statuses.PASS, statuses.FAIL}
    assert backend.worker_starts == 2
    for pid in stopped:  # killed, not left stopped
        with pytest.raises(OSError):
            os.kill(pid, 0)


def _inject(number, fault):
    def hook(channel, header):
        if header.get("id") == number:
            header["debug"] = fault  # the worker meets the fault while it handles this batch
    return hook


def test_garbage_from_the_worker_fails_the_batch_in_flight(monkeypatch):
    chosen = _three_batches(monkeypatch, "ELEMENT_WISE_CONSTANT_POW and float16")
    backend = backends.create("cpu-worker", {"test_hooks": "1"})
    backend.before_send = _inject(2, "garbage")
    records = run(backend, chosen)
    assert {r["status"] for r in records[:8]} <= {statuses.PASS, statuses.FAIL}
    assert {r["status"] for r in records[8:16]} == {statuses.CRASH}
    assert "garbage" in records[8]["message"]
    assert {r["status"] for r in records[16:]} <= {statuses.PASS, statuses.FAIL}
    assert backend.worker_starts == 2


def test_native_crash_inside_the_worker_is_a_crash_with_its_last_words(monkeypatch):
    chosen = _three_batches(monkeypatch, "ELEMENT_WISE_CLIP and float16")
    backend = backends.create("cpu-worker", {"test_hooks": "1"})
    backend.before_send = _inject(2, "crash")
    records = run(backend, chosen)
    assert {r["status"] for r in records[8:16]} == {statuses.CRASH}
    assert "Fatal Python error" in records[8]["message"]  # faulthandler's report, from the worker's log
    assert {r["status"] for r in records[16:]} <= {statuses.PASS, statuses.FAIL}
    assert backend.restarts == 1


def test_a_worker_that_dies_between_batches_is_replaced_and_nothing_fails():
    chosen = [c for c in pick("ELEMENT_WISE_CLIP and uint8 and uniform")][:12]
    backend = backends.create("cpu-worker")
    try:
        first = backend.run_many([(c, c.make_input()) for c in chosen[:6]])
        for pid in backend.worker_pids():  # the worker dies while idle
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while backend.worker_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not backend.worker_alive()
        second = backend.run_many([(c, c.make_input()) for c in chosen[6:]])
    finally:
        close(backend)
    assert {o.status for o in first + second} == {base.OK}
    assert backend.restarts == 1 and backend.worker_starts == 2


def test_a_graph_that_keeps_killing_the_worker_is_not_sent_again(monkeypatch):
    chosen = _three_batches(monkeypatch, "ELEMENT_WISE_CLIP and int16", size=4)
    backend = backends.create("cpu-worker", {"test_hooks": "1"})
    # each request held in the worker long enough to be killed in it: without the delay a worker under
    # load could answer its 4 small cases (4 ms) before the SIGKILL landed, die between batches, and
    # take a third start (seen in CI)
    backend.before_send = lambda channel, header: header.update(debug_delay=5)
    backend.after_send = lambda channel, header: [os.kill(pid, signal.SIGKILL) for pid in channel.pids()]
    records = run(backend, chosen)
    assert [r["status"] for r in records] == [statuses.CRASH] * 12
    assert "not sent" in records[-1]["message"], records[-1]["message"]
    assert backend.worker_starts == 2, (f"{backend.worker_starts} starts: {backend.restarts} restarts, "
                                        f"{backend.recycles} recycles, {backend.worker_deaths} deaths; "
                                        + " | ".join(r["message"][:200] for r in records))


def test_a_worker_that_cannot_start_is_unavailable_with_its_reason(tmp_path):
    from conformance.backends.worker_channels import socket_factory
    from conformance.backends.worker_launchers import NativeLauncher
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'no onnxruntime on this interpreter' >&2\nexit 3\n")
    fake.chmod(0o755)
    settings, options = worker_settings({"startup_timeout": "20"})
    with pytest.raises(base.BackendUnavailable, match="exited before it connected.*no onnxruntime"):
        WorkerBackend("cpu-worker", "CPUExecutionProvider", options, {},
                      socket_factory(NativeLauncher(python=str(fake)), settings), settings)


def test_options_split_between_harness_and_provider():
    settings, options = worker_settings({"graph_fusion": "off", "max_nodes": "5", "device_id": "1",
                                   "disable_metacommands": "true"})
    assert settings["graph_fusion"] is False and settings["max_nodes"] == 5
    assert options == {"device_id": "1", "disable_metacommands": "true"}
    assert worker_settings({"disable_graph_fusion": "1"})[0]["graph_fusion"] is False
    with pytest.raises(BadInput, match="graph_fusion"):
        worker_settings({"graph_fusion": "sometimes"})
    with pytest.raises(BadInput, match="max_nodes=five"):
        worker_settings({"max_nodes": "five"})


def test_a_provider_that_cannot_start_in_a_full_worker_is_retried_in_a_fresh_one(monkeypatch):
    # Under Wine each DirectML session keeps its device until the worker ends; past some number of
    # them the provider fails to start (on the H100: docs/gpu/catalogue/README.md). The test hook makes
    # the worker's provider fail once it holds two sessions: each such session goes again in a fresh
    # worker, and the records are those of a worker without the limit.
    cases = select(ALL_CASES, "float32 and rank4 and (ACTIVATION_CELU or ELEMENT_WISE_CLIP or ELEMENT_WISE_ABS "
                              "or ACTIVATION_SIGMOID or ELEMENT_WISE_EXP or ELEMENT_WISE_ADD)")
    plain = by_id(run(backends.create("cpu-worker", {"test_hooks": "1"}), cases))
    monkeypatch.setenv("DMLC_WORKER_PROVIDER_LIMIT", "2")
    limited = backends.create("cpu-worker", {"test_hooks": "1"})
    records = run(limited, cases)
    assert limited.recycles >= 2, limited.recycles
    assert len(records) == len(plain) > 10
    for record in records:
        want = plain[record["id"]]
        assert (record["status"], record["max_ulp"], record["message"]) == \
               (want["status"], want["max_ulp"], want["message"]), record["id"]


def test_a_worker_that_ends_before_its_hello_without_a_word_is_started_once_more(tmp_path, monkeypatch):
    """A worker process that exits before it connects and writes nothing (a Wine start failing under load, seen
    once in CI) gets one more try, and the backend runs; one that fails so twice is a one-line BackendUnavailable."""
    once = tmp_path / "ended-once"
    monkeypatch.setenv("DMLC_WORKER_TEST_SILENT_EXIT", str(once))
    backend = backends.create("cpu-worker", {"test_hooks": "1"})
    try:
        assert once.exists(), "expected the first worker to have ended without a word"
        x = np.array([1.0, -2.0], np.float32)
        from conformance.caseset.case import Case
        case = Case(id="ELEMENT_WISE_ABS/float32/[2]", op="ELEMENT_WISE_ABS", dtype="float32", shape=(2,), params={},
                    generator={"kind": "test"}, required_level="1_0", tolerance=0)
        (outcome,) = backend.run_many([(case, x)])
        assert outcome.status == base.OK and outcome.output.tolist() == [1.0, 2.0], outcome.message
    finally:
        backend.close()
    monkeypatch.setenv("DMLC_WORKER_TEST_SILENT_EXIT", "always")
    began = time.monotonic()
    with pytest.raises(base.BackendUnavailable) as refused:
        backends.create("cpu-worker", {"test_hooks": "1"})
    message = str(refused.value)
    assert "exited before it connected" in message and "wrote nothing" in message and "\n" not in message, message
    assert time.monotonic() - began < 60
