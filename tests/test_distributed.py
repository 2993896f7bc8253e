"""conformance run --dask: a TLS scheduler and two workers as processes of their own on this machine
(conformance dask-scheduler, conformance dask-worker), runs on the cpu and dml-wine backends and a
sweep spread over them (one worker SIGKILLed mid-sweep), each compared record for record with a
one-machine run; partial tallies joined in any order; another local user kept out; bad input in one
line with its exit code; a Ctrl-C of a local:N run keeping its records and leaving no worker behind."""
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conformance.cli import exitcodes
from conformance.run.dask_tasks import PROOF
from conformance.run.results import read_results
from needs import missing

CONFORMANCE = [sys.executable, "-m", "conformance"]
NOT_COMPARED = {"seconds", "placement", PROOF}  # times, where ONNX Runtime placed nodes, which worker ran it
SWEEP = """operator: ACTIVATION_CELU
groups:
  - dtypes: [float32]
    shapes: [auto]
    params:
      Alpha: [1.0]
    inputs:
      - {kind: exhaustive_float32, step: 256}
"""  # 2**24 elements: 4 stream chunks, a span each on two workers


def _run(args, **kwargs):
    return subprocess.run(CONFORMANCE + args, capture_output=True, text=True, timeout=240, **kwargs)


def _same_records(one, spread):
    h1, r1, f1 = read_results(one)
    h2, r2, f2 = read_results(spread)
    assert [r["id"] for r in r1] == [r["id"] for r in r2] and r1
    for a, b in zip(r1, r2):
        differing = {k for k in set(a) | set(b) if k not in NOT_COMPARED and a.get(k) != b.get(k)}
        assert not differing, (a["id"], {k: (a.get(k), b.get(k)) for k in differing})
    assert not f2["interrupted"] and f2["cases"] == f1["cases"]
    return h2, r2


def _started(command, marker: str, log):
    process = subprocess.Popen(CONFORMANCE + command, stdout=subprocess.PIPE, stderr=log, text=True)
    line = process.stdout.readline()
    assert marker in line, (line, command)
    return process, line.split()[-1 if marker == "scheduler at" else 2]


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask") / "certs"
    assert _run(["dask-certs", str(folder)]).returncode == 0
    return folder


@pytest.fixture(scope="module")
def cluster(certs, tmp_path_factory):
    """(scheduler address, {worker address: its process}); every process killed at the end."""
    processes = []
    log = open(tmp_path_factory.mktemp("logs") / "dask.log", "w")
    try:
        scheduler, address = _started(["dask-scheduler", "--dask-certs", str(certs), "--host", "127.0.0.1",
                                       "--port", "0"], "scheduler at", log)
        processes.append(scheduler)
        workers = {}
        for name in ("w1", "w2"):
            worker, worker_address = _started(["dask-worker", address, "--dask-certs", str(certs), "--name", name,
                                               "--host", "127.0.0.1"], "joined", log)
            processes.append(worker)
            workers[worker_address] = worker
        yield address, workers
    finally:
        for process in processes:
            process.kill()
            process.wait()
        log.close()


def test_partial_tallies_join_into_the_whole_in_any_order():
    """A sweep's chunks verified into one Tally, and in three parts joined in two orders: the same
    Comparison, worst elements and d3d candidates included (every element off, NaN, ties)."""
    from conformance.caseset import inputs
    from conformance.caseset.caseload import load_paths
    from conformance.judge import fast
    from conformance.judge.expected import expected_for
    [case] = [c for c in load_paths(None, 0, None, None, False) if c.op == "ACTIVATION_CELU"][:1]
    chunk = 4096
    generator = {"kind": "exhaustive_float32", "step": 65537}
    count = len(inputs.bit_range(generator))
    pieces = []
    for offset, x in inputs.chunks(generator, "float32", (count,), chunk):
        expected = expected_for(case, x)[0]
        actual = expected.copy().reshape(-1)
        actual[::7] = np.nextafter(actual[::7], np.float32(np.inf))  # ties: 1 ULP off, many of them
        with np.errstate(over="ignore"):
            actual[3::97] *= np.float32(1.5)
        actual[5::301] = np.nan
        pieces.append((offset, x.reshape(-1), actual))

    def tally(of):
        t = fast.Tally((count,), "float32")
        with fast.Verifier() as verifier:
            for offset, x, actual in of:
                verifier.add_chunk(t, case, x, actual, offset)
        return t

    whole = tally(pieces).result()
    assert whole.mismatches and whole.worst and whole.d3d["worst"]
    for order in ([0, 1, 2], [2, 0, 1]):
        parts = [tally(pieces[k::3]) for k in range(3)]
        joined = parts[order[0]]
        for k in order[1:]:
            joined.merge(parts[k])
        assert joined.result() == whole


def test_a_cpu_run_over_two_workers_is_a_one_machine_run(cluster, certs, tmp_path):
    address, workers = cluster
    selection = ["--op", "ELEMENT_WISE_ADD", "--op", "ACTIVATION_CELU", "--backend", "cpu", "--quiet"]
    one = _run(["run", *selection, "--results", str(tmp_path / "one.jsonl")])
    spread = _run(["run", *selection, "--results", str(tmp_path / "spread.jsonl"), "--dask", address,
                   "--dask-certs", str(certs)])
    assert spread.returncode == one.returncode, spread.stderr[-2000:]
    header, records = _same_records(tmp_path / "one.jsonl", tmp_path / "spread.jsonl")
    listed = {worker["address"] for worker in header["dask"]["workers"]}
    assert listed == set(workers) and all(w["device"] for w in header["dask"]["workers"])
    used = {record[PROOF][0]["address"] for record in records}
    assert used == listed  # twelve (operator, type) groups: both workers took some


def test_a_dml_wine_run_over_two_workers_is_a_one_machine_run(cluster, certs, tmp_path):
    from conformance.backends import dml_wine
    lane, reason = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({reason}): bash scripts/setup-dml-wine.sh")
    address, workers = cluster
    selection = ["--op", "ELEMENT_WISE_ABS", "-k", "float32 or float16", "--backend", "dml-wine", "--quiet"]
    spread = subprocess.Popen(CONFORMANCE + ["run", *selection, "--results", str(tmp_path / "spread.jsonl"),
                                             "--dask", address, "--dask-certs", str(certs)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    one = _run(["run", *selection, "--results", str(tmp_path / "one.jsonl")])
    _, err = spread.communicate(timeout=240)
    assert spread.returncode == one.returncode == 0, err[-2000:]
    header, records = _same_records(tmp_path / "one.jsonl", tmp_path / "spread.jsonl")
    proofs = [record[PROOF][0] for record in records]
    assert all(p["directml_loaded"]["sha256"] == header["directml_loaded"]["sha256"] for p in proofs)
    assert {p["address"] for p in proofs} <= set(workers)


def test_a_sweep_over_two_workers_one_killed_mid_sweep_is_a_one_machine_run(cluster, certs, tmp_path):
    """The sweep's spans go to both workers; one is SIGKILLed while it runs a span (the scheduler's
    state says so): that span is run again on the other, and the record is the one-machine run's."""
    from distributed import Client
    from conformance.run import dask_security
    address, workers = cluster
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(SWEEP)
    one = _run(["run", str(sweep), "--backend", "cpu", "--quiet", "--results", str(tmp_path / "one.jsonl")])
    spread = subprocess.Popen(CONFORMANCE + ["run", str(sweep), "--backend", "cpu", "--quiet", "--results",
                                             str(tmp_path / "spread.jsonl"), "--dask", address,
                                             "--dask-certs", str(certs)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    victim, survivor = sorted(workers)
    with Client(address, security=dask_security.security(certs), timeout=10) as watcher:
        deadline, running = time.monotonic() + 60, []
        while not running and time.monotonic() < deadline and spread.poll() is None:
            running = [key for key in watcher.processing(workers=[victim]).get(victim, ())
                       if "-elements-" in str(key)]
            time.sleep(0.01)
        assert running, "the victim never ran a span"
        workers[victim].send_signal(signal.SIGKILL)
    _, err = spread.communicate(timeout=240)
    assert spread.returncode == one.returncode, err[-2000:]
    _, [record] = _same_records(tmp_path / "one.jsonl", tmp_path / "spread.jsonl")
    killed_span = int(str(running[0]).rsplit("-", 1)[1])
    by_worker = {proof["address"]: [span[0] for span in proof["spans"]] for proof in record[PROOF]}
    assert killed_span in by_worker[survivor] and killed_span not in by_worker.get(victim, [])
    assert sorted(s for spans in by_worker.values() for s in spans) == list(range(0, 1 << 24, 1 << 22))


def test_another_local_user_cannot_connect_nor_read_the_keys(cluster, certs):
    """uid 65534 with the same Python and Dask: the certificates folder is closed to it, a client of
    its own making (a temporary CA's certificate, or none) is refused by the scheduler."""
    address, _ = cluster
    probe = ("import sys\nfrom distributed import Client, Security\n"
             f"try:\n    open({str(certs / 'client.key')!r})\nexcept PermissionError:\n    print('no key')\n"
             "for security in (Security.temporary(), None):\n"
             "    try:\n"
             f"        Client({address!r}, security=security, timeout=3).submit(len, 'x').result()\n"
             "        print('connected')\n"
             "    except Exception as error:\n"
             "        print('refused', type(error).__name__)\n")

    def nobody():
        os.setgid(65534)
        os.setgroups([])
        os.setuid(65534)
    import distributed
    site = os.path.dirname(os.path.dirname(distributed.__file__))  # root's venv: its python is not nobody's
    done = subprocess.run(["/usr/bin/python3", "-c", probe], capture_output=True, text=True, timeout=60,
                          preexec_fn=nobody, cwd="/", env={"PYTHONPATH": site, "PATH": "/usr/bin:/bin"})
    lines = done.stdout.split("\n")
    assert lines[0] == "no key" and [line.split()[0] for line in lines[1:3]] == ["refused", "refused"], \
        done.stdout + done.stderr[-2000:]


@pytest.mark.parametrize("args, code, says", [
    (["--dask", "tcp://127.0.0.1:8786"], exitcodes.BAD_INPUT, "a plain tcp:// scheduler lets any local user"),
    (["--dask", "tls://127.0.0.1:8786"], exitcodes.BAD_INPUT, "give --dask-certs DIR"),
    (["--dask", "local:0"], exitcodes.BAD_INPUT, "local:N with N >= 1"),
    (["--dask", "local:1", "--save-failures", "{tmp}/f"], exitcodes.BAD_INPUT, "--save-failures with --dask"),
    (["--dask", "tls://127.0.0.1:9", "--dask-certs", "{certs}"], exitcodes.BACKEND_UNAVAILABLE,
     "cannot reach the Dask scheduler at tls://127.0.0.1:9"),
    (["--dask", "tls://127.0.0.1:9", "--dask-certs", "{open}"], exitcodes.BAD_INPUT, "other users may read it"),
    (["--dask", "local:1", "--backend", "dml"], exitcodes.BACKEND_UNAVAILABLE, "backend dml cannot start"),
])
def test_bad_dask_input_is_one_line(certs, tmp_path, args, code, says):
    opened = tmp_path / "open"
    opened.mkdir(mode=0o755)
    args = [a.format(tmp=tmp_path, certs=certs, open=opened) for a in args]
    done = _run(["run", "--op", "ELEMENT_WISE_ADD", "--backend", "cpu", "--quiet", "--results",
                 str(tmp_path / "r.jsonl"), *args])
    assert done.returncode == code and says in done.stderr, done.stderr[-2000:]
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]


def test_ctrl_c_of_a_local_run_keeps_its_records_and_leaves_no_worker(tmp_path):
    import psutil
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(SWEEP.replace("step: 256", "step: 16"))  # 2**28 elements: far more than the wait below
    results = tmp_path / "r.jsonl"
    run = subprocess.Popen(CONFORMANCE + ["run", str(sweep), "--backend", "cpu", "--quiet", "--results", str(results),
                                          "--dask", "local:2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    deadline, children = time.monotonic() + 60, []
    while time.monotonic() < deadline and len(children) < 2:
        children = [c for c in psutil.Process(run.pid).children(recursive=True) if "python" in c.name()]
        time.sleep(0.1)
    time.sleep(6)  # the workers start and verify some spans
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == exitcodes.INTERRUPTED, err[-2000:]
    header, [record], footer = read_results(results)
    assert footer["interrupted"] and 0 < record["partial"]["verified"] < record["partial"]["of"], record
    time.sleep(1)
    assert len(children) >= 2 and not [c for c in children if c.is_running() and c.status() != "zombie"]


def test_a_run_waits_for_its_workers_and_a_worker_that_cannot_start_its_backend_ends_it(certs, tmp_path):
    """--dask-workers 2: the run starts no case before both workers have joined and started their
    backend; the second joins late, with a GPU this machine does not have, and the run ends before
    any case in one line naming it (without the wait, the first worker would have run every case)."""
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    processes = []
    log = open(tmp_path / "dask.log", "w")
    try:
        scheduler, address = _started(["dask-scheduler", "--dask-certs", str(certs), "--host", "127.0.0.1",
                                       "--port", "0"], "scheduler at", log)
        processes.append(scheduler)
        good, _ = _started(["dask-worker", address, "--dask-certs", str(certs), "--host", "127.0.0.1"], "joined", log)
        processes.append(good)
        results = tmp_path / "r.jsonl"
        run = subprocess.Popen(CONFORMANCE + ["run", "--op", "ELEMENT_WISE_ABS", "-k", "float32", "--backend",
                                              "dml-direct", "--quiet", "--results", str(results), "--dask", address,
                                              "--dask-certs", str(certs), "--dask-workers", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(run)
        time.sleep(3)
        bad, bad_address = _started(["dask-worker", address, "--dask-certs", str(certs), "--host", "127.0.0.1",
                                     "--backend-option", "vulkan_device=7"], "joined", log)
        processes.append(bad)
        _, stderr = run.communicate(timeout=240)
        assert run.returncode == exitcodes.BACKEND_UNAVAILABLE, stderr[-2000:]
        assert len(stderr.strip().splitlines()) == 1 and bad_address in stderr and "vulkan_device=7" in stderr, stderr
        assert not results.exists() or not read_results(results)[1]  # no case ran
    finally:
        for process in processes:
            process.kill()
            process.wait()
        log.close()
