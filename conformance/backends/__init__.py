"""Backends by name: cpu, dml, cuda, ort:PROVIDER, python:MODULE:FUNCTION, auto.

Other packages (or later lanes of this one) add backends through the entry
point group "dml_conformance.backends": a callable (name, options) -> Backend,
with an optional attribute `available() -> (bool, reason)` that `auto` asks.
"""
import sys
from importlib import metadata

from conformance.backends.base import Backend, BackendUnavailable, Outcome

DML_SESSION = dict(sequential_no_mem_pattern=True)


def _ort(name, provider, **settings):
    from conformance.backends.ort import OrtBackend
    return OrtBackend(name, provider, **settings)


def _cpu(name, options):
    return _ort("cpu", "CPUExecutionProvider", options=options)


def _dml(name, options):
    options = {"device_id": "0", **options}
    config = {}
    if options.pop("disable_graph_fusion", None) in ("1", "true", True):
        config["ep.dml.disable_graph_fusion"] = "1"
    return _ort("dml", "DmlExecutionProvider", options=options, config=config, **DML_SESSION)


def _cuda(name, options):
    return _ort("cuda", "CUDAExecutionProvider", options=options)


BUILTIN = {"cpu": _cpu, "dml": _dml, "cuda": _cuda}


def plugins() -> dict:
    found = {}
    for entry in metadata.entry_points(group="dml_conformance.backends"):
        found[entry.name] = entry
    return found


def names() -> list:
    return list(BUILTIN) + sorted(plugins()) + ["ort:PROVIDER", "python:MODULE:FUNCTION", "auto"]


def create(name: str, options: dict | None = None, announce=print) -> Backend:
    options = dict(options or {})
    if name == "auto":
        name, reason = choose_auto()
        announce(f"backend auto: chose {name} ({reason})")
    if name.startswith("python:"):
        from conformance.backends.python_function import PythonFunctionBackend
        return PythonFunctionBackend(name)
    if name.startswith("ort:"):
        provider = name.split(":", 1)[1]
        return _ort(name, provider, options=options)
    if name in BUILTIN:
        return BUILTIN[name](name, options)
    found = plugins()
    if name in found:
        return found[name].load()(name, options)
    raise BackendUnavailable(f"unknown backend {name!r}; known: {', '.join(names())}")


def choose_auto():
    """dml (in-process, Windows), then any plugin lane that says it is ready, then cpu."""
    try:
        import onnxruntime
        providers = onnxruntime.get_available_providers()
    except ImportError:
        providers = []
    if "DmlExecutionProvider" in providers:
        return "dml", "ONNX Runtime here has DmlExecutionProvider"
    reasons = [f"no DmlExecutionProvider in this ONNX Runtime ({sys.platform})"]
    for lane in ("dml-wine",):
        entry = plugins().get(lane)
        if entry is None:
            reasons.append(f"{lane} not installed")
            continue
        factory = entry.load()
        ready, why = getattr(factory, "available", lambda: (False, "no availability check"))()
        if ready:
            return lane, f"{'; '.join(reasons)}; {lane}: {why}"
        reasons.append(f"{lane}: {why}")
    return "cpu", "; ".join(reasons) + " -- this run does NOT test DirectML"


__all__ = ["create", "names", "choose_auto", "Backend", "BackendUnavailable", "Outcome"]
