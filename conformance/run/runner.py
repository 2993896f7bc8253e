"""Run cases on a backend, judge them against the oracle, stream the results."""
import functools
import platform
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from conformance import featurelevels, statuses
from conformance.backends import base as outcome_status
from conformance.backends.base import BATCH, Outcome
from conformance.caseset import inputs as generators
from conformance.caseset import operands
from conformance.caseset.caseload import checkout_path, source_file
from conformance.judge.compare import describe
from conformance.judge.d3d import DEFAULT_MODEL, MODELS
from conformance.judge.entry import compare_case
from conformance.judge.expected import expected_for  # noqa: F401 (runner.expected_for: bench, scripts)

STREAM_CHUNK = 1 << 22  # elements of a streamed case (exhaustive_float32) per backend call


@dataclass
class RunSummary:
    records: list = field(default_factory=list)
    sessions_created: int = 0
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def failed(self) -> bool:
        return any(r["status"] in statuses.FAILING for r in self.records)


def run_metadata(backend, feature_level: str, seed: int, argv=None, model: str = DEFAULT_MODEL,
                 case_files=None) -> dict:
    """The results' header; case_files: what case_files() gives, for the reports' rerun commands."""
    import onnx
    meta = {"type": "header", "tool": "dml-conformance", "feature_level": feature_level, "seed": seed,
            "tolerance_model": model,
            "os": platform.platform(), "python": platform.python_version(), "numpy": np.__version__,
            "onnx": onnx.__version__, "start": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "argv": list(argv if argv is not None else sys.argv)}
    meta.update(backend.metadata())
    if case_files:
        meta["case_files"] = case_files
    return meta


def case_files(selected, loaded) -> dict:
    """{source file: {"path": as a rerun from the checkout names it, "ids": every case it expands to}}
    for the files the selected cases come from (loaded: every case of those files, before -k): a
    report writes each case's rerun command (a -k that tells it apart from its file's other cases)
    from this, and not from the case files as they are when it is rendered."""
    paths = {source: checkout_path(source) for source in {source_file(case.source) for case in loaded}}
    wanted = {source_file(case.source) for case in selected}
    if any(paths[source] is None for source in wanted):  # a rerun naming no file loads every shipped one
        wanted |= {source for source, path in paths.items() if path is None}
    files = {}
    for case in loaded:
        source = source_file(case.source)
        if source in wanted:
            files.setdefault(source, {"path": paths[source], "ids": []})["ids"].append(case.id)
    return files


@functools.lru_cache(maxsize=None)
def _at_least(level: str, minimum: str) -> bool:
    return featurelevels.at_least(level, minimum)


def judge(case, x, outcome, feature_level: str, backend_name: str, seconds: float,
          expected=None, reference=None, zeros=None, verifier=None, comparison=None,
          model: str = DEFAULT_MODEL) -> dict:
    """verifier: a fast.Verifier that gives the same Comparison sooner; comparison: one already
    made (a streamed case, verified chunk by chunk); model: the tolerance model that decides the
    status ("d3d" or "ulp"); the record carries both verdicts."""
    record = {"type": "case", **case.describe(), "backend": backend_name,
              "required": _at_least(feature_level, case.required_level), "tolerance_model": model,
              "elements": case.elements, "mismatches": 0, "nan_mismatches": 0, "flushed": 0,
              "max_ulp": None, "max_fractional_ulp": None, "worst": [], "d3d": None, "verdicts": None,
              "message": outcome.message, "placement": outcome.placement}
    if outcome.execution_flags is not None:  # the flags DirectML compiled the operator with
        record["execution_flags"] = outcome.execution_flags
    status = outcome.status
    if status == outcome_status.UNSUPPORTED:
        record["status"] = statuses.UNSUPPORTED_REQUIRED if record["required"] else statuses.UNSUPPORTED
    elif status == outcome_status.OK or status == outcome_status.CPU_FALLBACK:
        if comparison is not None:
            result = comparison
        elif verifier is not None and expected is None:
            result = verifier.check(case, x, outcome.output)
        else:
            result = compare_case(case, x, outcome.output, expected, reference, zeros)
        verdicts = {name: statuses.PASS if result.passed_under(name) else statuses.FAIL for name in MODELS}
        record.update(mismatches=result.mismatches, nan_mismatches=result.nan_mismatches,
                      flushed=result.flushed, max_ulp=result.max_ulp,
                      max_fractional_ulp=result.max_fractional_ulp, worst=result.worst,
                      ulp_histogram=result.histogram, d3d=result.d3d, verdicts=verdicts)
        if result.outputs is not None:  # several outputs: each one's own figures
            record["outputs"] = result.outputs
        if status == outcome_status.CPU_FALLBACK:
            record["status"] = statuses.CPU_FALLBACK
        else:
            record["status"] = verdicts[model]
            if record["status"] != statuses.PASS:
                record["message"] = describe(result, case.tolerance, model)
    else:
        record["status"] = status  # not-reachable, error, crash, timeout share their names
    record["seconds"] = round(seconds, 6)
    return record


def run(cases, backend, feature_level: str, writer, progress=None, save_failures=None, jobs: int = 1,
        accelerate: bool = True, model: str = DEFAULT_MODEL) -> RunSummary:
    """jobs: threads that verify (large tensors are shared out in chunks); accelerate: use
    conformance/judge/fast.py (False: the plain oracle + compare path; the records are the same);
    model: the tolerance model that decides each status (judge/d3d.py MODELS)."""
    from conformance.judge import fast
    summary = RunSummary()
    started = time.perf_counter()
    verifier = fast.Verifier(jobs, accelerate=accelerate)
    prepare = getattr(backend, "prepare", None)
    if prepare is not None:
        prepare(cases)  # e.g. plan one shared graph per operator and data type
    try:
        for batch in _batches(cases):
            if generators.streamed(batch[0].generator):
                writer.write({"type": "in-flight", "ids": [batch[0].id]})
                record = _streamed_record(batch[0], backend, feature_level, verifier, save_failures, model)
                _emit(record, writer, summary, progress)
                continue
            inputs = [case.make_input() for case in batch]
            # Should the process die in the backend, the results file names the cases it was running.
            writer.write({"type": "in-flight", "ids": [case.id for case in batch]})
            began = time.perf_counter()
            outcomes = backend.run_many(list(zip(batch, inputs)))
            each = (time.perf_counter() - began) / max(len(batch), 1)
            verified = _verify_batch(verifier, batch, inputs, outcomes) if accelerate else {}
            for case, x, outcome in zip(batch, inputs, outcomes):
                record = _record(case, x, outcome, feature_level, backend.name, each, save_failures, model,
                                 verifier=verifier if accelerate else None, comparison=verified.get(id(case)))
                _emit(record, writer, summary, progress)
    except KeyboardInterrupt as stop:
        summary.interrupted = True
        if isinstance(stop, PartlyStreamed):  # the chunks verified before the Ctrl-C, kept
            _emit(stop.record, writer, summary, progress)
    finally:
        verifier.close()
    summary.sessions_created = backend.sessions_created
    summary.seconds = time.perf_counter() - started
    return summary


def run_case(case, backend, feature_level: str, save_failures=None, model: str = DEFAULT_MODEL) -> dict:
    """One case alone, as run() runs each (the pytest plugin's item): its record."""
    if generators.streamed(case.generator):
        from conformance.judge import fast
        with fast.Verifier() as verifier:
            return _streamed_record(case, backend, feature_level, verifier, save_failures, model)
    x = case.make_input()
    began = time.perf_counter()
    outcome = backend.run_many([(case, x)])[0]
    return _record(case, x, outcome, feature_level, backend.name, time.perf_counter() - began, save_failures,
                   model)


def _record(case, x, outcome, feature_level, backend_name, seconds, save_failures, model, **judging) -> dict:
    """judge()'s record, the inputs and outputs of a failure saved where asked. A harness bug while
    judging is the case's error: it must neither lose the run nor pass for a device's failure."""
    try:
        record = judge(case, x, outcome, feature_level, backend_name, seconds, model=model, **judging)
    except Exception as error:
        record = judge(case, x, Outcome(statuses.ERROR, message=f"harness error while judging: "
                                        f"{type(error).__name__}: {error}"),
                       feature_level, backend_name, seconds, model=model)
    if save_failures and record["status"] in statuses.FAILING:
        from conformance.run.repro import save_case
        record["repro"] = save_case(save_failures, case, x, outcome)
    return record


def _streamed_record(case, backend, feature_level, verifier, save_failures, model) -> dict:
    try:
        return _run_streamed(case, backend, feature_level, verifier, save_failures, model)
    except Exception as error:  # a harness bug must not lose the run
        return judge(case, None, Outcome(statuses.ERROR, message=f"harness error while streaming: "
                                         f"{type(error).__name__}: {error}"),
                     feature_level, backend.name, 0.0, model=model)


def _verify_batch(verifier, batch, inputs, outcomes) -> dict:
    """id(case) -> Comparison for the batch's cases that have an output, verified together
    (fast.Verifier.check_many); {} if that fails: judge() then verifies each case alone."""
    items = [(case, x, outcome.output) for case, x, outcome in zip(batch, inputs, outcomes)
             if outcome.status in (outcome_status.OK, outcome_status.CPU_FALLBACK)]
    try:
        comparisons = verifier.check_many(items)
    except Exception:  # a harness bug: the per-case path reports it on the case it concerns
        return {}
    return {id(case): comparison for (case, _, _), comparison in zip(items, comparisons)}


def _emit(record, writer, summary, progress):
    writer.write(record)
    summary.records.append(record)
    if progress:
        progress(record)


def _batches(cases):
    """Up to BATCH cases at a time, in order; a streamed case goes alone."""
    batch = []
    for case in cases:
        if generators.streamed(case.generator):
            if batch:
                yield batch
                batch = []
            yield [case]
            continue
        batch.append(case)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


class PartlyStreamed(KeyboardInterrupt):
    """A Ctrl-C (or SIGTERM) in a streamed case, carrying the record of the chunks verified before it:
    judged on those elements alone, with "partial" saying how many of the case's elements they are."""

    def __init__(self, record: dict):
        super().__init__()
        self.record = record


@dataclass
class StreamPart:
    """What chunks start..stop of a streamed case gave (stream_part): their Tally, the backend's time,
    the first outcome and the first CPU fallback (status, message, placement: no output), the first
    chunk that did not run (its message naming its elements; later chunks were not run), and whether
    a Ctrl-C cut it short. Picklable: a distributed run's worker returns one per task."""
    start: int
    stop: int
    tally: object
    seconds: float = 0.0
    first: Outcome | None = None
    fallback: Outcome | None = None
    failed: Outcome | None = None
    interrupted: bool = False


def _bare(outcome) -> Outcome:
    return Outcome(outcome.status, message=outcome.message, placement=outcome.placement,
                   execution_flags=outcome.execution_flags)


def stream_part(case, backend, verifier, start: int = 0, stop: int | None = None) -> StreamPart:
    """Elements start..stop of a streamed case (exhaustive_float32; exhaustive_float16_pairs, whose chunk
    x is the tuple (A, B)): chunks of STREAM_CHUNK elements (or the backend's stream_chunk) through the
    backend and the comparison, the next chunk on the device while the last is verified, added up in
    a Tally (mismatches, max ULP, histogram, worst elements by flat index). A backend with
    run_chunk(case, x, patterns) is told each chunk's bit patterns or pair indices (a worker may make
    them itself). A Ctrl-C keeps the chunks verified (interrupted) or, with none, is raised. Where the
    time went goes to stderr."""
    from conformance.judge.fast import Tally
    from conformance.run.streamtime import Pipeline
    stop = case.elements if stop is None else min(stop, case.elements)
    part = StreamPart(start, stop, Tally(case.shape, case.dtype))
    chunk = getattr(backend, "stream_chunk", STREAM_CHUNK)
    run_chunk = getattr(backend, "run_chunk", None)
    pipeline = Pipeline(verifier, backend)
    pieces = generators.chunks(case.generator, case.dtype, case.shape, chunk, start=start, stop=stop)
    try:
        for offset, x in pipeline.timed_chunks(pieces):
            began, size = time.perf_counter(), operands.size(x)
            if run_chunk is not None:
                outcome = run_chunk(case, x, generators.chunk_patterns(case.generator, offset, size))
            else:
                outcome = backend.run_many([(case, x)])[0]
            part.seconds += time.perf_counter() - began
            pipeline.ran(time.perf_counter() - began)
            part.first = part.first or _bare(outcome)
            if outcome.status == outcome_status.CPU_FALLBACK:
                part.fallback = part.fallback or _bare(outcome)
            elif outcome.status != outcome_status.OK:
                part.failed = Outcome(outcome.status, message=f"at elements {offset}..{offset + size - 1}: "
                                      f"{outcome.message}", placement=outcome.placement)
                return part
            pipeline.submit(part.tally, case, x, outcome.output, offset)
        pipeline.wait()
    except KeyboardInterrupt:
        pipeline.close()  # the chunks submitted are verified and added: a second Ctrl-C drops them
        if not part.tally.elements:
            raise
        part.interrupted = True
    finally:
        pipeline.close()
        print(pipeline.summary(case.id), file=sys.stderr, flush=True)
    return part


def streamed_record(case, parts, feature_level: str, backend_name: str, model: str = DEFAULT_MODEL) -> dict:
    """The record of a streamed case from the parts its chunks were run in (any order; one run's single
    part, or a distributed run's): judged as one tensor. The first chunk that did not run decides the
    status, as it ends a run of the chunks in order; parts cut short make a partial record, judged on
    the elements verified, "partial" saying how many of the case's elements they are."""
    parts = sorted(parts, key=lambda part: part.start)
    failed = next((part for part in parts if part.failed), None)
    if failed is not None:
        seconds = sum(part.seconds for part in parts if part.start <= failed.start)
        return judge(case, None, failed.failed, feature_level, backend_name, seconds, model=model)
    tally = parts[0].tally
    for part in parts[1:]:
        tally.merge(part.tally)
    last = next((part.fallback for part in parts if part.fallback), None) or parts[0].first
    partial = any(part.interrupted for part in parts) or sum(part.stop - part.start for part in parts) < case.elements
    outcome = Outcome(last.status) if partial else _bare(last)
    record = judge(case, None, outcome, feature_level, backend_name, sum(part.seconds for part in parts),
                   comparison=tally.result(), model=model)
    if partial:
        record["partial"] = {"verified": tally.elements, "of": record["elements"]}
        record["elements"] = tally.elements
    return record


def _run_streamed(case, backend, feature_level, verifier, save_failures, model) -> dict:
    """A streamed case in one part; a Ctrl-C raises PartlyStreamed with the chunks verified before it."""
    part = stream_part(case, backend, verifier)
    record = streamed_record(case, [part], feature_level, backend.name, model)
    if part.interrupted:
        raise PartlyStreamed(record)
    if save_failures and record["status"] in statuses.FAILING and record["worst"]:
        # The chunk holding the worst element, with what the device made of it.
        from conformance.run.repro import save_case
        chunk = getattr(backend, "stream_chunk", STREAM_CHUNK)
        flat = int(np.ravel_multi_index(record["worst"][0]["index"], case.shape))
        start = flat - flat % chunk
        _, x = next(generators.chunks(case.generator, case.dtype, case.shape, chunk, start=start))
        record["repro"] = save_case(save_failures, case, x, backend.run_many([(case, x)])[0])
    return record
