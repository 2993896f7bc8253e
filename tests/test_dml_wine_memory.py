"""dml-wine's worker stays within its memory budget (4 GiB by default) with the real DirectML under
Wine: each session keeps ~1.5 GB until the worker exits, so the backend starts a fresh worker
before the next session would pass the budget. Peak resident size read from the worker's own
VmHWM, not estimated."""
from needs import missing

from conformance.backends import dml_wine, procmem
from conformance.caseset.caseload import load_paths


def _peak(pids) -> int:
    return max((procmem.proc_bytes(f"/proc/{pid}/status", "VmHWM") or 0 for pid in pids), default=0)


def test_default_budget_bounds_the_worker_across_sessions():
    ready, why = dml_wine.dml_wine.available()
    if not ready:
        missing(f"the dml-wine lane is missing: {why}")
    families = {}
    for case in load_paths(["cases"], 0):
        if case.dtype == "float32" and not case.in_place and "ScaleBias" not in case.params:
            families.setdefault(case.op, case)
    cases = list(families.values())[:4]  # four operators: four graphs, four sessions
    backend = dml_wine.dml_wine("dml-wine", {})
    try:
        assert backend.memory_budget == min(backend.memory_budget, dml_wine.WORKER_MEMORY_MB_WINE << 20)
        peak = 0
        for case in cases:
            outcome = backend.run_many([(case, case.make_input())])[0]
            assert outcome.status == "ok", (case.id, outcome.message)
            peak = max(peak, _peak(backend.worker_pids()))
        assert backend.sessions_created >= len(cases)
        assert backend.recycles >= 1  # four sessions do not fit one worker's 4 GiB
        assert 0 < peak <= backend.memory_budget, f"worker peak {peak / 2**30:.2f} GiB"
    finally:
        backend.close()
