"""The dml-direct worker process: the Wine lane's transport and main loop, the dmldirect engine.

    python.exe Z:/.../conformance/dmldirect/worker.py --connect 127.0.0.1:PORT --token-file F --log Z:/.../w.log
        [--adapter N] [--min-feature-level 1_0] [--dll PATH] [--heap-descriptors 4096] [--debug-layer]
        [--shared Z:/dev/shm/.../region --shared-size BYTES]   (memory shared with the harness)
    python.exe .../worker.py --self-check OUT.json [--adapter N] ...   (no socket: the device's hello, JSON out)

The frames (conformance.worker.protocol), the connection, the hello and the serve loop
(conformance.worker.server.connect_and_serve) are the dml-wine worker's own; only the engine
differs (conformance.dmldirect.service.Engine instead of ONNX Runtime sessions). Run by path: the
embeddable Python's ._pth keeps the script's folder off sys.path, so the folder that holds the
package (two folders up) is put there first: under Wine, a private copy of the package
(conformance/backends/dml_direct.py, WineLauncher), never site-packages, whose Linux numpy would
hide the Windows one. Under Wine, stdout is a pseudo-terminal nobody reads: replies go over the
socket, diagnostics to --log.
"""
import argparse
import json
import os
import sys
import traceback

sys.dont_write_bytecode = True  # no Windows .pyc where it runs from (a checkout may be shared with Linux)
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from conformance.worker.server import add_worker_arguments, connect_and_serve, open_log  # noqa: E402
from conformance.dmldirect.runtime import BUFFERS, SUBMIT  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="dml-direct-worker")
    add_worker_arguments(parser)
    parser.add_argument("--adapter", default="0", help="DXGI adapter index, or 'default' (D3D12's own choice)")
    parser.add_argument("--min-feature-level", default="1_0")
    parser.add_argument("--dll", help="DirectML.dll (default: the one in the onnxruntime-directml wheel)")
    parser.add_argument("--heap-descriptors", type=int, default=4096)
    parser.add_argument("--debug-layer", action="store_true", help="DML_CREATE_DEVICE_FLAG_DEBUG")
    parser.add_argument("--submit", choices=SUBMIT, default=SUBMIT[0])
    parser.add_argument("--buffers", choices=BUFFERS, default=BUFFERS[0])
    parser.add_argument("--shared", help="a file the harness maps too (conformance.worker.shared)")
    parser.add_argument("--shared-size", type=int, default=0)
    args = parser.parse_args(argv)
    log = open_log(args.log)

    def note(message):
        print(message, file=log, flush=True)

    options = dict(adapter=args.adapter, min_feature_level=args.min_feature_level, dll=args.dll,
                   heap_descriptors=args.heap_descriptors, debug=args.debug_layer, log=note, submit=args.submit,
                   buffers=args.buffers)
    if args.self_check:
        return _self_check(args.self_check, options)
    if not args.connect:
        parser.error("--connect or --self-check is required")

    def make_engine():
        from conformance.dmldirect.service import Engine
        region, shared = _map_shared(args.shared, args.shared_size)
        engine = Engine(**options, shared=region)
        return engine, dict(engine.hello(), shared=shared)

    return connect_and_serve(args, make_engine, log, kind="dml-direct", ready=lambda hello: (
        f"dml-direct worker ready: {hello['directml_dll']} ({hello.get('directml_dll_version')}), "
        f"feature level {hello['feature_level_max']}, adapter {hello.get('adapter')}"))


def _map_shared(path, size):
    """(Region or None, what the hello says of it): the harness falls back to the socket when the
    worker could not map the file."""
    if not path:
        return None, {"mapped": False, "why": "not offered"}
    try:
        from conformance.worker.shared import Region
        return Region(path, size), {"mapped": True, "size": size}
    except (OSError, ValueError) as error:
        return None, {"mapped": False, "why": f"{type(error).__name__}: {error}"}


def _self_check(path, options) -> int:
    """Create the device and ask it what it supports (no operator: the worker knows none; the
    harness's own runs check numbers, tests/test_dml_direct.py)."""
    result = {"ok": False}
    try:
        from conformance.dmldirect.service import Engine
        engine = Engine(**options)
        result["hello"] = engine.hello()
        result["ok"] = bool(result["hello"].get("feature_level_max"))
    except BaseException as error:
        result["problem"] = f"{type(error).__name__}: {error}"
        result["traceback"] = traceback.format_exc()
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1, default=str)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
