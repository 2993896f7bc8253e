"""Whole runs with and without the speed-ups give the same records.

"With": shared sessions (one graph per operator and data type), the acceleration
layer (conformance/judge/fast.py; with the compiled comparison forced on, and off),
several verification threads. "Without": one single-node session per parameter
set, runner.expected_for + compare.compare on every case, one thread. Every
field of every record must match except the timing and which case carries the
placement proof (the shared graph proves it for a different first case).
"""
import dataclasses

import faults
import pytest
from needs import missing

from conformance import specs, statuses
from conformance.backends import create
from conformance.backends.ort import OrtBackend
from conformance.caseset.caseload import load_paths
from conformance.caseset.selection import select
from conformance.judge import fast, fast_kernels
from conformance.run import runner
from conformance.run.results import ResultsWriter

IGNORED = {"seconds", "placement"}


def run_records(backend, cases, **options):
    try:
        return runner.run(cases, backend, "5_0", ResultsWriter(None), **options)
    finally:
        backend.close()


def assert_same_records(fast_records, plain_records):
    assert len(fast_records) == len(plain_records)
    for mine, theirs in zip(fast_records, plain_records):
        assert mine["id"] == theirs["id"]
        differing = {key for key in set(mine) | set(theirs) - IGNORED
                     if key not in IGNORED and mine.get(key) != theirs.get(key)}
        assert not differing, (mine["id"], {key: (mine.get(key), theirs.get(key)) for key in differing})


# device -> its plain run (one session per parameter set, no acceleration): the same whatever kernel_mode,
# which only changes the runs with the speed-ups, so each test module's process makes it once
_PLAIN = {}


PER_OPERATOR = 32  # cases of each operator: the run's cost bounded as the catalogue grows


@pytest.fixture(scope="module")
def every_case():
    return load_paths()


@pytest.fixture(scope="module")
def default_cases(every_case):
    """Every operator's cases, at most PER_OPERATOR of each, spread over its case file (every k-th)."""
    by_operator = {}
    for case in every_case:
        by_operator.setdefault(case.op, []).append(case)
    return [c for cases in by_operator.values() for c in cases[::-(-len(cases) // PER_OPERATOR)]]


@pytest.fixture(params=["numpy", "compiled", "no-numba"])
def kernel_mode(request, monkeypatch):
    """numpy: the acceleration layer without its compiled loops (what a run of small cases
    uses); compiled: every float tensor through the compiled loops (fast_kernels_jit);
    no-numba: as if numba were not installed."""
    if request.param == "no-numba":
        monkeypatch.setattr(fast_kernels, "AVAILABLE", False)
        monkeypatch.setattr(fast_kernels, "loaded", lambda: False)
        monkeypatch.setattr(fast_kernels, "load", lambda: pytest.fail("numba is not installed"))
    elif request.param == "compiled":
        if not fast_kernels.AVAILABLE:
            missing("numba is not installed (a dependency: scripts/setup.sh installs it)")
        monkeypatch.setattr(fast, "KERNEL_CASE_MIN", 0)
        fast_kernels.load()
    else:
        monkeypatch.setattr(fast_kernels, "loaded", lambda: False)
        monkeypatch.setattr(fast, "KERNEL_CASE_MIN", 1 << 62)
        monkeypatch.setattr(fast, "KERNEL_RUN_MIN", 1 << 62)
    return request.param


def test_default_cases_on_cpu_same_records_with_and_without_speed_ups(default_cases, kernel_mode):
    if "cpu" not in _PLAIN:  # the same whatever kernel_mode: made once
        _PLAIN["cpu"] = run_records(OrtBackend("cpu", "CPUExecutionProvider", share_graphs=False), default_cases,
                                    jobs=1, accelerate=False)
    plain = _PLAIN["cpu"]
    quick = run_records(OrtBackend("cpu", "CPUExecutionProvider"), default_cases, jobs=2)
    assert_same_records(quick.records, plain.records)
    # One shared graph per operator and data type; a family the provider refuses is split, one
    # graph per parameter set.
    # a node kept alone (its shared graph's placeholder refused: Tile) has a graph per parameter set
    alone = {(r["op"], r["dtype"], str(r["params"])) for r in plain.records if r["status"] != statuses.NOT_REACHABLE
             and specs.get(r["op"]).to_onnx(r["dtype"], r["params"]).alone}
    families = {(r["op"], r["dtype"]) for r in plain.records if r["status"] != statuses.NOT_REACHABLE
                and (r["op"], r["dtype"], str(r["params"])) not in alone}
    refused = {(r["op"], r["dtype"], str(r["params"])) for r in plain.records
               if r["status"] in (statuses.UNSUPPORTED, statuses.UNSUPPORTED_REQUIRED, statuses.ERROR)}
    bound = len(families) + len(refused - alone) + len(alone)
    assert quick.sessions_created <= bound and quick.sessions_created < plain.sessions_created, \
        (quick.sessions_created, len(families), len(refused - alone), len(alone), plain.sessions_created)
    # the statuses are the real ones: the CPU provider fails some special values
    assert {r["status"] for r in quick.records} >= {statuses.PASS, statuses.FAIL, statuses.NOT_REACHABLE}
    for record in quick.records:
        assert set(record["placement"].values()) <= {"CPUExecutionProvider"}


def plain_float_run(default_cases, device):
    if device not in _PLAIN:
        _PLAIN[device] = run_records(create(device), select(default_cases, "float16 or float32"), jobs=1,
                                     accelerate=False)
    return _PLAIN[device]


def test_fault_injection_same_records_with_and_without_speed_ups(default_cases, kernel_mode):
    """The float cases on python:faults:mixed: each case exact, off by tolerance + 1, flushed, with NaN
    swallowed or all zeros (tests/faults.py MIXED), so that one run per kernel mode takes every path
    that five runs of five single-fault devices took."""
    cases = select(default_cases, "float16 or float32")
    plain = plain_float_run(default_cases, "python:faults:mixed")
    quick = run_records(create("python:faults:mixed"), cases, jobs=3)
    assert_same_records(quick.records, plain.records)
    by = {}
    for record in quick.records:
        by.setdefault(faults.mixed_behaviour(record["op"], record["dtype"], record["shape"]), []).append(record)
    assert set(by) == set(faults.MIXED) and all(len(found) > 100 for found in by.values()), \
        {k: len(v) for k, v in by.items()}
    assert {r["status"] for r in by["exact"]} == {statuses.PASS} and max(r["max_ulp"] for r in by["exact"]) == 0
    for behaviour in ("off_by_tolerance_plus_one", "swallow_nan", "all_zeros"):
        assert any(r["status"] == statuses.FAIL for r in by[behaviour]), behaviour
    assert any(r["flushed"] for r in by["flush_denormals"])
    assert any(r["nan_mismatches"] for r in by["swallow_nan"])


def test_a_shared_graph_still_catches_a_silent_cpu_fallback_per_case(every_case):
    """AzureExecutionProvider takes no node: with fallback allowed ONNX Runtime runs the shared
    graph's nodes on the CPU; every case, whichever node it ran on, is a cpu-fallback."""
    chosen = select(every_case, "ACTIVATION_CELU/ and float32 and uniform and not in-place")
    assert len({c.params["Alpha"] for c in chosen}) > 1  # several nodes in one graph
    backend = OrtBackend("azure", "AzureExecutionProvider", disable_cpu_fallback=False)
    records = run_records(backend, chosen).records
    assert {r["status"] for r in records} == {statuses.CPU_FALLBACK}
    assert all(set(r["placement"].values()) == {"CPUExecutionProvider"} for r in records)
    assert backend.sessions_created == 1
    refused = run_records(OrtBackend("azure", "AzureExecutionProvider"), chosen).records
    assert {r["status"] for r in refused} == {statuses.UNSUPPORTED_REQUIRED}


def test_an_empty_tensor_runs_alone_in_a_shared_graph(every_case):
    """Under DirectML an empty input on one node garbles the outputs of the other nodes of the same
    run (docs/dml-wine.md): the in-process backend runs each empty tensor in a run of its own, as
    the dml-wine worker does. Found by comparing the Windows harness with dml-wine (docs/windows.md)."""
    (empty,) = select(every_case, "ELEMENT_WISE_CLIP/float32/rank1[0]")
    rank8 = select(every_case, "ELEMENT_WISE_CLIP/float32/rank8 and specials")[0]
    backend = OrtBackend("cpu", "CPUExecutionProvider")
    fetched = []  # the outputs each real session.run fetched, and the shapes fed to them
    real = backend.ort

    class Watched:  # ONNX Runtime as the backend uses it, each session's runs recorded
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def InferenceSession(*args, **kwargs):  # noqa: N802 (ONNX Runtime's name)
            session = real.InferenceSession(*args, **kwargs)
            real_run = session.run

            def run(names, feeds):
                fetched.append({name: feeds["x" + name[1:]].shape for name in names})
                return real_run(names, feeds)
            session.run = run
            return session
    backend.ort = Watched()
    try:
        backend.prepare([rank8, empty])
        outcomes = backend.run_many([(rank8, rank8.make_input()), (empty, empty.make_input())])
    finally:
        backend.close()
    assert [o.status for o in outcomes] == ["ok", "ok"] and outcomes[1].output.shape == (0,)
    assert len(fetched) == 2 and {(0,)} in [set(run.values()) for run in fetched], fetched
    assert all(len(run) == 1 for run in fetched), fetched


@pytest.mark.parametrize("device", ["python:faults:all_zeros", "python:faults:flush_denormals",
                                    "python:faults:off_by_tolerance"])
def test_every_element_failing_on_large_tensors_same_records(device):
    """Large float32 tensors where every element (all_zeros), every tiny one (flush_denormals) or
    every positive one (off_by_tolerance: 18 ULP, within tolerance) is off the exactly rounded value: the bulk-failure path (compiled
    counts, bins, worst elements and d3d verdicts) gives the plain records."""
    if not fast_kernels.AVAILABLE:
        missing("numba is not installed (a dependency: scripts/setup.sh installs it)")
    from conformance.cli import bench
    cases = []
    for op, params in [("ACTIVATION_CELU", {"Alpha": 1.0}), ("ACTIVATION_SCALED_ELU", {}),
                       ("ELEMENT_WISE_CLIP", {"Min": -1.5, "Max": 2.0})]:
        case = bench._case(op, "float32", (3, fast.CHUNK + 7), params)
        for name, generator in [("tiny", {"kind": "uniform", "low": -1e-38, "high": 1e-38}),
                                ("uniform", {"kind": "uniform", "low": -100.0, "high": 100.0})]:
            cases.append(dataclasses.replace(case, id=f"{op}/large/{name}", generator=generator))
    plain = run_records(create(device), cases, jobs=1, accelerate=False)
    quick = run_records(create(device), cases, jobs=2)
    assert_same_records(quick.records, plain.records)
    assert any(r["max_ulp"] > 0 or r["flushed"] for r in quick.records)
