"""Backends that run ONNX Runtime in a worker process: the real DirectML under Wine (dml-wine),
and the same worker natively (cpu-worker anywhere; dml-worker on Windows).

The worker (conformance/worker, stdlib + numpy + onnxruntime only) is started once and kept
alive; the harness talks to it over a loopback TCP socket (stdout is of no use under Wine).

Session economy: a DirectML session costs seconds under lavapipe, so cases share sessions.
All parameter sets of one operator, opset and data type become the nodes of one graph
(node i: x{i} -> y{i}, every shape dynamic), so one session serves a whole family of cases,
and one run() serves up to one case per node. prepare(cases), when the runner calls it, lays
the graphs out before anything runs; without it they grow batch by batch. A graph that cannot
be created is split into one-node graphs, so each case gets its own verdict.

Memory: under Wine and lavapipe every DirectML session keeps about 1.5 GB of shared memory
until its process exits (destroying the session gives nothing back, "forget" included; the empty
session the first worker creates to load DirectML.dll costs as much). The backend learns what a
session costs from the worker's resident size and starts a fresh worker before the next
sessions would pass the memory budget: by default 4 GiB for dml-wine (two sessions a worker), or
60 % of the memory available at start where that is less.

Faults: a worker that dies, hangs past the round trip's time limit, or answers garbage fails
the cases of that round trip (crash or timeout, with the tail of the worker's log), is killed
and restarted at the next batch, and the run goes on.

Options (--provider-option KEY=VALUE); these are the harness's, the rest go to the provider:
  graph_fusion=on|off (or disable_graph_fusion=1)  DirectML graph fusion (default on)
  session.*=V, ep.*=V    session config entries (e.g. ep.dml.disable_memory_arena=1)
  multi_node=1|0         several parameter sets per graph (default 1)
  max_nodes=N            nodes per graph (default ort.MAX_NODES, 64)
  timeout=S              seconds per round trip, plus session_timeout=S per session it creates
                         (defaults 120 and 120)
  startup_timeout=S      seconds for a worker to start and say hello (default 180)
  transport=subprocess|inprocess   (cpu-worker, dml-worker only)
  winedebug=...          WINEDEBUG for the worker (default -all; e.g. err+all)
  memory_budget_mb=N     worker memory budget (default 60 % of MemAvailable, for dml-wine at most
                         4096; 0: none)
  session_memory_mb=N    first estimate of one session's memory (dml-wine 1600; learnt as it runs)
  test_hooks=1           lets tests ask the worker to hang, crash or send garbage
  dml_release=VERSION    (dml-wine) another provisioned onnxruntime-directml release, named by its
                         version or its DirectML.dll's (conformance/backends/dml_releases.py)
"""
import os
import platform
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path


from conformance.backends import dml_releases
from conformance.backends import wine_lane
from conformance.caseset import operands
from conformance.backends.base import (CPU_FALLBACK, CRASH, ERROR, OK, TIMEOUT, Backend,
                                       BackendUnavailable, Outcome, number_option, one_line)
from conformance.backends.onnx_models import as_directml, feeds
from conformance.backends.ort import MAX_NODES, case_node, classify_error, multi_node_model
# The lane and the worker processes are shared with dml-direct (wine_lane).
from conformance.backends.wine_lane import Launcher, Process, die_with_parent, find_lane
from conformance.errors import BadInput
from conformance.worker import ortcommon, protocol

DML = "DmlExecutionProvider"
CPU = ortcommon.CPU
WORKER_PACKAGE = Path(__file__).resolve().parent.parent / "worker"
SESSION_MEMORY_MB_WINE = 1600  # what one DirectML session holds under Wine + lavapipe (measured)
WORKER_MEMORY_MB_WINE = 4096  # dml-wine's default budget for its worker
MAX_START_FAILURES = 3
DEVICE_ATTEMPTS = 4  # worker starts to get one that can create a D3D12 device
POISON_AFTER = 2  # a graph involved in this many worker deaths is not sent again


# ---- worker processes ------------------------------------------------------------------------------
class WorkerDied(Exception):
    """The worker is gone, hung or talking nonsense; status is crash or timeout."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class NativeLauncher(Launcher):
    """`python -m conformance.worker` with this harness's own Python and onnxruntime."""
    kind = "native subprocess"

    def __init__(self, python=None, env=None):
        self.python = python or sys.executable
        self.env = env or {}

    def start(self, address, token, log_path, args=()):
        command = [self.python, "-m", "conformance.worker", "--connect", f"{address[0]}:{address[1]}",
                   "--token", token, *args, "--log", str(log_path)]
        env = dict(os.environ, **self.env, DMLC_WORKER_TOKEN=token)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(WORKER_PACKAGE.parent.parent),
                                                          env.get("PYTHONPATH")]))
        console = open(log_path.with_suffix(".console"), "ab")
        # Windows' Popen has neither process sessions nor preexec_fn.
        posix = {} if os.name == "nt" else dict(start_new_session=True, preexec_fn=die_with_parent)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT,
                                   env=env, **posix)
        console.close()
        return Process(process, token, [log_path, log_path.with_suffix(".console")], lambda: [process.pid])


class WineLauncher(wine_lane.WineLauncher):
    """The ONNX Runtime worker under Wine (wine_lane.WineLauncher: the lane's Windows Python in a
    pty, with its own Xvfb and prefix clone), from a private copy of conformance/worker: only
    that copy goes on the Windows Python's sys.path."""
    marker = "dmlc_worker"
    workdir_prefix = "dml-wine-worker-"

    def install(self, workdir) -> Path:
        shutil.copytree(WORKER_PACKAGE, workdir / "dmlc_worker", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        return workdir / "dmlc_worker" / "__main__.py"


def _proc_bytes(path, key) -> int | None:
    """The "key: N kB" line of a /proc file, in bytes (None where there is none)."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _resident(pid) -> int | None:
    return _proc_bytes(f"/proc/{pid}/status", "VmRSS")


def available_memory() -> int | None:
    return _proc_bytes("/proc/meminfo", "MemAvailable")


class SocketChannel:
    """One worker process and its connection."""

    def __init__(self, launcher: Launcher, startup_timeout: float, logdir: Path, generation: int, args=()):
        self.token = uuid.uuid4().hex
        self.log_path = logdir / f"worker-{generation}.log"
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        self.sock = None
        try:
            self.process = launcher.start(listener.getsockname(), self.token, self.log_path, args)
            deadline = time.monotonic() + startup_timeout
            while self.sock is None:
                ready, _, _ = select.select([listener], [], [], 0.5)
                if ready:
                    self.sock, _ = listener.accept()
                elif not self.process.alive():
                    raise BackendUnavailable(f"the worker exited before it connected: {self.process.tail()}")
                elif time.monotonic() > deadline:
                    self.process.kill()
                    raise BackendUnavailable(f"the worker did not connect in {startup_timeout:.0f} s: "
                                             f"{self.process.tail()}")
        finally:
            listener.close()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            self.hello, _ = self._receive(time.monotonic() + startup_timeout)
        except WorkerDied as error:
            self.kill()
            raise BackendUnavailable(f"the worker did not say hello: {error}") from None
        if self.hello.get("token") != self.token:
            self.kill()
            raise BackendUnavailable(f"a stranger connected instead of the worker: {str(self.hello)[:200]}")
        if not self.hello.get("ok"):
            self.kill()
            raise BackendUnavailable(f"the worker could not start ONNX Runtime: {self.hello.get('error')}; "
                                     f"{self.process.tail()}")

    def request(self, header, buffers, timeout):
        if self.before_send is not None:
            self.before_send(self, header)
        try:
            protocol.send(self.sock, header, buffers)
        except OSError as error:
            raise WorkerDied(CRASH, f"could not send to the worker ({error})") from None
        if self.after_send is not None:
            self.after_send(self, header)
        return self._receive(time.monotonic() + timeout)

    before_send = None  # test hooks: called with (channel, header) before a request is sent
    after_send = None  # and once it is on its way

    def _receive(self, deadline):
        while True:
            ready, _, _ = select.select([self.sock], [], [], 0.5)
            if ready:
                break
            if not self.process.alive():
                raise WorkerDied(CRASH, f"the worker process exited (code {self.process.popen.poll()})")
            if time.monotonic() > deadline:
                raise WorkerDied(TIMEOUT, "the worker did not answer in time")
        self.sock.settimeout(max(10.0, deadline - time.monotonic()))
        try:
            return protocol.recv(self.sock)
        except protocol.PeerClosed as error:
            raise WorkerDied(CRASH, f"the worker closed the connection ({error})") from None
        except protocol.ProtocolError as error:
            raise WorkerDied(CRASH, f"the worker answered garbage ({error})") from None
        except (socket.timeout, TimeoutError):
            raise WorkerDied(TIMEOUT, "the worker stopped in the middle of an answer") from None
        except OSError as error:
            raise WorkerDied(CRASH, f"the connection broke ({error})") from None
        finally:
            if self.sock is not None:
                self.sock.settimeout(None)

    def alive(self) -> bool:
        return self.process.alive()

    def pids(self) -> list:
        return self.process.pids()

    def memory(self) -> int | None:
        """Resident bytes of the worker's largest process (Wine's shared GPU memory included)."""
        return max((_resident(pid) or 0 for pid in self.pids()), default=0) or None

    def tail(self) -> str:
        return self.process.tail()

    def kill(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self.process.kill()

    def close(self, wait=15):
        if self.sock is not None and self.alive():
            try:
                protocol.send(self.sock, {"op": "exit"})
                self._receive(time.monotonic() + wait)
            except (WorkerDied, OSError):
                pass
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        try:
            self.process.popen.wait(wait)
        except subprocess.TimeoutExpired:
            self.process.kill()


class InProcessChannel:
    """The worker's engine in this process: same requests, no process, no fault isolation."""

    def __init__(self, test_hooks=False):
        from conformance.worker.engine import Engine
        self.engine = Engine(test_hooks=test_hooks)
        self.hello = dict(self.engine.hello(), ok=True)

    def request(self, header, buffers, timeout):
        return self.engine.handle(header, [bytes(b) for b in buffers])

    def alive(self):
        return True

    def pids(self):
        return [os.getpid()]

    def memory(self):
        return None

    def tail(self):
        return ""

    def kill(self):
        pass

    def close(self, wait=0):
        self.engine.close()


# ---- graphs ------------------------------------------------------------------------------------------
@dataclass
class Graph:
    key: str
    dtype: str
    nodes: list = field(default_factory=list)  # OnnxNode, node i reads x{i} and writes y{i}
    keys: list = field(default_factory=list)  # the node keys, in the same order
    created: bool = False  # in the current worker
    failure: Outcome | None = None
    placement: dict | None = None
    deaths: int = 0  # worker deaths while this graph was in flight
    fresh_tried: bool = False  # its provider failed to start in a worker holding sessions: tried in a new one

    def node_name(self, index) -> str:
        return f"{self.nodes[index].op_type}_{index}"


# ---- the backend ---------------------------------------------------------------------------------------
class WorkerBackend(Backend):
    def __init__(self, name: str, provider: str, provider_options: dict, config: dict, channel_factory,
                 settings: dict, describe: dict | None = None):
        super().__init__()
        self.name, self.provider = name, provider
        self.provider_options, self.config = dict(provider_options), dict(config)
        self.settings = settings
        self._channel_factory = channel_factory
        self._describe = describe or {}
        self.logdir = Path(tempfile.mkdtemp(prefix=f"{name}-logs-"))
        self.worker_starts = 0
        self.restarts = 0  # after a death
        self.recycles = 0  # planned: the worker's memory would pass the budget, or its provider failed
        self._replace_worker = False  # a session's provider failed to start: the next trip gets a new worker
        self._provider_capacity = None  # the sessions a worker held when its provider first failed to start
        self.worker_deaths = 0
        self.round_trips = 0
        self.peak_memory = 0
        self._live = 0  # sessions created in the current worker
        self._base_memory = 0
        self._per_session = settings["session_memory_mb"] << 20
        budget = settings["memory_budget_mb"]
        if budget is None:
            free = available_memory()
            budget = int(free * 0.6) >> 20 if free else 0
            limit = settings.get("memory_limit_mb")
            if limit:
                budget = min(budget, limit) if budget else limit
        self.memory_budget = budget << 20  # 0: no limit
        self._start_failures = 0
        self._channel = None
        self._slots = {}  # node key -> (graph key, node index)
        self._graphs = {}
        self._open = {}  # family -> graph key still accepting nodes (not yet created)
        self.hello = None  # the first worker's: the header's (it loaded DirectML.dll first)
        self.release = self.release_requested = None  # the dml_releases.Release of a dml-wine lane
        self.before_send = self.after_send = None  # test hooks, passed to each channel
        try:
            self._ensure_worker()
        except BaseException:
            shutil.rmtree(self.logdir, ignore_errors=True)  # the error carries the logs' tails
            raise

    # -- the worker ----------------------------------------------------------------------------------
    def _ensure_worker(self):
        if self._channel is not None and self._channel.alive():
            return self._channel
        if self._channel is not None:  # it died between round trips: no case was in flight
            tail = self._channel.tail()
            self._channel.kill()
            self._channel = None
            self.worker_deaths += 1
            self.restarts += 1
            print(f"{self.name}: the worker died between batches (no case in flight) and is restarted; "
                  f"its last output: {tail}", file=sys.stderr)
        problems = []
        for _ in range(DEVICE_ATTEMPTS):
            self.worker_starts += 1
            try:
                # The first worker makes ONNX Runtime load DirectML.dll before its hello (seconds under
                # lavapipe), so that the header names the DLL really loaded; later ones need not.
                channel = self._channel_factory(self.logdir, self.worker_starts, load_directml=self.hello is None)
            except BackendUnavailable:
                self._start_failures += 1
                raise
            problem = self._device_problem(channel.hello)
            if problem is None:
                break
            problems.append(f"{problem} [{channel.tail()}]")
            channel.kill()
            time.sleep(2 * len(problems))  # a moment for a restarted Xvfb and Wine's desktop
        else:
            self._start_failures += 1
            raise BackendUnavailable(f"{self.name}: the worker started {DEVICE_ATTEMPTS} times but could not create a "
                                     f"D3D12 device: " + " | ".join(problems))
        self._start_failures = 0
        self._channel = channel
        if self.hello is None:
            self.hello = channel.hello
        self._live = 0
        self._base_memory = channel.memory() or 0
        if self.provider not in channel.hello.get("providers", []):
            raise BackendUnavailable(f"{self.name}: the worker's ONNX Runtime {channel.hello.get('onnxruntime')} "
                                     f"has no {self.provider} (it has {channel.hello.get('providers')})")
        for graph in self._graphs.values():
            graph.created = False
        return channel

    def _device_problem(self, hello) -> str | None:
        """Why a DirectML worker has no usable device, or None. Under Wine a process whose X
        server is gone gets no graphics driver ("The explorer process failed to start") and
        D3D12 fails with DXGI_ERROR_UNSUPPORTED; such a worker is restarted (its Xvfb too)."""
        if self.provider != DML or hello.get("platform") != "win32":
            return None
        for key in ("adapters", "dml_max_feature_level", "directml_load"):
            value = hello.get(key)
            if isinstance(value, str) and value.startswith("error"):
                return f"{key}: {value}"
        if not hello.get("adapters"):
            return "no DXGI adapter"
        return None

    def worker_pids(self) -> list:
        """Unix pids of the live worker (for tests that kill it)."""
        return self._channel.pids() if self._channel is not None else []

    def worker_alive(self) -> bool:
        return self._channel is not None and self._channel.alive()

    def request(self, header: dict, buffers: list, timeout: float):
        """One raw request to the worker (started if need be) -> (reply, buffers): for scripts that
        probe the provider below the backend's own requests (scripts/dml_wine)."""
        return self._ensure_worker().request(header, buffers, timeout)

    def metadata(self) -> dict:
        hello = self.hello or {}
        adapters = hello.get("adapters")
        device = adapters[0]["description"] if isinstance(adapters, list) and adapters else "default"
        if self.provider == CPU:
            device = hello.get("machine", platform.machine())
        meta = {"backend": self.name, "provider": self.provider, "provider_options": self.provider_options,
                "session_config": self.config, "onnxruntime": hello.get("onnxruntime"),
                "onnxruntime_package": ("onnxruntime-directml " if self.provider == DML else "onnxruntime ")
                + str(hello.get("onnxruntime")) + f" ({hello.get('platform')}, Python {hello.get('python')})",
                "device": device, "directml": hello.get("directml_dll"),
                "dml_max_feature_level": hello.get("dml_max_feature_level"),
                "adapters": adapters, "worker": {**self._describe, "numpy": hello.get("numpy"),
                                                 "graph_fusion": self.config.get("ep.dml.disable_graph_fusion") != "1",
                                                 "multi_node": self.settings["multi_node"],
                                                 "max_nodes": self.settings["max_nodes"],
                                                 "memory_budget_mb": self.memory_budget >> 20,
                                                 "sessions_per_worker": self.capacity()}}
        if self.provider == DML:
            meta.update(wine_lane.directml_header(hello.get("directml_loaded"), self.release, self.release_requested))
        return meta

    # -- planning ------------------------------------------------------------------------------------
    def prepare(self, cases):
        """Lay out every graph before the run, so each family needs one session."""
        for case in cases:
            planned = self._plan(case)
            if not isinstance(planned, Outcome):
                self._slot(*planned)

    def _plan(self, case):
        """-> (node key, node, dtype), or an Outcome for cases no graph can express (the ort
        backend's rule: in place and ScaleBias are not reachable)."""
        made = case_node(case)
        if isinstance(made, Outcome):
            return made
        node, key = made
        return key, node, case.dtype

    def _slot(self, key, node, dtype):
        if key in self._slots:
            return self._slots[key]
        family = key[:3]
        graph_key = self._open.get(family)
        graph = self._graphs.get(graph_key)
        limit = self.settings["max_nodes"] if self.settings["multi_node"] else 1
        if graph is None or graph.created or graph.failure is not None or len(graph.nodes) >= limit:
            graph_key = f"{node.op_type}-{node.opset}-{dtype}-g{len(self._graphs)}"
            graph = self._graphs[graph_key] = Graph(graph_key, dtype)
            self._open[family] = graph_key
        graph.nodes.append(node)
        graph.keys.append(key)
        self._slots[key] = (graph_key, len(graph.nodes) - 1)
        return self._slots[key]

    def _split(self, graph: Graph):
        """A graph that failed as a whole: each node gets a graph of its own."""
        for index, (node, key) in enumerate(zip(graph.nodes, graph.keys)):
            single_key = f"{graph.key}-n{index}"
            self._graphs[single_key] = Graph(single_key, graph.dtype, [node], [key])
            self._slots[key] = (single_key, 0)

    # -- running ---------------------------------------------------------------------------------------
    def run(self, case, x):
        return self.run_many([(case, x)])[0]

    def run_many(self, items):
        outcomes = [None] * len(items)
        pending = []
        for position, (case, x) in enumerate(items):
            planned = self._plan(case)
            if isinstance(planned, Outcome):
                outcomes[position] = planned
            else:
                pending.append((position, planned[0], x))
                self._slot(*planned)
        for _ in range(3):  # a split graph needs one more round trip
            retry = []
            for trip in self._trips(pending, outcomes):
                retry += self._round_trip(trip, outcomes)
            pending = retry
            if not pending:
                break
        for position, _, _ in pending:
            outcomes[position] = Outcome(ERROR, message="no verdict after three round trips (harness bug)")
        return outcomes

    def capacity(self) -> int | None:
        """Sessions one worker may hold within the memory budget (None: no limit). Under Wine and
        lavapipe each DirectML session keeps about 1.5 GB of shared memory until the process
        ends (destroying the session does not give it back), so a worker is recycled instead; and
        where DirectML's provider failed to start in a worker holding N sessions (it could make no
        more devices: the H100, docs/gpu/catalogue/README.md), no worker holds more than N."""
        limits = [self._provider_capacity] if self._provider_capacity else []
        if self.memory_budget and self._per_session:
            limits.append(max(1, int((self.memory_budget - self._base_memory) // self._per_session)))
        return min(limits) if limits else None

    def _trips(self, pending, outcomes):
        """Group pending cases by graph, and the graphs into round trips of at most capacity()."""
        by_graph = {}
        for position, key, x in pending:
            graph_key, index = self._slots[key]
            graph = self._graphs[graph_key]
            if graph.failure is not None:
                outcomes[position] = _copy(graph.failure)
            elif graph.deaths >= POISON_AFTER:
                outcomes[position] = Outcome(CRASH, message=f"not sent: graph {graph.key} was in flight when the "
                                                            f"worker died {graph.deaths} times")
            else:
                by_graph.setdefault(graph_key, []).append((position, index, x))
        limit = self.capacity() or len(by_graph) or 1
        trips, trip = [], {}
        for graph_key, entries in by_graph.items():
            if len(trip) >= limit:
                trips.append(trip)
                trip = {}
            trip[graph_key] = entries
        return trips + ([trip] if trip else [])

    def _recycle_if_full(self, by_graph):
        """Start a fresh worker when the sessions this trip creates would not fit the budget."""
        limit = self.capacity()
        new = sum(1 for graph_key in by_graph if not self._graphs[graph_key].created)
        if limit is None or not new or self._live == 0 or self._live + new <= limit:
            return
        self._retire_worker()

    def _retire_worker(self):
        """Close the worker; the next trip starts a fresh one, which creates every session anew."""
        self._channel.close()
        self._channel = None
        self._replace_worker = False
        self.recycles += 1
        for graph in self._graphs.values():
            graph.created = False

    def _round_trip(self, by_graph, outcomes):
        """Send what by_graph needs in one request; fill outcomes; return what must go again."""
        if not by_graph:
            return []
        channel = self._worker_for(by_graph, outcomes)
        if channel is None:
            return []
        buffers, sessions, runs, run_cases = self._batch_request(by_graph)
        self.round_trips += 1
        header = {"op": "batch", "id": self.round_trips, "sessions": sessions, "runs": runs}
        timeout = self.settings["timeout"] + self.settings["session_timeout"] * len(sessions)
        in_flight = [position for _, chosen in run_cases for position, _, _ in chosen]
        channel.before_send, channel.after_send = self.before_send, self.after_send
        try:
            reply, reply_buffers = channel.request(header, buffers.items, timeout)
            results = self._check_reply(reply, reply_buffers, header)
        except WorkerDied as death:
            self._worker_died(death, list(by_graph), in_flight, outcomes, timeout)
            return []
        if reply.get("op") == "error":
            for position in in_flight:
                outcomes[position] = Outcome(ERROR, message=f"worker error: {reply.get('error')}")
            for graph_key in by_graph:
                self._graphs[graph_key].created = False
            return []
        self._count_sessions(channel, int(reply.get("sessions_created", 0)))
        retry = self._session_failures(sessions, reply["sessions"], by_graph)
        self._fill(run_cases, results, {position for position, _, _ in retry}, outcomes)
        return retry

    def _worker_for(self, by_graph, outcomes):
        """The live worker for a trip (a fresh one where the trip's new sessions would pass the
        memory budget); None where none can be started, every case of the trip then a crash."""
        if self._channel is not None and self._channel.alive():
            if self._replace_worker:
                self._retire_worker()
            else:
                self._recycle_if_full(by_graph)
        if self._start_failures >= MAX_START_FAILURES:
            message = f"not run: the worker failed to start {self._start_failures} times in a row"
        else:
            try:
                return self._ensure_worker()
            except BackendUnavailable as error:
                message = f"the worker could not be restarted: {error}"
        for entries in by_graph.values():
            for position, _, _ in entries:
                outcomes[position] = Outcome(CRASH, message=message)
        return None

    def _batch_request(self, by_graph):
        """-> (buffers, the sessions to create, the runs, and per run (graph key, its cases))."""
        buffers = protocol.Buffers()
        sessions, runs, run_cases = [], [], []
        for graph_key, entries in by_graph.items():
            graph = self._graphs[graph_key]
            if not graph.created:
                buffers.items.append(multi_node_model(graph.nodes, graph.dtype))
                sessions.append({"key": graph_key, "model": len(buffers.items) - 1, "provider": self.provider,
                                 "provider_options": self.provider_options, "config": self.config,
                                 "sequential_no_mem_pattern": self.provider != CPU, "profile": True})
            for chosen in _runs(entries):
                runs.append({"session": graph_key,
                             "feeds": {k: v for _, index, x in chosen
                                       for k, v in _put(graph.nodes[index], x, index, buffers).items()},
                             "fetch": [f"y{index}" for _, index, _ in chosen]})
                run_cases.append((graph_key, chosen))
        return buffers, sessions, runs, run_cases

    def _count_sessions(self, channel, created: int):
        """Count the sessions a trip created, and learn from the worker's size what one costs here."""
        self.sessions_created += created
        self._live += created
        memory = channel.memory()
        if memory:
            self.peak_memory = max(self.peak_memory, memory)
            if self._live:  # never lower the estimate
                self._per_session = max(self._per_session, (memory - self._base_memory) // self._live)

    def _session_failures(self, sessions, replies, by_graph) -> list:
        """Each graph whose session came up is created; one whose session failed takes that verdict,
        or (several nodes, the provider itself up) is split so that each case gets its own: those
        cases are returned, to go again."""
        retry = []
        for session in sessions:
            if replies.get(session["key"], {}).get("ok"):
                self._graphs[session["key"]].created = True
        held = sum(graph.created for graph in self._graphs.values())
        for session in sessions:
            graph = self._graphs[session["key"]]
            created = replies.get(session["key"], {})
            if created.get("ok"):
                continue
            message = one_line(created.get("error", "no reason given"))
            if created.get("provider_failed") and held and not graph.fresh_tried:
                # DirectML's provider could not make its device in a worker that holds other sessions
                # (each keeps its own device until the process ends): once more, in a fresh worker,
                # and from now on no worker is given more sessions than this one held.
                graph.fresh_tried = self._replace_worker = True
                self._provider_capacity = min(held, self._provider_capacity or held)
                retry += [(p, graph.keys[i], x) for p, i, x in by_graph[graph.key]]
                continue
            status = (CPU_FALLBACK if created.get("fallback") else ERROR if created.get("provider_failed")
                      else classify_error(message))
            graph.failure = Outcome(status, message=message)
            if len(graph.nodes) > 1 and not created.get("provider_failed"):
                self._split(graph)
                retry += [(p, graph.keys[i], x) for p, i, x in by_graph[graph.key]]
        return retry

    def _fill(self, run_cases, results, retrying, outcomes):
        """The outcome of each case the runs answered (not those in retrying: they go again)."""
        for (graph_key, chosen), result in zip(run_cases, results):
            graph = self._graphs[graph_key]
            if "placement" in result:
                graph.placement = result["placement"]
            for position, index, _ in chosen:
                if position in retrying:
                    continue
                if graph.failure is not None:
                    outcomes[position] = _copy(graph.failure)
                elif not result.get("ok"):
                    message = one_line(result.get("error"))
                    outcomes[position] = Outcome(classify_error(message), message=message)
                else:
                    outcomes[position] = self._outcome(graph, index, result["outputs"][f"y{index}"])

    def _check_reply(self, reply, buffers, header):
        """The decoded outputs of each run, or WorkerDied if the reply does not answer the request."""
        if reply.get("op") == "error" and reply.get("id") == header["id"]:
            return []
        problem = None
        if reply.get("op") != "batch" or reply.get("id") != header["id"]:
            problem = f"a reply to {reply.get('op')!r} #{reply.get('id')!r}, not batch #{header['id']}"
        elif len(reply.get("runs", [])) != len(header["runs"]):
            problem = f"{len(reply.get('runs', []))} run results for {len(header['runs'])} runs"
        elif not isinstance(reply.get("sessions"), dict) or set(reply["sessions"]) != {s["key"] for s in header["sessions"]}:
            problem = "session results that do not match the sessions asked for"
        if problem is None:
            results = []
            try:
                for run, result in zip(header["runs"], reply["runs"]):
                    result = dict(result)
                    if result.get("ok"):
                        outputs = result.get("outputs", {})
                        result["outputs"] = {name: protocol.take(outputs[name], buffers) for name in run["fetch"]}
                    results.append(result)
                return results
            except (protocol.ProtocolError, KeyError, TypeError, AttributeError) as error:
                problem = f"undecodable outputs ({error})"
        raise WorkerDied(CRASH, f"the worker answered garbage: {problem}")

    def _outcome(self, graph: Graph, index: int, output) -> Outcome:
        names = {graph.node_name(i) for i in range(len(graph.nodes))}
        proven, where, why = ortcommon.prove(graph.placement or {}, self.provider, graph.node_name(index), names)
        return Outcome(OK if proven else CPU_FALLBACK, output=as_directml(output), placement=where, message=why)

    def _worker_died(self, death: WorkerDied, graph_keys, in_flight, outcomes, timeout):
        channel = self._channel
        self._channel = None
        self.worker_deaths += 1
        self.restarts += 1
        if channel is not None:
            channel.kill()
            tail = channel.tail()
        else:
            tail = ""
        for graph_key in graph_keys:
            self._graphs[graph_key].deaths += 1
        for graph in self._graphs.values():
            graph.created = False
        limit = f" (limit {timeout:.0f} s)" if death.status == TIMEOUT else ""
        message = (f"{death}{limit} with {len(in_flight)} case(s) in flight; the worker is restarted; "
                   f"its last output: {tail}")
        for position in in_flight:
            outcomes[position] = Outcome(death.status, message=message)

    def close(self):
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        closer = getattr(self._channel_factory, "close", None)
        if closer:
            closer()
        if not self.round_trips:
            shutil.rmtree(self.logdir, ignore_errors=True)
            return
        if self.worker_deaths:
            logs = f"; worker logs kept in {self.logdir}"
        else:
            shutil.rmtree(self.logdir, ignore_errors=True)
            logs = ""
        memory = f", worker peak {self.peak_memory / 2**30:.1f} GiB" if self.peak_memory else ""
        print(f"{self.name}: {self.worker_starts} worker start(s) ({self.restarts} after a crash or hang, "
              f"{self.recycles} to stay within {self.memory_budget / 2**30:.1f} GiB), {self.sessions_created} "
              f"session(s) created, {self.round_trips} round trip(s){memory}{logs}", file=sys.stderr)


def _runs(entries):
    """A graph's cases, (position, node index, x), as runs of at most one case per node. An empty
    tensor runs alone: under DirectML it garbles the outputs of the other nodes of the same run
    (docs/dml-wine.md, "Other findings")."""
    queues = {}
    for entry in entries:
        if operands.size(entry[2]) == 0:
            yield [entry]
        else:
            queues.setdefault(entry[1], []).append(entry)
    while queues:
        yield [queue.pop(0) for queue in queues.values()]
        queues = {index: queue for index, queue in queues.items() if queue}


def _copy(outcome: Outcome) -> Outcome:
    """A case's own Outcome (the runner may amend one's message)."""
    return Outcome(outcome.status, message=outcome.message)


# ---- factories (entry points of dml_conformance.backends) -----------------------------------------------
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


def socket_factory(launcher, settings):
    def factory(logdir, generation, load_directml=True):
        return SocketChannel(launcher, settings["startup_timeout"], logdir, generation,
                             () if load_directml else ("--no-directml-load",))
    factory.close = launcher.close
    return factory


def dml_wine(name, options):
    """The real DirectML.dll under Wine (see docs/dml-wine.md); dml_release=VERSION runs another
    provisioned onnxruntime-directml release (conformance/backends/dml_releases.py)."""
    lane, reason = find_lane()
    if lane is None:
        raise BackendUnavailable(reason)
    options = dict(options or {})
    requested = options.pop(dml_releases.OPTION, None)
    lane, release = wine_lane.for_release(lane, requested)
    settings, provider_options = worker_settings(options)
    settings["session_memory_mb"] = settings["session_memory_mb"] or SESSION_MEMORY_MB_WINE
    settings["memory_limit_mb"] = WORKER_MEMORY_MB_WINE
    provider_options = {"device_id": "0", **provider_options}  # DXGI path: Wine has no DXCore
    env = {"DMLC_WORKER_TEST_HOOKS": "1"} if settings["test_hooks"] else {}
    launcher = WineLauncher(lane, winedebug=settings["winedebug"], env=env)
    try:
        backend = WorkerBackend(name, DML, provider_options, _dml_config(settings),
                                socket_factory(launcher, settings), settings, launcher.describe())
        backend.release, backend.release_requested = release, requested
    except BaseException:
        launcher.close()
        raise
    launcher.guard.adopt(backend.logdir)
    return backend


def _dml_wine_available():
    lane, reason = find_lane()
    if lane is None:
        return False, reason
    marker = lane.marker
    return True, (f"provisioned in {lane.home}: onnxruntime-directml {marker.get('onnxruntime')}, DirectML.dll "
                  f"{marker.get('directml_dll')} on {marker.get('adapter')} (Mesa {marker.get('mesa_vulkan_drivers')})")


dml_wine.available = _dml_wine_available


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


def _put(node, x, index, buffers) -> dict:
    """The feeds of node index (its input, or each of several) as array references in buffers."""
    return {name: buffers.put(value) for name, value in feeds(node, x, f"x{index}").items()}
