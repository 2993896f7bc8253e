"""The worker backend's graphs across operators and data types (worker_graphs.Planner, mixed
graphs): one graph per opset import, every node keeping the schema version it has alone; a node
that fails, at creation or in a run, gets its own verdict and its neighbours theirs; the records are
those of one graph per operator and type, and of one single-node session per parameter set."""
import re

import onnx
import pytest
from onnx import defs

from conformance.backends import create
from conformance.backends.ort import KERNEL_NOT_FOUND, multi_node_model, single_node_model
from conformance.backends.worker_graphs import Planner, opset_family
from conformance.caseset.caseload import load_paths
from conformance.caseset.selection import select
from test_speed_runs import assert_same_records, run_records

ALL_CASES = load_paths()


def planned(cases, mixed=True, max_nodes=64) -> Planner:
    planner = Planner(max_nodes, mixed)
    for case in cases:
        made = planner.plan(case)
        if isinstance(made, tuple):
            planner.slot(*made)
    return planner


def _versions(model: bytes) -> dict:
    """node name -> the since-version of its schema at the model's opset import."""
    proto = onnx.load_from_string(model)
    imports = {entry.domain: entry.version for entry in proto.opset_import}
    return {node.name: defs.get_schema(node.op_type, imports[node.domain], node.domain).since_version
            for node in proto.graph.node if defs.has(node.op_type, node.domain)}


def test_the_default_cases_share_graphs_across_operators_and_types_of_one_opset():
    mixed, family = planned(ALL_CASES), planned(ALL_CASES, mixed=False)
    assert set(mixed.slots) == set(family.slots)  # the same nodes, planned otherwise
    # A node kept alone (a placeholder it would refuse: QuantizeLinear, Tile) has a graph of its own either way
    shared = [[g for g in plan.graphs.values() if not any(node.alone for node in g.nodes)] for plan in (mixed, family)]
    assert len(shared[0]) * 4 <= len(shared[1]), (len(shared[0]), len(shared[1]))
    assert len(mixed.graphs) - len(shared[0]) == len(family.graphs) - len(shared[1])
    widest = max(mixed.graphs.values(), key=lambda graph: len({node.op_type for node in graph.nodes}))
    assert len({node.op_type for node in widest.nodes}) >= 5 and len(set(widest.dtypes)) >= 3
    for graph in mixed.graphs.values():
        assert 1 <= len(graph.nodes) <= 64
        assert len({opset_family(node) for node in graph.nodes}) == 1, graph.key
        if any(node.alone for node in graph.nodes):
            assert len(graph.nodes) == 1, graph.key  # DequantizeLinear, QuantizeLinear: alone as before


def test_every_node_keeps_the_schema_version_it_has_alone():
    graphs = planned(ALL_CASES).graphs.values()
    for graph in sorted(graphs, key=lambda g: -len(set(g.dtypes)))[:6]:
        together = _versions(multi_node_model(graph.nodes, graph.dtypes))
        for index, (node, dtype) in enumerate(zip(graph.nodes, graph.dtypes)):
            alone = _versions(single_node_model(node, dtype))
            assert together[graph.node_name(index)] == alone[f"{node.op_type}_0"], (graph.key, index)


def test_a_failed_graph_splits_by_the_node_its_error_names():
    planner = planned(ALL_CASES)
    graph = max(planner.graphs.values(), key=lambda g: len(g.nodes))
    keys = list(graph.keys)
    named = 5
    planner.split(graph, f"Non-zero status code returned while running X node. Name:'{graph.node_name(named)}'")
    alone, rest = (planner.graphs[planner.slots[keys[i]][0]] for i in (named, 0))
    assert alone.keys == [keys[named]] and rest.keys == keys[:named] + keys[named + 1:]

    planner = planned(ALL_CASES)
    graph = max(planner.graphs.values(), key=lambda g: len(g.nodes))
    keys = list(graph.keys)
    planner.split(graph, "the provider refused the graph")  # no node named: halves
    halves = {planner.slots[key][0] for key in keys}
    assert len(halves) == 2 and sorted(len(planner.graphs[g].nodes) for g in halves) == [
        len(keys) // 2, len(keys) - len(keys) // 2]


def test_no_kernel_sends_every_node_of_that_operator_and_type_alone():
    planner = planned(ALL_CASES)
    graph = next(g for g in planner.graphs.values()
                 if any(sum(k[:4] == key[:4] for k in g.keys) >= 2 for key in g.keys) and len(g.nodes) > 4)
    named = next(i for i, key in enumerate(graph.keys) if sum(k[:4] == key[:4] for k in graph.keys) >= 2)
    alike = [key for key in graph.keys if key[:4] == graph.keys[named][:4]]
    others = [key for key in graph.keys if key[:4] != graph.keys[named][:4]]
    planner.split(graph, f"{KERNEL_NOT_FOUND} {graph.nodes[named].op_type}(14) node with name "
                         f"'{graph.node_name(named)}'")
    for key in alike:
        assert planner.graphs[planner.slots[key][0]].keys == [key]
    assert {planner.slots[key][0] for key in others} == {planner.slots[others[0]][0]}


# ---- ONNX Runtime's CPU provider through the worker: a node with no kernel among others -------------
# INT16 MIN and MAX have no CPU kernel (NOT_IMPLEMENTED); their neighbours in the opset-13 graph do.
CPU_SELECTION = ("rank1 and not in-place and not broadcast and (ELEMENT_WISE_MIN/int16 or ELEMENT_WISE_MAX/int16 "
                 "or ELEMENT_WISE_MIN/float32 or ACTIVATION_SIGMOID/float16 or ELEMENT_WISE_ABS/int8 or "
                 "ELEMENT_WISE_FLOOR/float32)")


def test_cpu_worker_records_are_the_same_with_and_without_mixed_graphs():
    cases = select(ALL_CASES, CPU_SELECTION)
    assert len({case.op for case in cases}) >= 4
    mixed = run_records(create("cpu-worker", {"transport": "inprocess"}), cases)
    by_id = {record["id"]: record for record in mixed.records}
    assert {by_id[c.id]["status"] for c in cases if c.dtype == "int16"} == {"unsupported-required"}
    neighbours = [by_id[c.id]["status"] for c in cases if c.dtype != "int16"]
    assert set(neighbours) <= {"pass", "fail", "not-reachable"} and neighbours.count("pass") >= 10  # fail: NaN rule
    for options in ({"mixed_graphs": "0"}, {"multi_node": "0"}):
        other = run_records(create("cpu-worker", {"transport": "inprocess", **options}), cases)
        assert_same_records(mixed.records, other.records)
        assert mixed.sessions_created < other.sessions_created


# ---- the real DirectML under Wine: nodes that fail in a run among nodes that pass ------------------
# On lavapipe INT64 MULTIPLY and UINT64 DIVIDE fail in every run, float32 ADD and ADD1 of 120 packed
# elements fail in theirs (docs/several-inputs-lavapipe.md); RELU, IDENTITY and SUBTRACT pass. All
# but the fused ADD1 import opset 14: one mixed graph.
WINE_SELECTION = (
    "(rank4[2x3x4x5] and not in-place and not broadcast and not strides and "
    "(ELEMENT_WISE_ADD1/float32/rank4[2x3x4x5]/defaults or "
    "ELEMENT_WISE_ADD1/float16/rank4[2x3x4x5]/FusedActivation=LEAKY_RELU[Alpha=0.01] or ELEMENT_WISE_ADD/float32)) or "
    "(rank1 and not in-place and not broadcast and (ELEMENT_WISE_MULTIPLY/int64 or ELEMENT_WISE_DIVIDE/uint64 or "
    "ACTIVATION_RELU/float16 or ELEMENT_WISE_IDENTITY/float64 or ELEMENT_WISE_SUBTRACT/int8))")


@pytest.fixture(scope="module")
def wine_cases():
    from test_dml_wine import lane_or_skip
    lane_or_skip()
    cases = select(ALL_CASES, WINE_SELECTION)
    families = {case.op: opset_family(Planner.plan(case)[1]) for case in cases if isinstance(Planner.plan(case), tuple)}
    assert families["ELEMENT_WISE_MULTIPLY"] == families["ELEMENT_WISE_SUBTRACT"] == families["ACTIVATION_RELU"]
    return cases


def test_dml_wine_a_failing_node_does_not_fail_its_neighbours(wine_cases):
    backend = create("dml-wine", {})
    records = run_records(backend, wine_cases).records
    status = {record["id"]: record["status"] for record in records}
    failing = [c.id for c in wine_cases if c.op in ("ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_DIVIDE")
               or (c.dtype == "float32" and c.op in ("ELEMENT_WISE_ADD", "ELEMENT_WISE_ADD1"))]
    passing = [c.id for c in wine_cases if c.op in ("ACTIVATION_RELU", "ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_SUBTRACT")]
    assert failing and len(passing) >= 8
    assert {status[i] for i in failing} == {"error"}, {i: status[i] for i in failing}
    assert {status[i] for i in passing} == {"pass"}, {i: status[i] for i in passing}
    assert backend.worker_starts == 1 and backend.recycles == 0


# What ONNX Runtime's native error text says of its own process: code addresses, the thread, and
# how many exceptions it has raised so far; not of the case.
PROCESS_DETAILS = re.compile(r"![0-9A-F]{8,16}|caller: [0-9A-F]{8,16}|Exception\(\d+\)|tid\([0-9a-f]+\)")


def _without_process_details(records):
    return [{**record, "message": PROCESS_DETAILS.sub("#", record["message"])} for record in records]


def test_dml_wine_records_are_the_same_with_and_without_mixed_graphs(wine_cases):
    mixed = run_records(create("dml-wine", {}), wine_cases)
    single = run_records(create("dml-wine", {"multi_node": "0"}), wine_cases)
    # (Sessions are not fewer here: five of the seven nodes fail, each split off with a session of its own.)
    assert_same_records(_without_process_details(mixed.records), _without_process_details(single.records))
