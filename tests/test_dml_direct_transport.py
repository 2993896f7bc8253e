"""dml-direct's transport: memory shared with the Windows worker under Wine, sweep chunks the worker
makes itself, the socket as fallback. Real DirectML.dll under Wine (lavapipe here); no mock.

The records must be the same whichever way the arrays travel, and nothing (the /dev/shm file, the
worker) may outlive the harness, also when it is killed.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from needs import missing

from conformance.caseset.caseload import load_file
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.worker import shared

ROOT = Path(__file__).resolve().parents[1]

CASES = """operator: ACTIVATION_CELU
groups:
  - name: sweep slice
    dtypes: [float32]
    shapes: [auto]
    params: {Alpha: 1.0}
    inputs:
      - {kind: exhaustive_float32, step: 2053}
  - name: whole tensors, large and small
    dtypes: [float32, float16]
    shapes: [[300000], [2, 3, 4, 5]]
    params: {Alpha: [1.0, 0.5]}
    inputs:
      - {kind: uniform, low: -10, high: 10}
      - {kind: specials}
"""


def _lane():
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    return dml_direct


def _records(cases, backend, monkeypatch):
    monkeypatch.setattr(runner, "STREAM_CHUNK", 1 << 19)  # the slice (2**32 / 2053 elements) in 5 chunks
    records = runner.run(cases, backend, "5_0", ResultsWriter(None), jobs=2).records
    for record in records:
        record.pop("seconds")
    return records


def test_records_are_the_same_over_shared_memory_and_the_socket(write_case_file, monkeypatch):
    dml_direct = _lane()
    cases = load_file(write_case_file(CASES))
    assert any(c.generator["kind"] == "exhaustive_float32" for c in cases)
    both = {}
    for transport in ("tcp", "auto"):
        backend = dml_direct.DmlDirectBackend("dml-direct", {"transport": transport})
        try:
            both[transport] = _records(cases, backend, monkeypatch)
            if transport == "auto":
                assert backend.region is not None, backend.transport()
                assert not os.path.exists(backend.region.path)  # removed once the worker had mapped it
                assert backend.metadata()["transport"].startswith("shared memory")
                assert backend.last_timing["execute"] > 0 and backend.last_timing["round_trip"] > 0
            else:
                assert backend.region is None and "transport=tcp" in backend.transport()
        finally:
            backend.close()
    assert [r["status"] for r in both["auto"]].count("error") == 0
    streamed = [r for r in both["auto"] if "exhaustive_float32" in r["id"]]
    assert streamed and streamed[0]["elements"] == len(range(0, 1 << 32, 2053))
    assert both["auto"] == both["tcp"]


def test_no_shared_memory_falls_back_to_the_socket(tmp_path):
    region, why = shared.create(1 << 20, str(tmp_path / "absent"))
    assert region is None and "absent" in why


def test_the_folder_is_claimed_before_it_exists(tmp_path):
    # The guard must know the folder before it is made: a harness killed between the two leaves none.
    seen = []
    region, folder = shared.create(1 << 20, str(tmp_path), claim=lambda f: seen.append((f, os.path.exists(f))))
    try:
        assert region is not None, folder
        assert seen == [(folder, False)] and os.path.isfile(os.path.join(folder, "region"))
    finally:
        region.close()
        shared.remove(folder)
    assert not os.path.exists(folder)


def _harness(code):
    script = ("import sys, time\n"
              f"sys.path.insert(0, {str(ROOT)!r})\n"
              "from conformance.worker import shared\n"
              "from conformance.backends import dml_direct\n"
              "made = shared.create\n"
              "def create(size, directory=shared.DIRECTORY, claim=None):\n"
              "    region, folder = made(size, directory, claim)\n"
              "    print('FOLDER', folder, flush=True)\n"
              "    return region, folder\n"
              "shared.create = create\n" + code)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)


def _processes_naming(text):
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def _gone(paths, name, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(os.path.exists(p) for p in paths) and not _processes_naming(name):
            return True
        time.sleep(1)
    return False


@pytest.mark.parametrize("when", ["before the worker's hello", "while a sweep chunk runs"])
def test_nothing_outlives_a_killed_harness(when):
    _lane()
    harness = _harness(
        "import numpy as np\n"
        "from conformance.caseset.case import Case\n"
        "from conformance.caseset import inputs\n"
        "backend = dml_direct.DmlDirectBackend('dml-direct', {})\n"
        "print('STARTED', backend.launcher.prefix, flush=True)\n"
        "case = Case(id='c', op='ACTIVATION_CELU', dtype='float32', shape=(1 << 32,), params={'Alpha': 1.0},\n"
        "            generator={'kind': 'exhaustive_float32'}, required_level='3_0', tolerance=0)\n"
        "while True:\n"
        "    for offset, x in inputs.chunks(case.generator, 'float32', case.shape, 1 << 22):\n"
        "        backend.run_chunk(case, x, inputs.chunk_patterns(case.generator, offset, x.size))\n")
    try:
        line = harness.stdout.readline().split()
        assert line[:1] == ["FOLDER"], line
        folder = line[1]
        prefix = None
        if when == "while a sweep chunk runs":
            line = harness.stdout.readline().split()
            assert line[:1] == ["STARTED"], line
            prefix = line[1]
            assert not os.path.exists(folder)  # removed at the hello
            time.sleep(2)
        else:
            assert os.path.exists(folder)
    finally:
        os.killpg(harness.pid, signal.SIGKILL)
        harness.wait()
    name = os.path.basename(folder)  # on the worker's command line (--shared Z:\dev\shm\NAME\region)
    assert _gone([folder] + ([prefix] if prefix else []), name), \
        f"left behind: {folder if os.path.exists(folder) else ''} processes {_processes_naming(name)}"
