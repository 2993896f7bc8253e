"""ONNX Runtime backends: one execution provider, no silent fallback, placement proven.

Sessions are cached by (operator node, data type): shapes are dynamic, so one
session serves every case of that operator, type and parameter set. Through
run_many, cases of one operator and data type whose parameters differ share a
session too: prepare(cases) plans one graph per operator and data type with a
node per parameter set (input x<k>, output y<k>); each session.run feeds every
node, a case's tensor to its node and a one-element dummy to the others, so one
run serves one case per node. A graph that cannot be made, or a run that fails,
falls back to one single-node session per parameter set, which names the culprit.
"""
import contextlib
import gc
import io
import os
import platform
import re
import shutil
import tempfile
import weakref

import numpy as np

from conformance import specs
from conformance.caseset import operands
from conformance.backends.base import (BATCH, CPU_FALLBACK, ERROR, NOT_REACHABLE, OK, UNSUPPORTED, Backend,
                                       BackendUnavailable, Outcome, one_line)
from conformance.backends.execution_flags import ProviderFlags
from conformance.backends.onnx_models import directml_outcome, onnx_operands
from conformance.backends.onnx_models import (feeds, input_infos, input_names, node_for, output_names,
                                              outputs_as_directml, single_node_model)
from conformance.specs.base import NotReachable
from conformance.worker import ortcommon

MAX_NODES = BATCH  # parameter sets in one shared graph: a batch of one operator and type fits one
KERNEL_NOT_FOUND = "Could not find an implementation for"
UNSUPPORTED_MARKERS = ("NOT_IMPLEMENTED", "Could not find an implementation",
                       "assigned to the default CPU EP", "is not supported", "Type Error: Type")
# This ONNX Runtime's ONNX does not know the node's opset (CumProd's 26 in onnxruntime-directml 1.24.4): the
# route cannot express the case with this runtime, which says nothing of the device
NOT_REACHABLE_MARKERS = ("ValidateOpsetForDomain",)


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
                 sequential_no_mem_pattern: bool = False, check_placement: bool = True,
                 share_graphs: bool = True):
        super().__init__()
        self.name, self.provider, self.options = name, provider, dict(options or {})
        self.config = dict(config or {})
        self.disable_cpu_fallback = disable_cpu_fallback
        self.sequential_no_mem_pattern = sequential_no_mem_pattern
        self.check_placement = check_placement
        self.share_graphs = share_graphs  # False: one single-node session per parameter set, as run()
        self.ort = import_onnxruntime()
        self.ort.set_default_logger_severity(ortcommon.LOG_ERRORS_ONLY)
        available = self.ort.get_available_providers()
        if provider not in available:
            raise BackendUnavailable(f"{name}: ONNX Runtime {self.ort.__version__} here has no {provider} "
                                     f"(it has {', '.join(available)})")
        self._sessions = {}  # key -> (session, failure Outcome or None)
        self._provider_exhausted = False  # letting the sessions go did not get the provider started
        self.profile_dir = None  # made on the first profiled session, removed by close() or at exit
        self._nodes = {}  # (op, dtype, in place, parameters) -> (OnnxNode, key) or Outcome
        self._plan = {}  # node key -> (graph number, node index) in a shared graph
        self._graphs = []  # [{"nodes": [OnnxNode], "dtype": str, "session", "failed", "placement"}]
        # DirectML's DML_EXECUTION_FLAGS for each case (conformance/backends/execution_flags.py); None: the CPU's
        self.flags = ProviderFlags(self.options) if provider == ortcommon.DML else None

    def _profiles(self) -> str:
        if self.profile_dir is None:
            self.profile_dir = tempfile.mkdtemp(prefix="conformance-profile-")
            self._cleanup = weakref.finalize(self, shutil.rmtree, self.profile_dir, True)
        return self.profile_dir

    def close(self):
        self._sessions.clear()
        for graph in self._graphs:
            graph["session"] = None
        if self.profile_dir is not None:
            self._cleanup()
            self.profile_dir = None

    def metadata(self) -> dict:
        meta = {"backend": self.name, "provider": self.provider, "provider_options": self.options,
                "session_config": self._session_config(), "onnxruntime": self.ort.__version__,
                "onnxruntime_package": _ort_distribution(), "device": _cpu_name()
                if self.provider == ortcommon.CPU else self.options.get("device_id", "default"),
                "directml": None}
        if self.provider == "DmlExecutionProvider":
            meta.update(_directml_device(self.ort, self.options.get("device_id", "0")))
        return meta

    def _session_config(self) -> dict:
        config = dict(self.config)
        if self.disable_cpu_fallback and self.provider != ortcommon.CPU:
            config["session.disable_cpu_ep_fallback"] = "1"
        # Idle intra-op threads sleep instead of spinning: they would take the cores the
        # verification runs on, and a spinning pool takes ~15 ms to tear down per session.
        config.setdefault("session.intra_op.allow_spinning", "0")
        return config

    def _node(self, case):
        """-> (OnnxNode, key) or the Outcome that says why the case cannot run (memoised)."""
        memo_key = (case.op, case.dtype, case.in_place, repr(sorted(case.params.items())),
                    any(i.broadcast for i in case.inputs), case.shape if specs.get(case.op).onnx_for_shape else None,
                    case.id if specs.get(case.op).onnx_undefined else None, bool(case.input_strides))
        found = self._nodes.get(memo_key)
        if found is None:
            found = self._nodes[memo_key] = (self.flags and self.flags.refusal(case)) or case_node(case)
        return found

    # -- shared graphs --------------------------------------------------------------------------

    def prepare(self, cases):
        """Plan the shared graphs for every case the run will hand to run_many."""
        self._add_to_plan(cases)

    def _add_to_plan(self, cases):
        groups = {}
        for case in cases:
            found = self._node(case)
            if isinstance(found, Outcome):
                continue
            node, key = found
            if key not in self._plan:
                family = key if node.alone else (node.op_type, node.opset, case.dtype)
                groups.setdefault(family, {}).setdefault(key, node)
        for family, variants in groups.items():
            dtype = family[2]
            keys = list(variants)
            for start in range(0, len(keys), MAX_NODES):
                number = len(self._graphs)
                chosen = keys[start:start + MAX_NODES]
                self._graphs.append({"nodes": [variants[k] for k in chosen], "dtype": dtype, "session": None,
                                     "failed": False, "placement": None})
                for index, key in enumerate(chosen):
                    self._plan[key] = (number, index)

    def run_many(self, items):
        """items: [(case, x)]: one session.run per round of at most one case per node."""
        items = [(case, onnx_operands(case, x)) for case, x in items]
        return [self._stamped(case, directml_outcome(case, outcome))
                for (case, _), outcome in zip(items, self._run_many(items))]

    def _stamped(self, case, outcome):
        return self.flags.stamp(case, outcome) if self.flags else outcome

    def _run_many(self, items):
        if not self.share_graphs:
            return [self.run(case, x) for case, x in items]
        outcomes = [None] * len(items)
        nodes = [self._node(case) for case, _ in items]
        unplanned = [case for (case, _), found in zip(items, nodes)
                     if not isinstance(found, Outcome) and found[1] not in self._plan]
        if unplanned:
            self._add_to_plan(unplanned)
        waiting = {}  # graph number -> [(item number, node index)]
        for number, ((case, x), found) in enumerate(zip(items, nodes)):
            if isinstance(found, Outcome):
                outcomes[number] = Outcome(found.status, message=found.message)
                continue
            graph, index = self._plan[found[1]]
            if len(self._graphs[graph]["nodes"]) == 1:
                outcomes[number] = self.run(case, x)  # nothing to share: the single-node session
            else:
                waiting.setdefault(graph, []).append((number, index))
        for graph, entries in waiting.items():
            rounds, alone = [], []
            for number, index in entries:
                if operands.size(items[number][1]) == 0:
                    # An empty tensor runs alone: under DirectML it garbles the outputs of the other
                    # nodes of the same run (docs/dml-wine.md, "Other findings"; docs/windows.md).
                    alone.append({index: number})
                    continue
                for chosen in rounds:
                    if index not in chosen:
                        chosen[index] = number
                        break
                else:
                    rounds.append({index: number})
            for chosen in rounds + alone:
                self._run_round(graph, chosen, items, outcomes)
        return outcomes

    def _run_round(self, graph_number, chosen, items, outcomes):
        graph = self._graphs[graph_number]
        if graph["session"] is None and not graph["failed"]:
            graph["session"] = self._create_graph(graph)
            graph["failed"] = graph["session"] is None
        if graph["failed"]:
            shared = graph.get("failure")
            for number in chosen.values():
                outcomes[number] = Outcome(shared.status, message=shared.message) if shared \
                    else self.run(*items[number])
            return
        dtype, nodes = graph["dtype"], graph["nodes"]
        given = {}
        for k, node in enumerate(nodes):
            given.update({name: np.ones((1,), dtype=t)  # not 0: an integer Mod or Div by 0 fails the run
                          for name, t in zip(input_names(node, f"x{k}"), node.input_types or (dtype,))})
        for index, number in chosen.items():
            given.update(feeds(nodes[index], items[number][1], f"x{index}"))
        indices = list(chosen)
        fetch = [output_names(nodes[k], f"y{k}") for k in indices]
        try:
            flat = iter(graph["session"].run([name for names in fetch for name in names], given))
            values = [outputs_as_directml(nodes[k], [next(flat) for _ in names]) for k, names in zip(indices, fetch)]
        except Exception:  # which node? its own session will say
            for number in chosen.values():
                outcomes[number] = self.run(*items[number])
            return
        names = [_node_name(n, k) for k, n in enumerate(nodes)]
        proving = graph["placement"] is None
        if proving:
            graph["placement"] = self._placement(graph["session"], names) if self.check_placement else {}
        for index, value in zip(indices, values):
            outcomes[chosen[index]] = self._proven(graph["placement"], names[index], names, value, proving)

    def _new_session(self, model, options):
        """A session on the provider. Where the provider itself fails to start (ONNX Runtime's Python
        prints "EP Error", then its retry on the CPU provider meets the disabled fallback: "Conflicting
        session configuration"), the sessions this backend holds are let go once and it tries again:
        each DirectML session holds a device of its own, and a process can make only so many
        (docs/gpu/catalogue/README.md). Still failing, the error is the provider's own."""
        for attempt in range(2):
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):
                    session = self.ort.InferenceSession(model, options, providers=[(self.provider, self.options)])
                self._provider_exhausted = self._provider_exhausted and not attempt  # letting go helped
                return session
            except Exception as error:  # onnxruntime raises its own Fail/InvalidArgument/... types
                if "EP Error" not in printed.getvalue():
                    raise
                if attempt == 0 and not self._provider_exhausted and self._let_sessions_go():
                    # Once only: where letting go gives nothing back (under Wine the devices stay
                    # until the process ends), every later failure would drop every session again.
                    self._provider_exhausted = True
                    continue
                raise RuntimeError(f"{self.provider} failed to start: {one_line(printed.getvalue())} "
                                   f"(then: {one_line(error)})") from None

    def _let_sessions_go(self) -> bool:
        """Drop every session held (each is made again when next needed) -> whether any was held."""
        held = bool(self._sessions) or any(graph["session"] is not None for graph in self._graphs)
        self._sessions.clear()
        for graph in self._graphs:
            graph["session"] = None
        gc.collect()
        return held

    def _create_graph(self, graph):
        """A session for a shared graph, or None (the caller falls back to single-node sessions)."""
        ort = self.ort
        try:
            model = multi_node_model(graph["nodes"], graph["dtype"])
            session = self._new_session(model, self._options())
        except Exception as error:
            self.sessions_created += 1
            message = one_line(error)
            if KERNEL_NOT_FOUND in message:
                # No kernel for this operator, opset and type: the lookup ignores attributes and
                # constant values, so every node of the graph (one operator, opset and type) fails
                # alike; say it as a single-node session (whose node is <op>_0) would.
                op_type = graph["nodes"][0].op_type
                message = re.sub(rf"node with name '{re.escape(op_type)}_\d+'", f"node with name '{op_type}_0'",
                                 message)
                graph["failure"] = Outcome(classify_error(message), message=message)
            return None
        self.sessions_created += 1
        return None if ortcommon.other_provider(session, self.provider) else session

    def _options(self):
        profiled = self.check_placement and not self._cpu_only
        return ortcommon.session_options(
            self.ort, self._session_config(), self.sequential_no_mem_pattern,
            os.path.join(self._profiles(), f"s{self.sessions_created}") if profiled else None)

    # -- one case, one single-node session per parameter set ------------------------------------

    def run(self, case, x: np.ndarray) -> Outcome:
        return self._stamped(case, directml_outcome(case, self._run_one(case, onnx_operands(case, x))))

    def _run_one(self, case, x) -> Outcome:
        found = self._node(case)
        if isinstance(found, Outcome):
            return Outcome(found.status, message=found.message)
        node, key = found
        if key not in self._sessions:
            self._sessions[key] = self._create(node, case.dtype)
        session, failure, proven = self._sessions[key]
        if failure is not None:
            return failure
        try:
            output = outputs_as_directml(node, session.run(output_names(node), feeds(node, x)))
        except Exception as error:  # onnxruntime raises its own Fail/RuntimeException types
            return Outcome(classify_error(str(error)), message=one_line(error))
        if not proven:
            names = [_node_name(node, 0)]
            outcome = self._proven(self._placement(session, names), names[0], names, output, True)
            # A session that ran elsewhere gives that verdict (and that first output) from now on.
            self._sessions[key] = (session, outcome if outcome.status == CPU_FALLBACK else None, True)
            return outcome
        return Outcome(OK, output=output)

    def _create(self, node, dtype):
        ort = self.ort
        options = self._options()
        model = single_node_model(node, dtype)
        try:
            session = self._new_session(model, options)
        except Exception as error:
            message = one_line(error)
            self.sessions_created += 1
            return None, Outcome(classify_error(message), message=message), True
        self.sessions_created += 1
        elsewhere = ortcommon.other_provider(session, self.provider)
        if elsewhere:
            return None, Outcome(CPU_FALLBACK, message=elsewhere), True
        return session, None, not self.check_placement

    @property
    def _cpu_only(self) -> bool:
        return self.provider == ortcommon.CPU

    def _placement(self, session, names) -> dict:
        if self._cpu_only:
            # The session has no provider but the CPU one: every node runs there, no profile needed.
            return dict.fromkeys(names, self.provider)
        return ortcommon.placement(session)

    def _proven(self, placement, name, names, output, record) -> Outcome:
        """The case's Outcome for node `name` of a session whose nodes are names, by the placement
        its profile gave (record: the placement goes on this case's record)."""
        if not self.check_placement:
            return Outcome(OK, output=output)
        proven, where, why = ortcommon.prove(placement, self.provider, name, names)
        if not proven:
            return Outcome(CPU_FALLBACK, output=output, placement=where, message=why)
        return Outcome(OK, output=output, placement=where if record else {})


def case_node(case):
    """-> (OnnxNode, key: equal for cases one node serves), or the Outcome that says why ONNX
    Runtime cannot run the case (in place, or not expressible as an ONNX node)."""
    if case.in_place:
        return Outcome(NOT_REACHABLE, message="in-place execution (output aliasing the input) "
                                              "cannot be requested through ONNX Runtime")
    if case.input_strides:
        return Outcome(NOT_REACHABLE, message="an input bound with strides of its own is DirectML's binding; "
                                              "ONNX Runtime passes the tensor packed")
    spec = specs.get(case.op)
    if not spec.onnx_broadcasts and any(i.broadcast for i in case.inputs):
        return Outcome(NOT_REACHABLE, message=f"{spec.name}: the ONNX node does not broadcast as DirectML does "
                                              f"({spec.onnx_route})")
    try:
        node = node_for(spec, case)
    except NotReachable as reason:
        return Outcome(NOT_REACHABLE, message=str(reason))
    undefined = spec.onnx_undefined and spec.onnx_undefined(case.make_input(), case.dtype, case.params)
    if undefined:
        return Outcome(NOT_REACHABLE, message=undefined)
    key = (node.op_type, node.opset, case.dtype, node.input_types, repr(sorted(node.attributes.items())),
           repr(node.then), node.outputs, node.directml_types,
           tuple(np.asarray(c).tobytes() + str(np.asarray(c).dtype).encode() for c in node.constant_inputs))
    return node, key


def _node_name(node, index: int) -> str:
    return f"{node.op_type}_{index}"


def multi_node_model(nodes, dtypes) -> bytes:
    """Independent nodes: x<k> -> node k -> y<k>, any shapes; dtypes: each node's data type, or
    one for all. Each node is built as onnx_models.single_node_model builds its only node; the
    model imports opset_imports(nodes) (the worker backend gives it only nodes whose own imports
    are equal, so every node keeps the schema version it has alone)."""
    from onnx import helper, numpy_helper
    from conformance.backends.onnx_models import IR_VERSION, onnx_node, opset_imports, output_infos
    graph_nodes, initializers, inputs, outputs = [], [], [], []
    dtypes = [dtypes] * len(nodes) if isinstance(dtypes, str) else dtypes
    for k, (node, dtype) in enumerate(zip(nodes, dtypes, strict=True)):
        constants = [numpy_helper.from_array(np.asarray(value), f"c{k}_{i}")
                     for i, value in enumerate(node.constant_inputs)]
        initializers += constants
        graph_nodes += onnx_node(node, input_names(node, f"x{k}") + [t.name for t in constants],
                                 output_names(node, f"y{k}"), _node_name(node, k))
        inputs += input_infos(node, dtype, f"x{k}")
        outputs += output_infos(node, dtype, f"y{k}")
    graph = helper.make_graph(graph_nodes, "conformance", inputs, outputs, initializer=initializers)
    model = helper.make_model(graph, opset_imports=opset_imports(nodes), ir_version=IR_VERSION,
                              producer_name="dml-conformance")
    return model.SerializeToString()


def classify_error(message: str) -> str:
    """An ONNX Runtime error message's status: not reachable where the runtime does not know the node's
    opset; unsupported where it says the provider lacks the operator, type or kernel; else error."""
    if any(marker in message for marker in NOT_REACHABLE_MARKERS):
        return NOT_REACHABLE
    return UNSUPPORTED if any(marker in message for marker in UNSUPPORTED_MARKERS) else ERROR


def _ort_distribution() -> str:
    from importlib import metadata
    for name in ("onnxruntime-directml", "onnxruntime-gpu", "onnxruntime"):
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def _directml_device(ort, device_id) -> dict:
    """DirectML.dll's version, the DXGI adapters and the reported feature level, as the dml-wine
    worker reports them (conformance/worker/devinfo.py); device: the adapter device_id names."""
    from conformance.worker import devinfo
    info = devinfo.describe(ort)
    adapters = info.get("adapters")
    found = {"directml": info.get("directml_dll"), "directml_dll_path": info.get("directml_dll_path"),
             "adapters": adapters, "dml_max_feature_level": info.get("dml_max_feature_level")}
    if isinstance(adapters, list) and str(device_id).isdigit() and int(device_id) < len(adapters):
        found["device"] = adapters[int(device_id)]["description"]
    return found


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
