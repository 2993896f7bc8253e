"""Where the time of a streamed float32 sweep goes, stage by stage, on any backend.

    python3 scripts/gpu/sweep_profile.py --backend dml-wine [--chunks 24] [--jobs N] [--out F.json]

Runs the first case of scripts/gpu/sweeps/activation_celu_float32.yaml for a number of chunks
(4 Mi elements each, as the runner streams them) with the stages one after another, never
overlapped, and times each: making the input; the backend round trip, split for worker backends
into the worker's own session.run or, for dml-direct, its execute (upload, the DirectML dispatch,
readback) and the rest (the transport both ways, framing, the Windows Python's numpy); the verification (float64 oracle, rounding
and the ULP comparison, over --jobs threads). The streamed run overlaps the device and the
verification, so its wall time is about the larger of the two, not their sum.
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", required=True)
    parser.add_argument("--chunks", type=int, default=24)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--cases", default=str(min((ROOT / "scripts/gpu/sweeps").glob("*.yaml"))),
                        help="a sweep case file (default: the first in scripts/gpu/sweeps)")
    parser.add_argument("--provider-option", action="append", default=[])
    parser.add_argument("--out")
    args = parser.parse_args(argv)

    from conformance import backends
    from conformance.caseset import inputs
    from conformance.caseset.caseload import load_paths
    from conformance.cli.command import parse_options
    from conformance.judge import fast
    from conformance.run import runner

    case = load_paths([args.cases], 0)[0]
    jobs = args.jobs or fast.usable_cpus()
    started = time.perf_counter()
    backend = backends.create(args.backend, parse_options(args.provider_option))
    worker_seconds = []
    channel = getattr(backend, "channel", None)
    if channel is not None and hasattr(channel, "request"):  # the worker's own timing of each run
        request = channel.request

        def timed(header, buffers, timeout):
            reply, out = request(header, buffers, timeout)
            worker_seconds.append(sum(r.get("seconds", 0.0) for r in reply.get("runs", [])))
            return reply, out
        channel.request = timed
    start_seconds = time.perf_counter() - started
    verifier = fast.Verifier(jobs)
    stages = {"input": [], "round_trip": [], "verify": []}
    first = None
    try:
        pieces = inputs.chunks(case.generator, case.dtype, case.shape, runner.STREAM_CHUNK)
        for number in range(args.chunks + 1):  # chunk 0 also creates the session: timed apart
            t0 = time.perf_counter()
            offset, x = next(pieces)
            t1 = time.perf_counter()
            if hasattr(backend, "run_chunk"):  # dml-direct: the worker may make the chunk itself
                outcome = backend.run_chunk(case, x, inputs.chunk_patterns(case.generator, offset, x.size))
                worker_seconds.append(backend.last_timing.get("execute", 0.0))
            else:
                outcome = backend.run_many([(case, x)])[0]
            t2 = time.perf_counter()
            if outcome.status not in ("ok",):
                print(f"chunk {number}: {outcome.status}: {outcome.message[:300]}")
                return 1
            verifier.check(case, x, outcome.output)
            t3 = time.perf_counter()
            if number == 0:
                first = {"input": t1 - t0, "round_trip": t2 - t1, "verify": t3 - t2}
                continue
            stages["input"].append(t1 - t0)
            stages["round_trip"].append(t2 - t1)
            stages["verify"].append(t3 - t2)
        meta = backend.metadata()
    finally:
        verifier.close()
        backend.close()
    elements = runner.STREAM_CHUNK
    median = {k: statistics.median(v) for k, v in stages.items()}
    worker = statistics.median(worker_seconds[1:]) if len(worker_seconds) > 1 else None
    report = {"backend": args.backend, "device": meta.get("device"), "chunk_elements": elements, "chunks": args.chunks,
              "jobs": jobs, "backend_start_seconds": round(start_seconds, 3),
              "first_chunk_seconds": {k: round(v, 4) for k, v in first.items()},
              "median_chunk_seconds": {k: round(v, 5) for k, v in median.items()},
              "worker_session_run_seconds": round(worker, 5) if worker is not None else None,
              "transport_seconds": round(median["round_trip"] - worker, 5) if worker is not None else None,
              "projected_full_sweep_seconds": {
                  "sequential": round((2 ** 32 / elements) * sum(median.values()), 1),
                  "overlapped (device vs verification)": round(
                      (2 ** 32 / elements) * (median["input"] + max(median["round_trip"], median["verify"])), 1)},
              "throughput_melements_per_s": {k: round(elements / v / 1e6, 1) for k, v in median.items()}}
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
