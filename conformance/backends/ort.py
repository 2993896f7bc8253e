"""ONNX Runtime backends: one execution provider, no silent fallback, placement proven.

Sessions are cached by (operator node, data type): shapes are dynamic, so one
session serves every case of that operator, type and parameter set.
"""
import json
import os
import platform
import tempfile

import numpy as np

from conformance import specs
from conformance.backends.base import (CPU_FALLBACK, ERROR, NOT_REACHABLE, OK, UNSUPPORTED, Backend,
                                       BackendUnavailable, Outcome)
from conformance.onnx_models import single_node_model
from conformance.specs.base import NotReachable

UNSUPPORTED_MARKERS = ("NOT_IMPLEMENTED", "Could not find an implementation",
                       "assigned to the default CPU EP", "is not supported", "Type Error: Type")


def import_onnxruntime():
    try:
        import onnxruntime
    except ImportError as error:
        raise BackendUnavailable(f"onnxruntime is not importable: {error}") from None
    return onnxruntime


class OrtBackend(Backend):
    """provider: e.g. "DmlExecutionProvider"; options: its provider options."""

    def __init__(self, name: str, provider: str, options: dict | None = None,
                 config: dict | None = None, disable_cpu_fallback: bool = True,
                 sequential_no_mem_pattern: bool = False, check_placement: bool = True):
        super().__init__()
        self.name, self.provider, self.options = name, provider, dict(options or {})
        self.config = dict(config or {})
        self.disable_cpu_fallback = disable_cpu_fallback
        self.sequential_no_mem_pattern = sequential_no_mem_pattern
        self.check_placement = check_placement
        self.ort = import_onnxruntime()
        self.ort.set_default_logger_severity(3)
        available = self.ort.get_available_providers()
        if provider not in available:
            raise BackendUnavailable(f"{name}: ONNX Runtime {self.ort.__version__} here has no {provider} "
                                     f"(it has {', '.join(available)})")
        self._sessions = {}  # key -> (session, failure Outcome or None)
        self._profile_dir = tempfile.mkdtemp(prefix="conformance-profile-")

    def metadata(self) -> dict:
        return {"backend": self.name, "provider": self.provider, "provider_options": self.options,
                "session_config": self._session_config(), "onnxruntime": self.ort.__version__,
                "onnxruntime_package": _ort_distribution(), "device": _cpu_name()
                if self.provider == "CPUExecutionProvider" else self.options.get("device_id", "default"),
                "directml": None}

    def _session_config(self) -> dict:
        config = dict(self.config)
        if self.disable_cpu_fallback and self.provider != "CPUExecutionProvider":
            config["session.disable_cpu_ep_fallback"] = "1"
        return config

    def run(self, case, x: np.ndarray) -> Outcome:
        spec = specs.get(case.op)
        if case.in_place:
            return Outcome(NOT_REACHABLE, message="in-place execution (output aliasing the input) "
                                                  "cannot be requested through ONNX Runtime")
        try:
            node = spec.to_onnx(case.dtype, case.params)
        except NotReachable as reason:
            return Outcome(NOT_REACHABLE, message=str(reason))
        key = (node.op_type, node.opset, case.dtype, tuple(sorted(node.attributes.items())),
               tuple(np.asarray(c).tobytes() + str(np.asarray(c).dtype).encode() for c in node.constant_inputs))
        if key not in self._sessions:
            self._sessions[key] = self._create(node, case.dtype)
        session, failure, proven = self._sessions[key]
        if failure is not None:
            return failure
        try:
            output = session.run(["y"], {"x": x})[0]
        except Exception as error:  # onnxruntime raises its own Fail/RuntimeException types
            return Outcome(_classify(str(error)), message=_first_line(str(error)))
        if not proven:
            placement = self._placement(session)
            foreign = {n: p for n, p in placement.items() if p != self.provider}
            if foreign or not placement:
                failure = Outcome(CPU_FALLBACK, output=output, placement=placement,
                                  message="nodes ran outside " + self.provider + ": "
                                  + (", ".join(f"{n} on {p}" for n, p in foreign.items())
                                     or "the profile shows no node at all"))
                self._sessions[key] = (session, failure, True)
                return failure
            self._sessions[key] = (session, None, True)
            return Outcome(OK, output=output, placement=placement)
        return Outcome(OK, output=output)

    def _create(self, node, dtype):
        ort = self.ort
        options = ort.SessionOptions()
        options.log_severity_level = 3
        if self.sequential_no_mem_pattern:
            options.enable_mem_pattern = False
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        for key, value in self._session_config().items():
            options.add_session_config_entry(key, str(value))
        if self.check_placement:
            options.enable_profiling = True
            options.profile_file_prefix = os.path.join(self._profile_dir, f"s{self.sessions_created}")
        model = single_node_model(node, dtype)
        try:
            session = ort.InferenceSession(model, options, providers=[(self.provider, self.options)])
        except Exception as error:
            message = _first_line(str(error))
            self.sessions_created += 1
            return None, Outcome(_classify(message), message=message), True
        self.sessions_created += 1
        if session.get_providers()[0] != self.provider:
            # The Python wrapper retried on another provider ("EP Error ... Falling back").
            return None, Outcome(CPU_FALLBACK, message=f"session came up on {session.get_providers()} "
                                                       f"instead of {self.provider}"), True
        if hasattr(session, "disable_fallback"):
            session.disable_fallback()
        return session, None, not self.check_placement

    def _placement(self, session) -> dict:
        path = session.end_profiling()
        try:
            with open(path) as handle:
                events = json.load(handle)
        finally:
            os.unlink(path)
        placement = {}
        for event in events:
            args = event.get("args", {})
            if event.get("cat") == "Node" and "provider" in args:
                placement[event["name"].removesuffix("_kernel_time")] = args["provider"]
        return {name: provider for name, provider in placement.items()
                if not name.endswith(("_fence_before", "_fence_after"))}


def _classify(message: str) -> str:
    return UNSUPPORTED if any(marker in message for marker in UNSUPPORTED_MARKERS) else ERROR


def _first_line(message: str) -> str:
    return " ".join(message.split())[:500]


def _ort_distribution() -> str:
    from importlib import metadata
    for name in ("onnxruntime-directml", "onnxruntime-gpu", "onnxruntime"):
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
