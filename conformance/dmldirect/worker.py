"""The dml-direct worker process: the Wine lane's transport and main loop, the dmldirect engine.

    python.exe Z:/.../conformance/dmldirect/worker.py --connect 127.0.0.1:PORT --token T --log Z:/.../w.log
        [--adapter N] [--min-feature-level 1_0] [--dll PATH] [--heap-descriptors 4096] [--debug-layer]
    python.exe .../worker.py --self-check OUT.json [--adapter N] ...   (no socket: one FLOAT16 CELU, JSON out)

The frames (conformance.worker.protocol) and the serve loop (conformance.worker.server.serve) are
the dml-wine worker's own; only the engine differs (conformance.dmldirect.service.Engine instead of
ONNX Runtime sessions). Run by path: the embeddable Python's ._pth keeps the script's folder off
sys.path, so the repository root (two folders up) is put there first. Under Wine, stdout is a
pseudo-terminal nobody reads: replies go over the socket, diagnostics to --log.
"""
import argparse
import json
import os
import socket
import sys
import traceback

sys.dont_write_bytecode = True  # the repository is shared with the Linux side: no Windows .pyc there
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="dml-direct-worker")
    parser.add_argument("--connect", help="HOST:PORT of the harness")
    parser.add_argument("--token", default="")
    parser.add_argument("--log")
    parser.add_argument("--adapter", default="0", help="DXGI adapter index, or 'default' (D3D12's own choice)")
    parser.add_argument("--min-feature-level", default="1_0")
    parser.add_argument("--dll", help="DirectML.dll (default: the one in the onnxruntime-directml wheel)")
    parser.add_argument("--heap-descriptors", type=int, default=4096)
    parser.add_argument("--debug-layer", action="store_true", help="DML_CREATE_DEVICE_FLAG_DEBUG")
    parser.add_argument("--self-check", metavar="OUT_JSON")
    args = parser.parse_args(argv)
    log = _open_log(args.log)

    def note(message):
        print(message, file=log, flush=True)

    options = dict(adapter=args.adapter, min_feature_level=args.min_feature_level, dll=args.dll,
                   heap_descriptors=args.heap_descriptors, debug=args.debug_layer, log=note)
    if args.self_check:
        return _self_check(args.self_check, options)
    if not args.connect:
        parser.error("--connect or --self-check is required")
    from conformance.worker import protocol
    from conformance.worker.server import serve
    host, _, port = args.connect.rpartition(":")
    sock = socket.create_connection((host, int(port)), timeout=60)
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        from conformance.dmldirect.service import Engine
        engine = Engine(**options)
        hello = engine.hello()
    except BaseException as error:
        protocol.send(sock, {"op": "hello", "ok": False, "token": args.token, "kind": "dml-direct",
                             "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()})
        return 2
    protocol.send(sock, dict(hello, ok=True, token=args.token))
    note(f"dml-direct worker ready: {hello['directml_dll']} ({hello.get('directml_dll_version')}), "
         f"feature level {hello['feature_level_max']}, adapter {hello.get('adapter')}")
    return serve(sock, engine, log)


def _self_check(path, options) -> int:
    """Create the device, run FLOAT16 CELU (unreachable through ONNX Runtime) and check it."""
    result = {"ok": False}
    try:
        import numpy as np
        from conformance.dmldirect.service import Engine
        from conformance.worker import protocol
        engine = Engine(**options)
        result["hello"] = engine.hello()
        x = np.array([-3.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.0], np.float16)
        buffers = protocol.Buffers()
        header = {"op": "run", "cases": [{"id": "selfcheck", "op": "ACTIVATION_CELU", "dtype": "float16",
                                          "shape": [7], "params": {"Alpha": 1.0}, "input": buffers.put(x)}]}
        reply, out = engine.handle(json.loads(json.dumps(header)), buffers.items)
        case = reply["results"][0]
        result["case"] = {k: v for k, v in case.items() if k != "output"}
        if case["status"] == "ok":
            y = protocol.take(case["output"], out).astype(np.float64)
            xd = x.astype(np.float64)
            expected = np.maximum(0, xd) + np.minimum(0, np.expm1(xd))
            result["output"] = y.tolist()
            result["max_abs_error"] = float(np.max(np.abs(y - expected)))
            result["ok"] = bool(result["max_abs_error"] < 2e-3)
    except BaseException as error:
        result["problem"] = f"{type(error).__name__}: {error}"
        result["traceback"] = traceback.format_exc()
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1, default=str)
    return 0 if result["ok"] else 1


def _open_log(path):
    if not path:
        return sys.stderr
    import faulthandler
    log = open(path, "a", buffering=1, encoding="utf-8", errors="replace")
    sys.stdout = sys.stderr = log
    faulthandler.enable(log)
    return log


if __name__ == "__main__":
    sys.exit(main())
