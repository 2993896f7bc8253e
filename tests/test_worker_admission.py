"""Nobody else on the machine can stand in for the device (conformance/backends/admission.py).

An attacker of another uid (nobody, 65534) watches /proc for the worker's command line, tries to
read the secret, and races the real worker to the harness's port with a forged hello, garbage and a
connection that says nothing. The run must go on with its own worker: the header names the real
device, every case is the real one's, and each stranger is dropped and said. Run as root (CI is),
on the native ONNX Runtime worker and on the real DirectML lane (dml-direct and dml-wine under Wine)."""
import json
import os
import subprocess
import sys
import uuid

import pytest
from needs import missing

from conformance.backends import admission
from conformance.run.results import read_results

NOBODY = 65534

# Runs as nobody: finds the worker by a word of its command line (the run's private folder), then
# tries everything it can. Prints what it achieved as JSON.
ATTACKER = r'''
import json, os, re, socket, struct, sys, time
marker = sys.argv[1]
report = {"found": None, "secret_read": None, "forged_served": False, "connections": 0}
deadline = time.time() + 90
while report["found"] is None and time.time() < deadline:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():  # its own command line names the marker too
            continue
        try:
            line = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in line and "--connect" in line:
            report["found"] = line
            break
    else:
        time.sleep(0.005)
if report["found"] is None:
    print(json.dumps(report)); sys.exit(0)
port = int(re.search(r"--connect 127\.0\.0\.1:(\d+)", report["found"]).group(1))
secret = re.search(r"--token-file (\S+)", report["found"])
path = secret.group(1) if secret else ""
if path.startswith("Z:"):
    path = "/" + path[3:].replace("\\", "/")
try:
    report["secret_read"] = open(path).read()
except OSError as error:
    report["secret_read"] = f"refused: {type(error).__name__}"
given = re.search(r"--token (\S+)", report["found"])  # a secret on the command line is anyone's
stolen = given.group(1) if given else report["secret_read"] if not report["secret_read"].startswith("refused") \
    else "0" * 64
def frame(header):
    data = json.dumps(header).encode()
    return b"DMLW" + struct.pack("<I", len(data)) + data
sockets = []
for payload in (frame({"op": "hello", "ok": True, "token": stolen, "device": "FORGED DEVICE",
                       "directml": "9.9.9 (forged)", "onnxruntime": "9.9.9"}),
                b"GARBAGE " * 64, b""):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        continue
    report["connections"] += 1
    if payload:
        s.sendall(payload)
    sockets.append(s)
forged = sockets[0] if sockets else None
if forged is not None:
    forged.settimeout(20)
    try:
        report["forged_served"] = bool(forged.recv(4))  # a request would mean the harness took it
    except OSError:
        pass
print(json.dumps(report))
'''


def _run_attacked(tmp_path, backend, keyword):
    if os.geteuid() != 0:
        missing("the attacker runs as another uid: the test needs root (CI runs as root)")
    marker = f"dmlc-attacked-{uuid.uuid4().hex[:12]}"
    private = tmp_path / marker  # the run's TMPDIR: its folders, and so the worker's command line, carry it
    private.mkdir()
    results = tmp_path / "run.jsonl"
    # the system's Python: the harness's may live where nobody may not enter (/root/.pyenv)
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    attacker = subprocess.Popen([python, "-c", ATTACKER, marker], user=NOBODY, group=NOBODY, cwd="/",
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"})
    try:
        run = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", backend, "-k", keyword,
                              "--quiet", "--results", str(results)], env={**os.environ, "TMPDIR": str(private)},
                             capture_output=True, text=True, timeout=300)
        out, err = attacker.communicate(timeout=120)
    finally:
        attacker.kill()
    report = json.loads(out.strip().splitlines()[-1]) if out.strip() else {"error": err[-2000:]}
    return run, report, results


@pytest.mark.parametrize("backend, keyword", [
    ("cpu-worker", "ELEMENT_WISE_IDENTITY and float32"),
    ("dml-direct", "ELEMENT_WISE_IDENTITY and float32"),
    ("dml-wine", "ELEMENT_WISE_ABS and float32 and rank1"),
])
def test_an_attacker_of_another_uid_cannot_stand_in_for_the_worker(tmp_path, backend, keyword):
    if backend == "dml-direct":
        from conformance.backends import dml_direct
        ready, why = dml_direct.available()
        if not ready:
            missing(f"the dml-direct lane is missing: {why}")
    if backend == "dml-wine":
        from conformance.backends import dml_wine
        lane, why = dml_wine.find_lane()
        if lane is None:
            missing(f"the dml-wine lane is missing: {why}")
    run, report, results = _run_attacked(tmp_path, backend, keyword)
    assert run.returncode in (0, 1), run.stderr[-3000:]
    assert report.get("found"), f"the attacker never saw the worker's command line: {report}"
    assert "--token " not in report["found"] and "--token-file" in report["found"], report["found"]
    assert str(report["secret_read"]).startswith("refused"), report
    assert report["connections"] >= 2 and not report["forged_served"], report
    header, records, _ = read_results(results)
    assert "FORGED" not in json.dumps(header) and "9.9.9" not in json.dumps(header), header
    assert records and {r["status"] for r in records} <= {"pass", "fail", "unsupported", "not-reachable"}, \
        {r["status"] for r in records}
    assert any(r["status"] == "pass" for r in records)
    assert "dropped a connection to the worker's port that was not the worker" in run.stderr, run.stderr[-3000:]


def test_a_stranger_or_garbage_is_dropped_and_the_worker_admitted(tmp_path):
    """admission.admit directly: a forged hello, garbage and a silent connection arrive before the
    worker's hello, each is dropped and said, and the worker's own connection is the one returned."""
    import socket
    import threading
    import time

    from conformance.worker import protocol
    secret, path = admission.write_secret(tmp_path)
    assert oct(path.stat().st_mode & 0o777) == "0o600" and path.read_text() == secret
    server = admission.listener()
    address = server.getsockname()
    strangers = []

    def arrive():
        for payload in (b"", b"GARBAGE" * 20):
            s = socket.create_connection(address)
            strangers.append(s)
            if payload:
                s.sendall(payload)
        s = socket.create_connection(address)
        strangers.append(s)
        protocol.send(s, {"op": "hello", "ok": True, "token": "f" * 64})
        time.sleep(0.3)
        worker = socket.create_connection(address)
        strangers.append(worker)
        protocol.send(worker, {"op": "hello", "ok": True, "token": secret, "device": "mine"})
    threading.Thread(target=arrive).start()
    said = []
    sock, hello = admission.admit(server, secret, time.monotonic() + 20, lambda: True, said.append)
    try:
        assert hello["device"] == "mine"
        assert len(said) >= 2 and all("not the worker" in line for line in said), said
        assert any("does not carry this run's secret" in line for line in said), said
        assert any("bad frame start" in line for line in said), said
    finally:
        sock.close()
        for s in strangers:
            s.close()
    admission.remove_secret(path)
    assert not path.exists()
    with pytest.raises(admission.NotAdmitted, match="exited before"):
        admission.admit(admission.listener(), secret, time.monotonic() + 20, lambda: False, said.append)


def _x11_hello(display: str, cookie: bytes | None, as_user=None) -> int:
    """The first byte of an X server's answer to a connection setup (0 refused, 1 accepted), sent
    over its Unix socket with the MIT-MAGIC-COOKIE-1 cookie or none; as_user: from a child of that uid."""
    import socket
    import struct

    def pad(data):
        return data + b"\0" * (-len(data) % 4)
    name = b"MIT-MAGIC-COOKIE-1" if cookie else b""
    request = struct.pack("<BxHHHHxx", 0x6C, 11, 0, len(name), len(cookie or b"")) + pad(name) + pad(cookie or b"")
    path = f"/tmp/.X11-unix/X{display.lstrip(':')}"
    if as_user is None:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(path)
            sock.sendall(request)
            return sock.recv(1)[0]
    script = ("import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
              "s.sendall(bytes.fromhex(sys.argv[2])); print(s.recv(1)[0])")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    done = subprocess.run([python, "-c", script, path, request.hex()], user=as_user, group=as_user, cwd="/",
                          capture_output=True, text=True, timeout=30)
    return int(done.stdout.strip())


def test_the_worker_display_admits_only_the_holder_of_its_cookie(tmp_path):
    """wine_lane.Xvfb: started with -auth and a fresh cookie in a 0600 file; a client without the
    cookie (another uid among them) is refused, Wine's environment carries XAUTHORITY."""
    import shutil

    from conformance.backends import wine_lane
    if not shutil.which("Xvfb"):
        missing("Xvfb is not installed (scripts/setup-dml-wine.sh installs it)")
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    xvfb = wine_lane.Xvfb(folder / "xvfb.log")
    try:
        environment = xvfb.environment()
        assert environment["XAUTHORITY"] == str(xvfb.authority)
        assert oct(xvfb.authority.stat().st_mode & 0o777) == "0o600"
        cookie = xvfb.authority.read_bytes()[-16:]
        display = environment["DISPLAY"]
        assert _x11_hello(display, None) == 0  # no cookie: refused
        assert _x11_hello(display, bytes(16)) == 0  # a guessed one: refused
        assert _x11_hello(display, cookie) == 1  # the holder of the file: admitted
        if os.geteuid() == 0:
            assert _x11_hello(display, None, as_user=NOBODY) == 0
    finally:
        xvfb.close()
