"""The worker backend: ONNX Runtime in a worker process (conformance/worker, stdlib + numpy +
onnxruntime only), started once and kept alive, reached through a channel (worker_channels); the
factories that make it (dml-wine, cpu-worker, dml-worker) are in dml_wine.py.

Session economy: a DirectML session costs time (0.3 s under lavapipe, 2 s without vkd3d's virtual
heaps) and memory, so cases share sessions: the planner (worker_graphs) puts the nodes of every
operator and data type of one opset into one graph, and one run() serves up to one case per node. prepare(cases), when the runner calls it, lays the graphs out before
anything runs; without it they grow batch by batch.

Memory: a session's memory stays until the worker exits (under Wine destroying it gives nothing
back, "forget" included): about 30 MB with vkd3d's virtual heaps (dml-wine's default), 1.5 GB
without. The backend learns what a session costs from the worker's resident size and starts a
fresh worker before the next sessions would pass the memory budget.

Faults: a worker that dies, hangs past the round trip's time limit, or answers garbage fails
the cases of that round trip (crash or timeout, with the tail of the worker's log), is killed
and restarted at the next batch, and the run goes on.
"""
import platform
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from conformance.backends import wine_lane
from conformance.backends.base import (CPU_FALLBACK, CRASH, ERROR, OK, TIMEOUT, Backend, BackendUnavailable,
                                       Outcome, one_line)
from conformance.backends.execution_flags import ProviderFlags
from conformance.backends.onnx_models import directml_outcome, onnx_operands
from conformance.backends.onnx_models import feeds, output_names, outputs_as_directml
from conformance.backends.ort import classify_error, multi_node_model
from conformance.backends.procmem import available_memory
from conformance.backends.worker_channels import WorkerDied
from conformance.backends.worker_graphs import Graph, Planner
from conformance.caseset import operands
from conformance.worker import ortcommon, protocol

DML = ortcommon.DML
CPU = ortcommon.CPU
MAX_START_FAILURES = 3
DEVICE_ATTEMPTS = 4  # worker starts to get one that can create a D3D12 device
POISON_AFTER = 2  # a graph involved in this many worker deaths is not sent again


class WorkerBackend(Backend):
    def __init__(self, name: str, provider: str, provider_options: dict, config: dict, channel_factory,
                 settings: dict, describe: dict | None = None, make_folder=None):
        """make_folder(name_prefix) -> the logs' folder (default tempfile.mkdtemp's; a Wine lane's
        Guard.mkdtemp, so that a killed harness leaves none)."""
        super().__init__()
        self.name, self.provider = name, provider
        self.provider_options, self.config = dict(provider_options), dict(config)
        self.settings = settings
        self._channel_factory = channel_factory
        self._describe = describe or {}
        self.logdir = Path(make_folder(f"{name}-logs-") if make_folder else tempfile.mkdtemp(prefix=f"{name}-logs-"))
        self.worker_starts = 0
        self.restarts = 0  # after a death
        self.recycles = 0  # planned: the worker's memory would pass the budget, or its provider failed
        self._replace_worker = False  # a session's provider failed to start: the next trip gets a new worker
        self._provider_capacity = None  # the sessions a worker held when its provider first failed to start
        self.worker_deaths = 0
        self.round_trips = 0
        self.peak_memory = 0
        self._live = 0  # sessions created in the current worker
        self._base_memory = self._memory = 0  # the current worker's resident size at start, and now
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
        # DirectML's DML_EXECUTION_FLAGS for each case (conformance/backends/execution_flags.py); None: the CPU's
        self.flags = ProviderFlags(self.provider_options) if provider == DML else None
        self.planner = Planner(settings["max_nodes"] if settings["multi_node"] else 1, settings.get("mixed_graphs", True))
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
        self._base_memory = self._memory = channel.memory() or 0
        if self.provider not in channel.hello.get("providers", []):
            raise BackendUnavailable(f"{self.name}: the worker's ONNX Runtime {channel.hello.get('onnxruntime')} "
                                     f"has no {self.provider} (it has {channel.hello.get('providers')})")
        self.planner.forget_sessions()
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

    @property
    def channel(self):
        """The worker channel now in use (None before the first start): a profiler may time its requests."""
        return self._channel

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
                                                 "mixed_graphs": self.settings.get("mixed_graphs", True),
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
                self.planner.slot(*planned)

    def _plan(self, case):
        """The planner's (node key, node, dtype), or the Outcome that says why no graph runs the case
        (on DirectML also: other ExecutionFlags than the provider's)."""
        return (self.flags and self.flags.refusal(case)) or self.planner.plan(case)

    # -- running ---------------------------------------------------------------------------------------
    def run(self, case, x):
        return self.run_many([(case, x)])[0]

    def run_many(self, items):
        items = [(case, onnx_operands(case, x)) for case, x in items]
        outcomes = [directml_outcome(case, outcome) for (case, _), outcome in zip(items, self._run_many(items))]
        return [self.flags.stamp(case, o) for (case, _), o in zip(items, outcomes)] if self.flags else outcomes

    def _run_many(self, items):
        outcomes = [None] * len(items)
        pending = []
        for position, (case, x) in enumerate(items):
            planned = self._plan(case)
            if isinstance(planned, Outcome):
                outcomes[position] = planned
            else:
                pending.append((position, planned[0], x))
                self.planner.slot(*planned)
        # Each retry is in a smaller graph: a graph of n nodes splits at most n - 1 times.
        for _ in range(self.planner.max_nodes + 2):
            retry = []
            for trip in self._trips(pending, outcomes):
                retry += self._round_trip(trip, outcomes)
            pending = retry
            if not pending:
                break
        for position, _, _ in pending:
            outcomes[position] = Outcome(ERROR, message="no verdict after splitting every graph (harness bug)")
        return outcomes

    def capacity(self) -> int | None:
        """Sessions a fresh worker may hold within the memory budget (None: no limit): a session's
        memory stays until the process ends (under Wine destroying it gives nothing back), so a
        worker is recycled instead; and where DirectML's provider failed to start in a worker
        holding N sessions (it could make no more devices: the H100, docs/gpu/catalogue/README.md),
        no worker holds more than N."""
        limits = [self._provider_capacity] if self._provider_capacity else []
        if self.memory_budget and self._per_session:
            limits.append(max(1, int((self.memory_budget - self._base_memory) // self._per_session)))
        return min(limits) if limits else None

    def _trips(self, pending, outcomes):
        """Group pending cases by graph, and the graphs into round trips of at most capacity()."""
        by_graph = {}
        for position, key, x in pending:
            graph_key, index = self.planner.slots[key]
            graph = self.planner.graphs[graph_key]
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
        """Start a fresh worker when the sessions this trip creates would not fit: the worker's size
        now and what each new session is expected to add pass the memory budget, or the worker
        would hold more sessions than DirectML's provider could start in one."""
        new = sum(1 for graph_key in by_graph if not self.planner.graphs[graph_key].created)
        if not new or self._live == 0:
            return
        over_memory = self.memory_budget and self._memory + new * self._per_session > self.memory_budget
        over_devices = self._provider_capacity and self._live + new > self._provider_capacity
        if over_memory or over_devices:
            self._retire_worker()

    def _retire_worker(self):
        """Close the worker; the next trip starts a fresh one, which creates every session anew."""
        self._channel.close()
        self._channel = None
        self._replace_worker = False
        self.recycles += 1
        self.planner.forget_sessions()

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
                self.planner.graphs[graph_key].created = False
            return []
        self._count_sessions(channel, int(reply.get("sessions_created", 0)))
        retry = self._session_failures(sessions, reply["sessions"], by_graph)
        retry += self._fill(run_cases, results, {position for position, _, _ in retry}, outcomes)
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
            graph = self.planner.graphs[graph_key]
            if not graph.created:
                buffers.items.append(multi_node_model(graph.nodes, graph.dtypes))
                sessions.append({"key": graph_key, "model": len(buffers.items) - 1, "provider": self.provider,
                                 "provider_options": self.provider_options, "config": self.config,
                                 "sequential_no_mem_pattern": self.provider != CPU, "profile": True})
            for chosen in _runs(entries):
                runs.append({"session": graph_key,
                             "feeds": {k: v for _, index, x in chosen
                                       for k, v in _put(graph.nodes[index], x, index, buffers).items()},
                             "fetch": [name for _, index, _ in chosen
                                       for name in output_names(graph.nodes[index], f"y{index}")]})
                run_cases.append((graph_key, chosen))
        return buffers, sessions, runs, run_cases

    def _count_sessions(self, channel, created: int):
        """Count the sessions a trip created, and learn from the worker's size what one costs here."""
        self.sessions_created += created
        self._live += created
        memory = channel.memory()
        if memory:
            self.peak_memory = max(self.peak_memory, memory)
            if created:  # what the trip added, per session it created (never lowering the estimate)
                self._per_session = max(self._per_session, (memory - self._memory) // created)
            self._memory = memory

    def _session_failures(self, sessions, replies, by_graph) -> list:
        """Each graph whose session came up is created; one whose session failed takes that verdict,
        or (several nodes, the provider itself up) is split so that each case gets its own: those
        cases are returned, to go again."""
        retry = []
        for session in sessions:
            if replies.get(session["key"], {}).get("ok"):
                self.planner.graphs[session["key"]].created = True
        held = sum(graph.created for graph in self.planner.graphs.values())
        for session in sessions:
            graph = self.planner.graphs[session["key"]]
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
                self.planner.split(graph, message)
                retry += [(p, graph.keys[i], x) for p, i, x in by_graph[graph.key]]
        return retry

    def _fill(self, run_cases, results, retrying, outcomes) -> list:
        """The outcome of each case the runs answered (not those in retrying: they go again). A run
        that failed in a graph of several nodes may have failed for any of them (a session's first
        run computes every node, for its placement proof, and fails while any node does): the graph
        is split as a graph that could not be created is, and the run's cases go again (returned),
        so that one node's failure is not its neighbours' verdict."""
        again = []
        split = set()
        for (graph_key, chosen), result in zip(run_cases, results):
            graph = self.planner.graphs[graph_key]
            if "placement" in result:
                graph.placement = result["placement"]
            for position, index, x in chosen:
                if position in retrying:
                    continue
                if graph.failure is not None:
                    outcomes[position] = _copy(graph.failure)
                elif not result.get("ok") and len(graph.nodes) > 1:
                    if graph_key not in split:
                        split.add(graph_key)
                        self.planner.split(graph, one_line(result.get("error")))
                    again.append((position, graph.keys[index], x))
                elif not result.get("ok"):  # a graph of its node alone: the error is the case's own
                    message = one_line(result.get("error"))
                    outcomes[position] = Outcome(classify_error(message), message=message)
                else:
                    outcomes[position] = self._outcome(graph, index, [result["outputs"][name] for name in
                                                                      output_names(graph.nodes[index], f"y{index}")])
        return again

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

    def _outcome(self, graph: Graph, index: int, outputs: list) -> Outcome:
        names = {graph.node_name(i) for i in range(len(graph.nodes))}
        proven, where, why = ortcommon.prove(graph.placement or {}, self.provider, graph.node_name(index), names)
        # The message names the case's node as its single-node model would (the placement keeps the
        # graph's names): a verdict does not depend on where the planner put the node.
        why = re.sub(rf"\b{re.escape(graph.node_name(index))}\b", f"{graph.nodes[index].op_type}_0", why)
        return Outcome(OK if proven else CPU_FALLBACK, output=outputs_as_directml(graph.nodes[index], outputs),
                       placement=where, message=why)

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
            self.planner.graphs[graph_key].deaths += 1
        self.planner.forget_sessions()
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


def _put(node, x, index, buffers) -> dict:
    """The feeds of node index (its input, or each of several) as array references in buffers."""
    return {name: buffers.put(value) for name, value in feeds(node, x, f"x{index}").items()}
