"""What a Dask worker runs for a distributed run (conformance/run/dask_run.py submits it).

Each worker process builds its backend once, on its first task, and keeps it for the next ones (one
session per operator and data type, as one run has); `conformance dask-worker --backend-option`
gives a worker options of its own (dml-direct's vulkan_device under Wine, device_id on Windows: one
worker a GPU), taking precedence over the run's --provider-option. Every record a worker returns carries its device proof (PROOF): the
worker's address and host and what its backend's metadata says of the device and DirectML.dll.
"""
import os
import socket
import sys
import threading
from dataclasses import dataclass

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from conformance import backends
from conformance.run import runner

PROOF = "dask_workers"  # a record's field: the workers that ran it (one; a sweep's: each with its elements)
PROOF_KEYS = ("device", "adapter", "vulkan_device", "directml", "directml_loaded", "provider_options")  # of backend.metadata()


@dataclass(frozen=True)
class Job:
    """What every task of one run shares."""
    backend: str
    options: tuple  # the run's --provider-option, as sorted (key, value) pairs
    feature_level: str
    model: str
    jobs: int  # threads that verify on the worker (0: its usable cores)


_own_options = {}  # this worker's backend options (conformance dask-worker --backend-option)
_started = {}  # (backend name, options) -> (backend, its proof), in this worker process
_lock = threading.Lock()


def set_own_options(options: dict):
    _own_options.clear()
    _own_options.update(options)


def _backend(job: Job) -> tuple:
    options = {**dict(job.options), **_own_options}
    key = (job.backend, tuple(sorted(options.items())))
    with _lock:
        if key not in _started:
            backend = backends.create(job.backend, options, announce=lambda line: print(line, file=sys.stderr))
            _started[key] = backend, _proof(backend)
        return _started[key]


def _proof(backend) -> dict:
    meta = backend.metadata()
    try:
        address = get_worker().address
    except ValueError:  # not in a worker (a direct call)
        address = None
    return {"address": address, "host": socket.gethostname(), "pid": os.getpid(),
            **{key: meta[key] for key in PROOF_KEYS if key in meta}}


def close_backends():
    with _lock:
        started = list(_started.values())
        _started.clear()
    for backend, _ in started:
        try:
            backend.close()
        except Exception as error:  # one backend's failure to stop must not keep the others running
            print(f"stopping backend {backend.name}: {type(error).__name__}: {error}", file=sys.stderr)


class ClosesBackends(WorkerPlugin):
    """Registered by the client: a worker that stops stops its backends (their own worker processes)."""
    name = "conformance-backends"

    def teardown(self, worker):
        close_backends()


def start(job: Job) -> dict:
    """The worker's backend started (a backend that cannot start fails this task): its metadata
    (the results header's) and proof."""
    backend, proof = _backend(job)
    return {"metadata": backend.metadata(), "proof": proof}


def run_group(job: Job, cases) -> dict:
    """Cases of one operator and data type, run and judged as one run runs them."""
    backend, proof = _backend(job)
    before = backend.sessions_created
    summary = runner.run(cases, backend, job.feature_level, _Discard(), jobs=_jobs(job), model=job.model)
    if summary.interrupted:
        raise RuntimeError("interrupted on the worker")
    for record in summary.records:
        record[PROOF] = [proof]
    return {"records": summary.records, "sessions": backend.sessions_created - before}


def run_span(job: Job, case, start: int, stop: int) -> dict:
    """Elements start..stop of a streamed case: its partial Tally (runner.StreamPart)."""
    from conformance.judge import fast
    backend, proof = _backend(job)
    before = backend.sessions_created
    with fast.Verifier(_jobs(job)) as verifier:
        part = runner.stream_part(case, backend, verifier, start, stop)
    if part.interrupted:
        raise RuntimeError("interrupted on the worker")
    return {"part": part, "proof": proof, "sessions": backend.sessions_created - before}


def _jobs(job: Job) -> int:
    from conformance.judge.fast import usable_cpus
    return job.jobs or usable_cpus()


class _Discard:
    """The runner's writer on a worker: the records go back to the client, which writes them."""

    def write(self, record):
        pass
