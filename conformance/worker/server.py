"""The worker process: connects back to the harness, says hello, then serves requests until told
to exit or the harness goes away.

    python -m conformance.worker --connect 127.0.0.1:PORT --token-file FILE [--log FILE]
    python.exe <copy>\\dmlc_worker\\__main__.py ...        (Windows Python under Wine)
    ... --self-check OUT.json                               (no socket: check the provider, write JSON)

Under Wine the process's stdout is a pseudo-terminal that nobody reads: everything worth
reading goes over the socket, and diagnostics go to --log (the harness shows its tail when
the worker dies).
"""
import argparse
import faulthandler
import json
import os
import socket
import sys
import time
import traceback

from . import protocol

GARBAGE = b"\x00\xffthis is not a frame\r\n" * 4


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="dmlc-worker")
    add_worker_arguments(parser)
    parser.add_argument("--no-device-probe", action="store_true", help="skip the DXGI/D3D12 queries")
    parser.add_argument("--no-directml-load", action="store_true",
                        help="do not make ONNX Runtime load DirectML.dll before the hello (a later worker of a run)")
    parser.add_argument("--provider", default="DmlExecutionProvider")
    args = parser.parse_args(argv)
    log = open_log(args.log)
    if args.self_check:
        return _self_check(args, log)
    if not args.connect:
        parser.error("--connect or --self-check is required")

    def make_engine():
        from .engine import Engine
        # Beside the log: should this worker be killed before it closes the engine, its profiles
        # go with the log folder, which the harness removes (or keeps, saying where).
        engine = Engine(profile_root=os.path.dirname(os.path.abspath(args.log)) if args.log else None)
        return engine, engine.hello(probe_device=not args.no_device_probe, load_directml=not args.no_directml_load)

    return connect_and_serve(args, make_engine, log, ready=lambda hello: (
        f"worker ready: onnxruntime {hello['onnxruntime']}, DirectML.dll {hello.get('directml_dll')}"))


def add_worker_arguments(parser):
    """The arguments every worker entry point takes: --connect, --token-file, --log, --self-check."""
    parser.add_argument("--connect", help="HOST:PORT of the harness")
    parser.add_argument("--token-file", help="a file (mode 0600) holding the secret this worker echoes in its "
                                             "hello, so the harness knows its worker; never the secret itself "
                                             "on the command line, which every user can read")
    parser.add_argument("--log", help="diagnostics file (stdout and stderr go there too)")
    parser.add_argument("--self-check", metavar="OUT_JSON", help="check the engine and exit")


def connect_and_serve(args, make_engine, log, kind=None, ready=None) -> int:
    """A worker's life once its arguments are read: connect back to the harness (args.connect,
    loopback TCP, TCP_NODELAY), make the engine (make_engine() -> (engine, hello)), say hello
    with the secret of args.token_file, or say why there is no engine (kind, where given, names the worker in that
    answer) and exit with 2; then serve until told to exit or the harness goes away.
    ready(hello) -> the line logged once the hello is sent."""
    silent = os.environ.get("DMLC_WORKER_TEST_SILENT_EXIT") if os.environ.get("DMLC_WORKER_TEST_HOOKS") == "1" else None
    if silent and (silent == "always" or not os.path.exists(silent)):  # a test's start failing without a word
        if silent != "always":  # once: the file marks it done
            open(silent, "w").close()
        os._exit(3)
    token = ""
    if args.token_file:
        with open(args.token_file, encoding="ascii") as handle:
            token = handle.read().strip()
    host, _, port = args.connect.rpartition(":")
    sock = socket.create_connection((host, int(port)), timeout=60)
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        engine, hello = make_engine()
    except BaseException as error:
        failure = {"op": "hello", "ok": False, "token": token, **({"kind": kind} if kind else {})}
        protocol.send(sock, dict(failure, error=f"{type(error).__name__}: {error}",
                                 traceback=traceback.format_exc()))
        return 2
    protocol.send(sock, dict(hello, ok=True, token=token))
    if ready is not None:
        print(ready(hello), file=log, flush=True)
    try:
        return serve(sock, engine, log)
    finally:
        if hasattr(engine, "close"):  # the ONNX Runtime engine's profile folder
            engine.close()


def serve(sock, engine, log) -> int:
    while True:
        try:
            header, buffers = protocol.recv(sock)
        except protocol.PeerClosed:
            return 0
        started = time.perf_counter()
        try:
            reply, out = engine.handle(header, buffers)
        except Exception as error:
            print(traceback.format_exc(), file=log, flush=True)
            reply, out = {"op": "error", "id": header.get("id"),
                          "error": f"{type(error).__name__}: {error}"}, []
        if reply.get("op") == "garbage":
            sock.sendall(GARBAGE)
            continue
        reply["worker_seconds"] = round(time.perf_counter() - started, 6)
        protocol.send(sock, reply, out)
        if header.get("op") == "batch":
            print(f"batch {header.get('id')}: {len(header.get('sessions', []))} sessions, "
                  f"{len(header.get('runs', []))} runs, {reply['worker_seconds']:.3f} s", file=log, flush=True)
        if header.get("op") == "exit":
            return 0


def _self_check(args, log) -> int:
    from .engine import Engine, selfcheck
    result, engine = {"ok": False}, None
    try:
        engine = Engine()
        result["hello"] = engine.hello()
        result.update(selfcheck(engine, args.provider, {"device_id": "0"}
                                if args.provider == "DmlExecutionProvider" else {}))
    except BaseException as error:
        result["problem"] = f"{type(error).__name__}: {error}"
        result["traceback"] = traceback.format_exc()
    finally:
        if engine is not None:
            engine.close()
    with open(args.self_check, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1, default=str)
    print(json.dumps(result, default=str), file=log, flush=True)
    return 0 if result.get("ok") else 1


def open_log(path):
    """The worker's diagnostics file (stdout, stderr and faulthandler's reports go there), or
    stderr without one."""
    if not path:
        return sys.stderr
    log = open(path, "a", buffering=1, encoding="utf-8", errors="replace")
    sys.stdout = sys.stderr = log
    faulthandler.enable(log)
    return log
