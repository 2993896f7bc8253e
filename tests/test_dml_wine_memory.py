"""dml-wine's worker stays within its memory budget (4 GiB by default) with the real DirectML under
Wine. With vkd3d's virtual descriptor heaps (the default, VKD3D_CONFIG=virtual_heaps) a session
costs tens of MB, so one worker holds many; without them (vkd3d_config=) each session keeps ~1.5 GB
until the worker exits, and the backend starts a fresh worker before the next session would pass
the budget. Peak resident size read from the worker's own VmHWM, not estimated."""
import pytest
from needs import missing

from conformance.backends import dml_wine, procmem
from conformance.backends.base import Outcome
from conformance.backends.ort import case_node
from conformance.caseset.caseload import load_paths

SESSIONS = 6


def _peak(pids) -> int:
    return max((procmem.proc_bytes(f"/proc/{pid}/status", "VmHWM") or 0 for pid in pids), default=0)


def _one_case_per_operator(count):
    families = {}
    for case in load_paths(["cases"], 0):
        if case.dtype == "float32" and case.op not in families and not isinstance(case_node(case), Outcome):
            families[case.op] = case
    return list(families.values())[:count]  # one operator each: one graph, one session each


def _run_each(options, cases):
    """-> (backend figures, the worker's peak after each case) running each case in a round trip of its own."""
    ready, why = dml_wine.dml_wine.available()
    if not ready:
        missing(f"the dml-wine lane is missing: {why}")
    backend = dml_wine.dml_wine("dml-wine", options)
    try:
        assert backend.memory_budget == min(backend.memory_budget, dml_wine.WORKER_MEMORY_MB_WINE << 20)
        peaks = []
        for case in cases:
            outcome = backend.run_many([(case, case.make_input())])[0]
            assert outcome.status == "ok", (case.id, outcome.message)
            peaks.append(_peak(backend.worker_pids()))
        return backend, peaks
    finally:
        backend.close()


def test_virtual_heaps_keep_many_sessions_in_one_worker():
    cases = _one_case_per_operator(SESSIONS)
    backend, peaks = _run_each({}, cases)
    assert backend.sessions_created >= SESSIONS
    assert backend.worker_starts == 1 and backend.recycles == 0
    assert 0 < max(peaks) <= backend.memory_budget
    growth = (peaks[-1] - peaks[0]) / (len(peaks) - 1)
    assert growth < 200 << 20, f"{growth / 2**20:.0f} MiB a session"  # without virtual heaps: ~1,480


@pytest.mark.parametrize("options", [{"vkd3d_config": ""}])
def test_without_virtual_heaps_the_budget_replaces_the_worker(options):
    cases = _one_case_per_operator(4)
    backend, peaks = _run_each(options, cases)
    assert backend.sessions_created >= len(cases)
    assert backend.recycles >= 1  # four sessions of ~1.5 GB do not fit one worker's 4 GiB
    assert 0 < max(peaks) <= backend.memory_budget, f"worker peak {max(peaks) / 2**30:.2f} GiB"
