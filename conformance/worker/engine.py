"""The worker's engine: ONNX Runtime sessions kept by key, many runs per request.

A request (header, buffers) -> a reply (header, buffers); the same object serves
a socket (server.py), a native subprocess, or an in-process caller.

Requests:
  {"op": "hello"}                        -> versions, providers, DirectML.dll, adapters
  {"op": "batch", "sessions": [...], "runs": [...]}
      sessions: {"key", "model": buffer index, "provider", "provider_options",
                 "config": {session config entries}, "sequential_no_mem_pattern": bool,
                 "profile": bool}
      runs:     {"session": key, "feeds": {input: array ref}, "fetch": [output names]}
      Inputs a run leaves out are fed the last non-empty array that input saw in a run
      that succeeded (or a one): ONNX Runtime wants every input, though it runs only the nodes the fetched
      outputs need. A session's first run fetches every output, so that its profile
      proves where every node ran.
  {"op": "forget", "keys": [...]}        -> drops sessions
  {"op": "selfcheck"}                    -> runs a hand-made two-node model (onnxmini)
  {"op": "debug", "action": ...}         -> test hooks, only with DMLC_WORKER_TEST_HOOKS=1 (which also
                                            lets DMLC_WORKER_PRELOAD name a DLL loaded before onnxruntime); a
                                            "debug": action on any request injects the fault there,
                                            "debug_delay": seconds delays its handling
  {"op": "exit"}
Stdlib, numpy and onnxruntime only.
"""
import contextlib
import io
import os
import platform
import shutil
import sys
import tempfile
import time

import numpy as np

from . import devinfo, onnxmini, ortcommon, protocol


class Session:
    def __init__(self, session, provider, profiled):
        self.session = session
        self.provider = provider
        self.profiled = profiled  # placement not yet reported
        self.inputs = {i.name: _numpy_type(i.type) for i in session.get_inputs()}
        self.outputs = [o.name for o in session.get_outputs()]
        self.last_feed = {}


class Engine:
    def __init__(self, test_hooks=None, profile_root=None):
        """profile_root: where the sessions' profile folder goes (default: the temporary folder)."""
        self.test_hooks = os.environ.get("DMLC_WORKER_TEST_HOOKS") == "1" if test_hooks is None else test_hooks
        if self.test_hooks and os.environ.get("DMLC_WORKER_PRELOAD"):
            # A test loads another DirectML.dll before ONNX Runtime does, as an application might: the
            # hello must then name that one.
            import ctypes
            ctypes.WinDLL(os.environ["DMLC_WORKER_PRELOAD"])
        import onnxruntime
        self.ort = onnxruntime
        self.sessions = {}
        self.sessions_created = 0
        self.profile_dir = tempfile.mkdtemp(prefix="dmlc-worker-profile-", dir=profile_root)

    def close(self):
        """Ends the sessions and removes the profile folder."""
        self.sessions.clear()
        shutil.rmtree(self.profile_dir, ignore_errors=True)

    # -- requests -------------------------------------------------------------------------------
    def handle(self, header: dict, buffers: list):
        op = header.get("op")
        if header.get("debug") and self.test_hooks:  # a fault injected into this very request
            return self.debug(header["debug"]), []
        if header.get("debug_delay") and self.test_hooks:  # time for a test to kill us mid-request
            time.sleep(float(header["debug_delay"]))
        if op == "hello":
            return self.hello(probe_device=header.get("probe_device", True)), []
        if op == "batch":
            return self.batch(header, buffers)
        if op == "forget":
            for key in header.get("keys", []):
                self.sessions.pop(key, None)
            return {"op": "forget", "ok": True}, []
        if op == "selfcheck":
            return selfcheck(self, header.get("provider", "DmlExecutionProvider"),
                             header.get("provider_options", {"device_id": "0"})), []
        if op == "exit":
            return {"op": "exit", "ok": True}, []
        if op == "debug" and self.test_hooks:
            return self.debug(header.get("action")), []
        raise ValueError(f"unknown request {op!r}")

    def hello(self, probe_device=True, load_directml=True) -> dict:
        info = {"op": "hello", "protocol": protocol.VERSION, "pid": os.getpid(),
                "python": sys.version.split()[0], "platform": sys.platform, "machine": platform.machine(),
                "executable": sys.executable, "numpy": np.__version__,
                "onnxruntime": self.ort.__version__, "providers": self.ort.get_available_providers()}
        started = time.perf_counter()
        if probe_device and load_directml:
            info["directml_load"] = self._load_directml()
        info.update(devinfo.describe(self.ort, probe_device=probe_device))
        info["probe_seconds"] = round(time.perf_counter() - started, 3)
        return info

    def _load_directml(self):
        """Have ONNX Runtime load DirectML.dll as it would for a case (old releases do it at import,
        newer ones when the first DirectML session is created: then an empty one is created here),
        so that the hello reports the DLL actually loaded. -> how it was loaded, or why not."""
        if sys.platform != "win32" or "DmlExecutionProvider" not in self.ort.get_available_providers():
            return None
        try:
            if devinfo.loaded_dll():
                return "loaded by import onnxruntime"
            options = ortcommon.session_options(self.ort, {"session.disable_cpu_ep_fallback": "1"}, False)
            started = time.perf_counter()
            model = onnxmini.model(nodes=[], inputs=[("x", "float32")], outputs=[("x", "float32")])
            session = self.ort.InferenceSession(model, options, providers=[("DmlExecutionProvider", {"device_id": "0"})])
            loaded = devinfo.loaded_dll()
            del session
            return (f"loaded by creating an empty DirectML session ({_since(started):.2f} s)" if loaded
                    else "error: no DirectML.dll loaded after creating a DirectML session")
        except Exception as error:
            return f"error: {type(error).__name__}: {_one_line(error)}"

    def batch(self, header: dict, buffers: list):
        reply = {"op": "batch", "id": header.get("id"), "sessions": {}, "runs": []}
        out = protocol.Buffers()
        created_before = self.sessions_created
        for spec in header.get("sessions", []):
            reply["sessions"][spec["key"]] = self.create(spec, buffers[spec["model"]])
        for run in header.get("runs", []):
            reply["runs"].append(self.run(run, buffers, out))
        reply["sessions_created"] = self.sessions_created - created_before
        return reply, out.items

    # -- sessions ---------------------------------------------------------------------------------
    def create(self, spec: dict, model: bytes) -> dict:
        profile = spec.get("profile", True)
        options = ortcommon.session_options(
            self.ort, spec.get("config", {}), bool(spec.get("sequential_no_mem_pattern")),
            os.path.join(self.profile_dir, f"s{self.sessions_created}") if profile else None)
        provider = spec["provider"]
        started = time.perf_counter()
        self.sessions_created += 1
        limit = os.environ.get("DMLC_WORKER_PROVIDER_LIMIT") if self.test_hooks else None
        if limit and len(self.sessions) >= int(limit):  # a test's stand-in for DirectML out of devices
            return {"ok": False, "provider_failed": True, "seconds": 0.0,
                    "error": f"{provider} failed to start: EP Error (test hook: {limit} sessions held)"}
        printed = io.StringIO()
        try:
            # The Python wrapper prints "EP Error ... Falling back" when the provider itself fails to
            # start, then retries on the CPU provider; what it printed is the real reason.
            with contextlib.redirect_stdout(printed):
                session = self.ort.InferenceSession(
                    model, options, providers=[(provider, dict(spec.get("provider_options", {})))])
        except Exception as error:  # onnxruntime raises its own Fail/InvalidArgument/... types
            reason = _one_line(error)
            if "EP Error" in printed.getvalue():
                return {"ok": False, "provider_failed": True, "seconds": _since(started),
                        "error": f"{provider} failed to start: {_one_line(printed.getvalue())} (then: {reason})"}
            return {"ok": False, "error": reason, "seconds": _since(started)}
        seconds = _since(started)
        providers = session.get_providers()
        elsewhere = ortcommon.other_provider(session, provider)
        if elsewhere:
            return {"ok": False, "fallback": True, "providers": providers, "seconds": seconds, "error": elsewhere}
        self.sessions[spec["key"]] = Session(session, provider, bool(profile))
        return {"ok": True, "providers": providers, "seconds": seconds}

    def run(self, run: dict, buffers: list, out: protocol.Buffers) -> dict:
        entry = self.sessions.get(run.get("session"))
        if entry is None:
            return {"ok": False, "error": f"no session {run.get('session')!r} in this worker"}
        feeds = {}
        for name, dtype in entry.inputs.items():
            if name in run.get("feeds", {}):
                feeds[name] = protocol.take(run["feeds"][name], buffers)
            else:
                feeds[name] = entry.last_feed.get(name)
                if feeds[name] is None:  # one, not zero: a divisor or modulus of 0 fails an integer node
                    feeds[name] = np.ones(1, dtype=dtype)
        fetch = list(run.get("fetch") or entry.outputs)
        names = entry.outputs if entry.profiled else fetch  # the first run runs (and proves) every node
        started = time.perf_counter()
        try:
            values = entry.session.run(names, feeds)
        except Exception as error:
            return {"ok": False, "error": _one_line(error), "seconds": _since(started)}
        # Only what ran well is carried into later runs (an input one node fails on would fail the
        # runs of its neighbours), and never an empty tensor: under DirectML an empty input on one
        # node garbles the outputs of the other nodes of the same run (docs/dml-wine.md).
        entry.last_feed.update({name: value for name, value in feeds.items() if value.size})
        result = {"ok": True, "seconds": _since(started),
                  "outputs": {n: out.put(v) for n, v in zip(names, values) if n in fetch}}
        if entry.profiled:
            entry.profiled = False
            result["placement"] = ortcommon.placement(entry.session)
        return result

    # -- test hooks -------------------------------------------------------------------------------
    def debug(self, action):
        if action == "hang":
            while True:
                time.sleep(60)
        if action == "exit":
            os._exit(17)
        if action == "crash":  # a native access violation, as a broken driver would give
            import faulthandler
            if hasattr(faulthandler, "_read_null"):
                faulthandler._read_null()  # not caught: ctypes would turn it into OSError on Windows
            os.abort()
        if action == "garbage":
            return {"op": "garbage"}  # the server turns this into bytes that are not a frame
        return {"op": "debug", "unknown": action}


def selfcheck(engine: Engine, provider: str, provider_options: dict) -> dict:
    """Create one session of onnxmini's two-node model on the provider, run it, check the numbers
    (exact), that nothing is all zeros, and that every node ran on the provider."""
    spec = {"key": "__selfcheck__", "provider": provider, "provider_options": provider_options,
            "config": {} if provider == ortcommon.CPU else {"session.disable_cpu_ep_fallback": "1"},
            "sequential_no_mem_pattern": True,
            "profile": True}
    result = {"op": "selfcheck", "ok": False, "provider": provider}
    created = engine.create(spec, onnxmini.selfcheck_model())
    result["create"] = created
    if not created["ok"]:
        result["problem"] = "session creation failed: " + created["error"]
        return result
    buffers = protocol.Buffers()
    refs = {name: buffers.put(value) for name, value in onnxmini.SELFCHECK_FEEDS.items()}
    out = protocol.Buffers()
    ran = engine.run({"session": spec["key"], "feeds": refs}, buffers.items, out)
    engine.sessions.pop(spec["key"], None)
    if not ran["ok"]:
        result["problem"] = "run failed: " + ran["error"]
        return result
    problems = []
    for name, expected in onnxmini.SELFCHECK_EXPECTED.items():
        actual = protocol.take(ran["outputs"][name], out.items)
        result[name] = actual.astype(np.float64).tolist()
        if not np.any(actual):
            problems.append(f"{name} is all zeros (the silent failure of an old Vulkan driver)")
        elif actual.dtype != expected.dtype or not np.array_equal(actual, expected):
            problems.append(f"{name} = {actual.tolist()}, expected {expected.tolist()}")
    placement = ran.get("placement", {})
    result["placement"] = placement
    foreign = {n: p for n, p in placement.items() if p != provider}
    if foreign or not placement:
        problems.append(f"nodes outside {provider}: {foreign or 'the profile shows no node'}")
    result["ok"] = not problems
    result["problem"] = "; ".join(problems)
    return result


def _numpy_type(onnx_type: str):
    names = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(double)": np.float64,
             "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(int32)": np.int32,
             "tensor(int64)": np.int64, "tensor(uint8)": np.uint8, "tensor(uint16)": np.uint16,
             "tensor(uint32)": np.uint32, "tensor(uint64)": np.uint64, "tensor(bool)": np.bool_}
    return names.get(onnx_type, np.float32)


def _one_line(error) -> str:
    return " ".join(str(error).split())[:2000]


def _since(started) -> float:
    return round(time.perf_counter() - started, 6)
