"""What the harness's ONNX Runtime backends and the worker's engine share: how a session is set
up, where its nodes ran (its profile), and the rule that proves a case ran on the provider under
test. Standard library only: the worker runs it under a Windows Python (see __init__.py)."""
import json
import os

CPU = "CPUExecutionProvider"
DML = "DmlExecutionProvider"
LOG_ERRORS_ONLY = 3  # ONNX Runtime's log severity: errors and fatal only
OWN_NODE_PREFIXES = ("DmlFusedNode",)  # a fused partition of the provider under test


def session_options(ort, config: dict, sequential_no_mem_pattern: bool, profile_prefix: str | None = None):
    """SessionOptions with config's entries; profiled (files named profile_prefix*) unless None."""
    options = ort.SessionOptions()
    options.log_severity_level = LOG_ERRORS_ONLY
    if sequential_no_mem_pattern:
        options.enable_mem_pattern = False
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    for key, value in config.items():
        options.add_session_config_entry(key, str(value))
    if profile_prefix is not None:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    return options


def other_provider(session, provider: str) -> str | None:
    """Why the session is not on provider (the Python wrapper retried on another one, "EP Error ...
    Falling back"), or None; then the wrapper's own retry is turned off for its runs."""
    providers = session.get_providers()
    if providers[0] != provider:
        return f"session came up on {providers} instead of {provider}"
    if hasattr(session, "disable_fallback"):
        session.disable_fallback()
    return None


def placement(session) -> dict:
    """Node name -> provider, from the session's profile (ended here, its file removed)."""
    path = session.end_profiling()
    try:
        with open(path, encoding="utf-8") as handle:
            events = json.load(handle)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    found = {}
    for event in events:
        args = event.get("args", {})
        if event.get("cat") == "Node" and "provider" in args:
            name = event["name"].removesuffix("_kernel_time")
            if not name.endswith(("_fence_before", "_fence_after")):
                found[name] = args["provider"]
    return found


def prove(where: dict, provider: str, name: str, node_names) -> tuple:
    """Whether node `name` of a graph whose nodes are node_names ran on provider, by the profile's
    placement `where` -> (proven, the placement that shows it, why not). A fused partition of the
    provider (OWN_NODE_PREFIXES) stands for a node missing under its own name; a foreign node that
    is none of the graph's (a copy, a cast) fails every case of the graph. The CPU provider has
    nowhere else to run: a node its profile does not name (e.g. a contrib operator run as its
    function body) still ran there."""
    foreign = {n: p for n, p in where.items() if p != provider}
    if name in foreign:
        return False, {name: foreign[name]}, f"node {name} ran on {foreign[name]}, not {provider}"
    fused = {n: p for n, p in where.items() if n.startswith(OWN_NODE_PREFIXES) and p == provider}
    own = {name: where[name]} if name in where else fused
    stray = {n: p for n, p in foreign.items() if n not in node_names}
    if stray:
        return False, {**own, **stray}, (f"nodes of this case's graph ran outside {provider}: "
                                         + ", ".join(f"{n} on {p}" for n, p in stray.items()))
    if not own and provider == CPU:
        own = {name: provider}
    if not own:
        return False, {}, f"node {name} is not in the profile (no proof it ran on {provider})"
    return True, own, ""
