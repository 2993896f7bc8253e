"""Backends by name: cpu, dml, cuda, ort:PROVIDER, python:MODULE:FUNCTION, auto.

Other packages (or later lanes of this one) add backends through the entry
point group "dml_conformance.backends": a callable (name, options) -> Backend,
with an optional attribute `available() -> (bool, reason)` that `auto` asks and an optional
`starting`: what starting it does, said while the user waits (a Wine worker takes seconds).
"""
import difflib
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


def starting(name: str) -> str | None:
    """What starting this backend does, in a few words, if its factory says (None: nothing to say)."""
    entry = plugins().get(name)
    try:
        return getattr(entry.load(), "starting", None) if entry is not None else None
    except Exception:  # a broken plugin is create()'s to report
        return None


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
    raise BackendUnavailable(unknown(name))


def unknown(name: str) -> str:
    """One line for a backend name nobody registered: the closest known ones first."""
    known = names()
    close = difflib.get_close_matches(name, [n for n in known if ":" not in n], n=2)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return f"unknown backend {name!r}; {hint}known: {', '.join(known)}"


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


__all__ = ["create", "names", "unknown", "starting", "choose_auto", "Backend", "BackendUnavailable", "Outcome"]
