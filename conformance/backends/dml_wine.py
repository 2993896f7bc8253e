"""The worker backends (worker_backend.WorkerBackend): the real DirectML under Wine (dml-wine),
and the same worker natively (cpu-worker anywhere; dml-worker on Windows). dml-wine's memory
budget: by default 4 GiB, or 60 % of the memory available at start where that is less.

Options (--provider-option KEY=VALUE); these are the harness's, the rest go to the provider:
  graph_fusion=on|off (or disable_graph_fusion=1)  DirectML graph fusion (default on)
  session.*=V, ep.*=V    session config entries (e.g. ep.dml.disable_memory_arena=1)
  multi_node=1|0         several parameter sets per graph (default 1)
  max_nodes=N            nodes per graph (default ort.MAX_NODES, 64)
  mixed_graphs=1|0       nodes of every operator and data type of one opset in a graph (default 1;
                         0: one operator, opset and data type a graph)
  timeout=S              seconds per round trip, plus session_timeout=S per session it creates
                         (defaults 120 and 120)
  startup_timeout=S      seconds for a worker to start and say hello (default 180)
  transport=subprocess|inprocess   (cpu-worker, dml-worker only)
  winedebug=...          WINEDEBUG for the worker (default -all; e.g. err+all)
  memory_budget_mb=N     worker memory budget (default 60 % of MemAvailable, for dml-wine at most
                         4096; 0: none)
  session_memory_mb=N    first estimate of one session's memory (dml-wine 64, or 1600 with
                         vkd3d_config=; learnt as it runs)
  vkd3d_config=FLAGS     (dml-wine) VKD3D_CONFIG of the worker (default virtual_heaps; empty: none)
  test_hooks=1           lets tests ask the worker to hang, crash or send garbage
  dml_release=VERSION    (dml-wine) another provisioned onnxruntime-directml release, named by its
                         version or its DirectML.dll's (conformance/backends/dml_releases.py)
"""
import sys

from conformance.backends import dml_releases, wine_lane
from conformance.backends.base import BackendUnavailable, number_option
from conformance.backends.ort import MAX_NODES
from conformance.backends.wine_lane import find_lane
from conformance.backends.worker_backend import CPU, DML, WorkerBackend
from conformance.backends.worker_channels import InProcessChannel, socket_factory
from conformance.backends.worker_launchers import NativeLauncher, WineLauncher
from conformance.errors import BadInput

WORKER_MEMORY_MB_WINE = 4096  # dml-wine's default budget for its worker
# first estimate of one session's memory, by VKD3D_CONFIG (wine_lane.VKD3D_CONFIG says why virtual heaps)
SESSION_MEMORY_MB_WINE = {wine_lane.VKD3D_CONFIG: 64, "": 1600}


def worker_settings(options: dict) -> tuple:
    """Split --provider-option pairs into the harness's settings and the provider's options."""
    options = dict(options or {})
    fusion = str(options.pop("graph_fusion", "on")).lower()
    disable = str(options.pop("disable_graph_fusion", "0")).lower()
    if fusion not in ("on", "off", "1", "0", "true", "false") or disable not in ("0", "1", "true", "false"):
        raise BadInput("--provider-option graph_fusion takes on or off; disable_graph_fusion takes 0 or 1")
    settings = {
        "graph_fusion": not (fusion in ("off", "0", "false") or disable in ("1", "true")),
        "multi_node": str(options.pop("multi_node", "1")).lower() in ("1", "true", "on"),
        "max_nodes": number_option("max_nodes", options.pop("max_nodes", MAX_NODES), int),
        "mixed_graphs": str(options.pop("mixed_graphs", "1")).lower() in ("1", "true", "on"),
        "timeout": number_option("timeout", options.pop("timeout", 120), float),
        "session_timeout": number_option("session_timeout", options.pop("session_timeout", 120), float),
        "startup_timeout": number_option("startup_timeout", options.pop("startup_timeout", 180), float),
        "transport": options.pop("transport", "subprocess"),
        "winedebug": options.pop("winedebug", "-all"),
        "test_hooks": str(options.pop("test_hooks", "0")).lower() in ("1", "true", "on"),
        "memory_budget_mb": (number_option("memory_budget_mb", options.pop("memory_budget_mb"), int)
                             if "memory_budget_mb" in options else None),
        "session_memory_mb": number_option("session_memory_mb", options.pop("session_memory_mb", 0), int),
    }
    if settings["max_nodes"] < 1:
        raise BadInput("--provider-option max_nodes must be at least 1")
    settings["config"] = {key: options.pop(key) for key in list(options) if key.startswith(("session.", "ep."))}
    return settings, options


def _dml_config(settings) -> dict:
    config = {**settings["config"], "session.disable_cpu_ep_fallback": "1"}
    if not settings["graph_fusion"]:
        config["ep.dml.disable_graph_fusion"] = "1"
    return config




def dml_wine(name, options):
    """The real DirectML.dll under Wine (see docs/dml-wine.md); dml_release=VERSION runs another
    provisioned onnxruntime-directml release (conformance/backends/dml_releases.py)."""
    lane, reason = find_lane()
    if lane is None:
        raise BackendUnavailable(reason)
    options = dict(options or {})
    requested = options.pop(dml_releases.OPTION, None)
    lane, release = wine_lane.for_release(lane, requested)
    vkd3d_config = str(options.pop("vkd3d_config", wine_lane.VKD3D_CONFIG))
    settings, provider_options = worker_settings(options)
    settings["session_memory_mb"] = (settings["session_memory_mb"]
                                     or SESSION_MEMORY_MB_WINE.get(vkd3d_config, SESSION_MEMORY_MB_WINE[""]))
    settings["memory_limit_mb"] = WORKER_MEMORY_MB_WINE
    provider_options = {"device_id": "0", **provider_options}  # DXGI path: Wine has no DXCore
    env = {"DMLC_WORKER_TEST_HOOKS": "1"} if settings["test_hooks"] else {}
    if vkd3d_config:
        env["VKD3D_CONFIG"] = vkd3d_config
    launcher = WineLauncher(lane, winedebug=settings["winedebug"], env=env)
    try:
        backend = WorkerBackend(name, DML, provider_options, _dml_config(settings), socket_factory(launcher, settings),
                                settings, {**launcher.describe(), "vkd3d_config": vkd3d_config},
                                make_folder=launcher.guard.mkdtemp)
        backend.release, backend.release_requested = release, requested
    except BaseException:
        launcher.close()
        raise
    return backend


def _dml_wine_available():
    lane, reason = find_lane()
    if lane is None:
        return False, reason
    marker = lane.marker
    return True, (f"provisioned in {lane.home}: onnxruntime-directml {marker.get('onnxruntime')}, DirectML.dll "
                  f"{marker.get('directml_dll')} on {marker.get('adapter')} (Mesa {marker.get('mesa_vulkan_drivers')})")


dml_wine.available = _dml_wine_available
dml_wine.starting = "ONNX Runtime's DirectML worker under Wine (its own Xvfb, a prefix clone, DirectML.dll)"


def _native(name, provider, options, config_for):
    settings, provider_options = worker_settings(options)
    if settings["transport"] == "inprocess":
        def factory(logdir, generation, load_directml=True):
            return InProcessChannel(test_hooks=settings["test_hooks"])
        describe = {"transport": "in-process"}
    elif settings["transport"] == "subprocess":
        env = {"DMLC_WORKER_TEST_HOOKS": "1"} if settings["test_hooks"] else {}
        launcher = NativeLauncher(env=env)
        factory = socket_factory(launcher, settings)
        describe = launcher.describe()
    else:
        raise BadInput(f"--provider-option transport={settings['transport']}: expected subprocess or inprocess")
    return WorkerBackend(name, provider, provider_options, config_for(settings), factory, settings, describe)


def cpu_worker(name, options):
    """ONNX Runtime's CPU provider through the worker (the dml-wine machinery, testable anywhere)."""
    return _native(name, CPU, options, lambda settings: dict(settings["config"]))


cpu_worker.available = lambda: (True, "ONNX Runtime's CPU provider in a worker process")


def dml_worker(name, options):
    """DirectML through the worker as a native subprocess (Windows with onnxruntime-directml)."""
    try:
        import onnxruntime
    except ImportError as error:
        raise BackendUnavailable(f"onnxruntime is not importable: {error}") from None
    if DML not in onnxruntime.get_available_providers():
        raise BackendUnavailable(f"ONNX Runtime {onnxruntime.__version__} here has no {DML}")
    options = {"device_id": "0", **(options or {})}
    return _native(name, DML, options, _dml_config)


def _dml_worker_available():
    try:
        import onnxruntime
    except ImportError:
        return False, "onnxruntime is not importable"
    if DML in onnxruntime.get_available_providers():
        return True, "onnxruntime here has DmlExecutionProvider"
    return False, f"no {DML} in this ONNX Runtime ({sys.platform})"


dml_worker.available = _dml_worker_available
