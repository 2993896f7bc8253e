"""The worker backend's graph planner. Cases share sessions: every node of one ONNX opset import
goes into one graph (node i: x{i} -> y{i}, every shape dynamic), whatever its operator and data
type, so one session serves the cases of many operators. A node's graph imports exactly the opsets
its single-node model would (onnx_models.opset_imports), so its schema version, and with it the
kernel ONNX Runtime picks, is the one it has alone. With mixed=False (the harness option
mixed_graphs=0) a graph holds one operator, opset and data type, as before.

A graph that cannot be created is split: the node its error names goes alone and the rest stays
together, or, where the error names none, the graph is halved; so each case gets its own verdict
from a graph its node's failure does not share, and the nodes that can be created still share."""
from dataclasses import dataclass, field

from conformance.backends.base import Outcome
from conformance.backends.onnx_models import opset_imports
from conformance.backends.ort import KERNEL_NOT_FOUND, case_node


@dataclass
class Graph:
    key: str
    nodes: list = field(default_factory=list)  # OnnxNode, node i reads x{i} and writes y{i}
    dtypes: list = field(default_factory=list)  # each node's data type
    keys: list = field(default_factory=list)  # the node keys, in the same order
    created: bool = False  # in the current worker
    failure: Outcome | None = None
    placement: dict | None = None
    deaths: int = 0  # worker deaths while this graph was in flight
    fresh_tried: bool = False  # its provider failed to start in a worker holding sessions: tried in a new one

    def node_name(self, index) -> str:
        return f"{self.nodes[index].op_type}_{index}"

    def named_node(self, message: str) -> int | None:
        """The index of the node an error message names ('Name:'Cos_3'', "node with name 'Cos_3'"),
        or None where it names none of this graph's."""
        for index in range(len(self.nodes)):
            if f"'{self.node_name(index)}'" in message:
                return index
        return None


def opset_family(node) -> tuple:
    """The opset imports of node's single-node model: nodes with equal families share a graph."""
    return tuple((entry.domain, entry.version) for entry in opset_imports([node]))


class Planner:
    """Which graph, and which node of it, runs each case; graphs have at most max_nodes nodes."""

    def __init__(self, max_nodes: int, mixed: bool = True):
        self.max_nodes = max_nodes
        self.mixed = mixed
        self.slots = {}  # node key -> (graph key, node index)
        self.graphs = {}
        self._open = {}  # family -> graph key still accepting nodes (not yet created)

    @staticmethod
    def plan(case):
        """-> (node key, node, dtype), or an Outcome for cases no graph can express (the ort
        backend's rule: in place and ScaleBias are not reachable)."""
        made = case_node(case)
        if isinstance(made, Outcome):
            return made
        node, key = made
        return key, node, case.dtype

    def family(self, key, node) -> tuple:
        if node.alone:
            return ("alone",) + key
        return ("opset",) + opset_family(node) if self.mixed else key[:3]

    def slot(self, key, node, dtype):
        if key in self.slots:
            return self.slots[key]
        family = self.family(key, node)
        graph_key = self._open.get(family)
        graph = self.graphs.get(graph_key)
        limit = 1 if node.alone else self.max_nodes
        if graph is None or graph.created or graph.failure is not None or len(graph.nodes) >= limit:
            graph = self._new_graph(f"{node.op_type}-{node.opset}-{dtype}" if family[0] != "opset"
                                    else "opset" + "-".join(str(version) for _, version in family[1:]))
            self._open[family] = graph.key
        self._add(graph, node, dtype, key)
        return self.slots[key]

    def split(self, graph: Graph, message: str = ""):
        """A graph that failed as a whole: the node message names goes into a graph of its own (with
        ONNX Runtime's "no kernel", each node of its operator, opset and types) and the others into
        another; where it names none, each half into one."""
        named = graph.named_node(message)
        order = list(range(len(graph.nodes)))
        if named is not None:
            # No kernel: the lookup ignores attributes and constants, so every node of the named one's
            # operator, opset and types fails alike: each goes alone at once (its own verdict).
            alike = [i for i in order if graph.keys[i][:4] == graph.keys[named][:4]] \
                if KERNEL_NOT_FOUND in message else [named]
            parts = [[i] for i in alike] + [[i for i in order if i not in alike]]
        else:
            half = (len(order) + 1) // 2
            parts = [order[:half], order[half:]]
        for number, part in enumerate(p for p in parts if p):
            piece = self._new_graph(f"{graph.key}-s{number}")
            for index in part:
                self._add(piece, graph.nodes[index], graph.dtypes[index], graph.keys[index])

    def _new_graph(self, name) -> Graph:
        graph = Graph(f"{name}-g{len(self.graphs)}")
        self.graphs[graph.key] = graph
        return graph

    def _add(self, graph, node, dtype, key):
        graph.nodes.append(node)
        graph.dtypes.append(dtype)
        graph.keys.append(key)
        self.slots[key] = (graph.key, len(graph.nodes) - 1)

    def forget_sessions(self):
        """The worker that held the sessions is gone: every graph must be created anew."""
        for graph in self.graphs.values():
            graph.created = False
