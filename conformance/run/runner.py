"""Run cases on a backend, judge them against the oracle, stream the results."""
import functools
import math
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
from conformance.judge.compare import compare, describe
from conformance.judge.d3d import DEFAULT_MODEL, MODELS
from conformance.judge.expected import expected_for, interval_judge

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
              "elements": math.prod(case.shape), "mismatches": 0, "nan_mismatches": 0, "flushed": 0,
              "max_ulp": None, "max_fractional_ulp": None, "worst": [], "d3d": None, "verdicts": None,
              "message": outcome.message, "placement": outcome.placement}
    status = outcome.status
    if status == outcome_status.UNSUPPORTED:
        record["status"] = statuses.UNSUPPORTED_REQUIRED if record["required"] else statuses.UNSUPPORTED
    elif status == outcome_status.OK or status == outcome_status.CPU_FALLBACK:
        if comparison is not None:
            result = comparison
        elif verifier is not None and expected is None:
            result = verifier.check(case, x, outcome.output)
        else:
            if expected is None:
                expected, reference, zeros = expected_for(case, x)
            result = compare(x, expected, outcome.output, case.tolerance, case.flush_allowed, zeros,
                             reference if np.dtype(case.dtype).kind == "f" else None, interval_judge(case))
        verdicts = {name: statuses.PASS if result.passed_under(name) else statuses.FAIL for name in MODELS}
        record.update(mismatches=result.mismatches, nan_mismatches=result.nan_mismatches,
                      flushed=result.flushed, max_ulp=result.max_ulp,
                      max_fractional_ulp=result.max_fractional_ulp, worst=result.worst,
                      ulp_histogram=result.histogram, d3d=result.d3d, verdicts=verdicts)
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


def _run_streamed(case, backend, feature_level, verifier, save_failures, model) -> dict:
    """A case too large to hold (exhaustive_float32; exhaustive_float16_pairs, whose chunk x is the
    tuple (A, B)): chunks of STREAM_CHUNK elements (or the backend's stream_chunk) through the
    backend and the comparison, the next chunk on the device while the last is verified. The record
    adds up every chunk: mismatches, max ULP, histogram, worst elements (flat index, every input).
    A backend with run_chunk(case, x, patterns) is told each chunk's bit patterns or pair indices (a
    worker may make them itself). Where the time went goes to stderr."""
    from conformance.judge.fast import Tally
    from conformance.run.streamtime import Pipeline
    tally = Tally(case.shape, case.dtype)
    chunk = getattr(backend, "stream_chunk", STREAM_CHUNK)
    run_chunk = getattr(backend, "run_chunk", None)
    pipeline = Pipeline(verifier, backend)
    seconds, first, fallback = 0.0, None, None
    try:
        for offset, x in pipeline.timed_chunks(generators.chunks(case.generator, case.dtype, case.shape, chunk)):
            began, size = time.perf_counter(), operands.size(x)
            if run_chunk is not None:
                outcome = run_chunk(case, x, generators.chunk_patterns(case.generator, offset, size))
            else:
                outcome = backend.run_many([(case, x)])[0]
            seconds += time.perf_counter() - began
            pipeline.ran(time.perf_counter() - began)
            first = first or outcome
            if outcome.status == outcome_status.CPU_FALLBACK:
                fallback = fallback or outcome
            elif outcome.status != outcome_status.OK:
                outcome = Outcome(outcome.status, message=f"at elements {offset}..{offset + size - 1}: "
                                  f"{outcome.message}", placement=outcome.placement)
                return judge(case, x, outcome, feature_level, backend.name, seconds, model=model)
            pipeline.submit(tally, case, x, outcome.output, offset)
        pipeline.wait()
    except KeyboardInterrupt:
        pipeline.close()  # the chunks submitted are verified and added: a second Ctrl-C drops them
        if not tally.elements:
            raise
        record = judge(case, None, Outcome((fallback or first).status), feature_level, backend.name, seconds,
                       comparison=tally.result(), model=model)
        record["partial"] = {"verified": tally.elements, "of": record["elements"]}
        record["elements"] = tally.elements
        raise PartlyStreamed(record) from None
    finally:
        pipeline.close()
        print(pipeline.summary(case.id), file=sys.stderr, flush=True)
    last = fallback or first
    outcome = Outcome(last.status, message=last.message, placement=last.placement)
    record = judge(case, None, outcome, feature_level, backend.name, seconds, comparison=tally.result(),
                   model=model)
    if save_failures and record["status"] in statuses.FAILING and record["worst"]:
        # The chunk holding the worst element, with what the device made of it.
        from conformance.run.repro import save_case
        flat = int(np.ravel_multi_index(record["worst"][0]["index"], case.shape))
        start = flat - flat % chunk
        _, x = next(generators.chunks(case.generator, case.dtype, case.shape, chunk, start=start))
        record["repro"] = save_case(save_failures, case, x, backend.run_many([(case, x)])[0])
    return record
