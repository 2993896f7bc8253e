"""A run spread over Dask workers (conformance run --dask tls://HOST:PORT | local:N).

The selection is cut into units: the cases of each operator and data type (shards.groups: one shared
graph, one session on a worker) and, for a streamed sweep, spans of TASK_CHUNKS stream chunks. Each
unit is one Dask task, run on a worker with that worker's own backend (dask_tasks) and judged there;
it returns its records (a span: its partial Tally, joined into the case's one record here). The
client writes the records to the one results file in the selection's order: a finished unit's records
wait only for earlier units. A worker lost mid-run costs its tasks, which the scheduler reruns on
another worker; the client takes exactly one result per task, so nothing is judged twice or lost. A
task whose workers died ALLOWED_FAILURES + 1 times ends as the error of its cases, in one line.
"""
import logging
import time
import uuid
from dataclasses import dataclass, replace

from conformance import statuses
from conformance.backends import BackendUnavailable
from conformance.backends.base import Outcome, one_line
from conformance.caseset import inputs as generators
from conformance.caseset import shards
from conformance.errors import BadInput
from conformance.run import dask_security, dask_tasks, runner
from conformance.run.dask_tasks import PROOF, Job

TASK_CHUNKS = 4  # stream chunks (runner.STREAM_CHUNK) a task of a sweep runs (2**32 elements: 256 tasks), or fewer
# where the sweep would otherwise give each worker fewer than TASKS_A_WORKER tasks
ALLOWED_FAILURES = 2  # the scheduler's distributed.scheduler.allowed-failures (conformance dask-scheduler, local:N)
# Dask's settings for the scheduler and workers the harness starts: ALLOWED_FAILURES, and their HTTP
# servers (no TLS, no authentication: Dask's dashboard, metrics and JSON state) with nothing to serve.
CONFIG = {"distributed.scheduler.allowed-failures": ALLOWED_FAILURES, "distributed.scheduler.http.routes": [],
          "distributed.worker.http.routes": []}
HTTP_ADDRESS = "127.0.0.1:0"
TASKS_A_WORKER = 2
CONNECT_SECONDS = 5
WORKERS_SECONDS = 60  # how long a run waits for a first worker to join the scheduler
START_SECONDS = 600  # how long the workers' backends may take to start (dml-wine: ~20 s a worker)


@dataclass
class Unit:
    positions: list  # the cases it runs: positions in the selection
    span: tuple | None = None  # a streamed case's elements (start, stop)


def plan(cases, workers: int = 1) -> list:
    """The units of a selection, in the order of their first case (a sweep's spans in order)."""
    plain = [p for p, case in enumerate(cases) if not generators.streamed(case.generator)]
    units = [Unit([plain[i] for i in group]) for group in shards.groups([cases[p] for p in plain])]
    for position, case in enumerate(cases):
        if generators.streamed(case.generator):
            chunks = -(-case.elements // runner.STREAM_CHUNK)
            span = runner.STREAM_CHUNK * max(1, min(TASK_CHUNKS, chunks // (TASKS_A_WORKER * max(1, workers))))
            units += [Unit([position], (start, min(start + span, case.elements)))
                      for start in range(0, case.elements, span)]
    return sorted(units, key=lambda unit: (unit.positions[0], unit.span or ()))


def connect(where: str, certs, job: Job, say=print, workers: int = 1) -> "Engine":
    """The cluster of --dask WHERE, its workers' backends started; BadInput or BackendUnavailable in
    one line where it cannot be had. workers: how many must have joined a scheduler before the run
    starts (local:N waits for its N)."""
    import dask
    from distributed import Client, LocalCluster, Security
    local = dask_security.LOCAL.fullmatch(str(where).strip())
    if local and int(local.group(1)) < 1:
        raise BadInput(f"--dask {where}: expected local:N with N >= 1 worker processes")
    address = None if local else dask_security.scheduler_address(where)
    if address and not certs:
        raise BadInput(f"--dask {where}: give --dask-certs DIR, the certificates the scheduler and workers hold "
                       "(conformance dask-certs DIR writes them)")
    security = dask_security.security(certs) if certs else Security.temporary()
    cluster = client = None
    try:
        if local:
            with dask.config.set(CONFIG):
                cluster = LocalCluster(n_workers=int(local.group(1)), threads_per_worker=1, processes=True,
                                       host="127.0.0.1", protocol="tls://", security=security,
                                       dashboard_address=HTTP_ADDRESS, worker_dashboard_address=HTTP_ADDRESS,
                                       silence_logs=logging.CRITICAL)  # failures come back as records or one line
            client = Client(cluster, security=security)
        else:
            try:
                client = Client(address, security=security, timeout=CONNECT_SECONDS)
            except (OSError, TimeoutError) as error:
                raise BackendUnavailable(f"cannot reach the Dask scheduler at {address} within {CONNECT_SECONDS} s: "
                                         f"{one_line(error)}") from None
        client.register_plugin(dask_tasks.ClosesBackends())
        wanted = int(local.group(1)) if local else workers
        try:
            client.wait_for_workers(wanted, timeout=WORKERS_SECONDS)
        except TimeoutError:
            joined = len(client.scheduler_info()["workers"])
            raise BackendUnavailable(f"{joined} of the {wanted} Dask worker(s) wanted joined the scheduler at "
                                     f"{address or where} within {WORKERS_SECONDS} s (start one with conformance "
                                     "dask-worker ADDRESS --dask-certs DIR)") from None
        return Engine(client, cluster, job, where, _start(client, job))
    except BaseException:
        _close(client, cluster)
        raise


def _start(client, job) -> dict:
    """address -> {"metadata", "proof"} of each worker there now, its backend started."""
    from distributed import wait
    addresses = sorted(client.scheduler_info()["workers"])
    futures = {address: client.submit(dask_tasks.start, job, workers=[address], allow_other_workers=False,
                                      pure=False, key=f"conformance-start-{uuid.uuid4().hex}")
               for address in addresses}
    wait(list(futures.values()), timeout=START_SECONDS)
    started = {}
    for address, future in futures.items():
        try:
            started[address] = future.result()
        except Exception as error:
            raise BackendUnavailable(f"Dask worker {address}: backend {job.backend} cannot start: "
                                     f"{type(error).__name__}: {one_line(error)}") from None
    return started


def _close(client, cluster):
    for thing in (client, cluster):
        if thing is not None:
            try:
                thing.close()
            except Exception:  # a cluster already gone: nothing left to stop
                pass


class Engine:
    """The cluster as the run command sees a backend: name, metadata(), sessions_created, close(),
    and run() in place of runner.run."""

    def __init__(self, client, cluster, job: Job, where: str, started: dict):
        self.client, self.cluster, self.job, self.where = client, cluster, job, where
        self.started = started
        self.name = started[min(started)]["metadata"].get("backend", job.backend)  # auto: the first worker's
        self.sessions_created = 0

    def metadata(self) -> dict:
        """The first worker's backend's, with the scheduler and every worker's proof."""
        first = self.started[min(self.started)]["metadata"]
        return {**first, "dask": {"scheduler": self.where,
                                  "workers": [self.started[a]["proof"] for a in sorted(self.started)]}}

    def close(self):
        _close(self.client, self.cluster)

    def run(self, cases, feature_level: str, writer, progress=None, model: str = runner.DEFAULT_MODEL):
        """runner.run's RunSummary, its records written in the selection's order as they come."""
        from distributed import as_completed
        job = replace(self.job, feature_level=feature_level, model=model)
        summary, started = runner.RunSummary(), time.perf_counter()
        units = plan(cases, len(self.client.scheduler_info()["workers"]))
        tag = uuid.uuid4().hex[:12]
        futures = {}
        for number, unit in enumerate(units):
            if unit.span:
                future = self.client.submit(dask_tasks.run_span, job, cases[unit.positions[0]], *unit.span,
                                            key=f"conformance-{tag}-{number}-elements-{unit.span[0]}", pure=False)
            else:
                future = self.client.submit(dask_tasks.run_group, job, [cases[p] for p in unit.positions],
                                            key=f"conformance-{tag}-{number}", pure=False)
            futures[future.key] = unit, future
        order = _Order(cases, units, job, writer, summary, progress)
        try:
            for future in as_completed([future for _, future in futures.values()]):
                unit = futures[future.key][0]
                order.take(unit, _result(future, unit, cases, job))
        except KeyboardInterrupt:
            summary.interrupted = True
            self.client.cancel([future for _, future in futures.values()])
            order.flush_all()
        summary.seconds = time.perf_counter() - started
        self.sessions_created = summary.sessions_created
        return summary


def _result(future, unit, cases, job) -> dict:
    """A task's result, or its failure (an exception on the worker, its workers dying) as the error
    of its cases."""
    try:
        return future.result()
    except Exception as error:
        message = f"the Dask task failed: {type(error).__name__}: {one_line(error)}"
    if unit.span:
        start, stop = unit.span
        failed = Outcome(statuses.ERROR, message=f"at elements {start}..{stop - 1}: {message}")
        return {"part": runner.StreamPart(start, stop, None, failed=failed), "proof": None, "sessions": 0}
    records = [runner.judge(cases[p], None, Outcome(statuses.ERROR, message=message), job.feature_level,
                            job.backend, 0.0, model=job.model) for p in unit.positions]
    return {"records": [{**record, PROOF: []} for record in records], "sessions": 0}


class _Order:
    """The records of finished units, written in the selection's order."""

    def __init__(self, cases, units, job, writer, summary, progress):
        self.cases, self.job, self.writer, self.summary, self.progress = cases, job, writer, summary, progress
        self.ready = {}  # position -> record, not yet written
        self.parts, self.proofs, self.left = {}, {}, {}  # a streamed case's parts, workers, spans to come
        self.unit_of = {}
        for unit in units:
            for position in unit.positions:
                self.unit_of.setdefault(position, unit)
            if unit.span:
                self.left[unit.positions[0]] = self.left.get(unit.positions[0], 0) + 1
        self.next = 0
        self._waiting_for(0)

    def take(self, unit, result):
        self.summary.sessions_created += result["sessions"]
        if not unit.span:
            self.ready.update(zip(unit.positions, result["records"]))
        else:
            position = unit.positions[0]
            self.parts.setdefault(position, []).append(result["part"])
            if result["proof"]:
                proof = self.proofs.setdefault(position, {}).setdefault(
                    result["proof"]["address"], {**result["proof"], "elements": 0, "spans": []})
                proof["elements"] += unit.span[1] - unit.span[0]
                proof["spans"] = sorted(proof["spans"] + [list(unit.span)])
            self.left[position] -= 1
            if not self.left[position]:
                self.ready[position] = self._streamed(position)
        before = self.next
        while self.next in self.ready:
            self._write(self.ready.pop(self.next))
            self.next += 1
        if self.next != before:
            self._waiting_for(self.next)

    def _streamed(self, position) -> dict:
        record = runner.streamed_record(self.cases[position], self.parts.pop(position), self.job.feature_level,
                                        self.job.backend, self.job.model)
        proofs = self.proofs.pop(position, {})
        record[PROOF] = [proofs[address] for address in sorted(proofs)]
        return record

    def flush_all(self):
        """Interrupted: every record made, in the selection's order with gaps, and a sweep's spans done
        as its partial record."""
        for position in list(self.parts):
            self.ready[position] = self._streamed(position)
        for position in sorted(self.ready):
            self._write(self.ready.pop(position))

    def _write(self, record):
        self.writer.write(record)
        self.summary.records.append(record)
        if self.progress:
            self.progress(record)

    def _waiting_for(self, position):
        """The in-flight line: the cases of the unit the file waits for, named should the client die."""
        if position < len(self.cases):
            unit = self.unit_of[position]
            self.writer.write({"type": "in-flight", "ids": [self.cases[p].id for p in unit.positions]})
