"""The worker backend's graph planner. All parameter sets of one operator, opset and data type
become the nodes of one graph (node i: x{i} -> y{i}, every shape dynamic), so one session serves a
whole family of cases; a graph that cannot be created is split into one-node graphs, so each case
gets its own verdict."""
from dataclasses import dataclass, field

from conformance.backends.base import Outcome
from conformance.backends.ort import case_node


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


class Planner:
    """Which graph, and which node of it, runs each case; graphs have at most max_nodes nodes."""

    def __init__(self, max_nodes: int):
        self.max_nodes = max_nodes
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

    def slot(self, key, node, dtype):
        if key in self.slots:
            return self.slots[key]
        family = key if node.alone else key[:3]
        graph_key = self._open.get(family)
        graph = self.graphs.get(graph_key)
        limit = 1 if node.alone else self.max_nodes
        if graph is None or graph.created or graph.failure is not None or len(graph.nodes) >= limit:
            graph_key = f"{node.op_type}-{node.opset}-{dtype}-g{len(self.graphs)}"
            graph = self.graphs[graph_key] = Graph(graph_key, dtype)
            self._open[family] = graph_key
        graph.nodes.append(node)
        graph.keys.append(key)
        self.slots[key] = (graph_key, len(graph.nodes) - 1)
        return self.slots[key]

    def split(self, graph: Graph):
        """A graph that failed as a whole: each node gets a graph of its own."""
        for index, (node, key) in enumerate(zip(graph.nodes, graph.keys)):
            single_key = f"{graph.key}-n{index}"
            self.graphs[single_key] = Graph(single_key, graph.dtype, [node], [key])
            self.slots[key] = (single_key, 0)

    def forget_sessions(self):
        """The worker that held the sessions is gone: every graph must be created anew."""
        for graph in self.graphs.values():
            graph.created = False
