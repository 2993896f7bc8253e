"""`conformance bench`'s end-to-end figures: a real `conformance run --backend cpu` of a streamed
float32 case against ONNX Runtime's CPU provider alone on the same operator, inputs and chunks.

Two workloads of the primary operator (sweeps/bench/'s first), each an exhaustive_float32 range of
2**FULL_EXPONENT bit patterns (every one in the full bench, every 2**(FULL_EXPONENT - QUICK_EXPONENT)th
in --quick): ordinary negative values from -2**-4 to -2**28 (every element passes, about 9 % of
them off the exactly rounded value by a few ULP, the rest CELU's -1 or exact), and float32's tiniest
negatives from bit pattern 0x80000001 up, whose results the CPU provider flushes to zero (exp(x) - 1
is 0 in float32): every element is off the exactly rounded value, so each goes through the full
analysis of bad elements and the d3d intervals.

Each side is a process of its own, timed from outside (wall seconds, the interpreter's start
included): `conformance run` of the case file, written to a temporary folder; and a short script
(PROVIDER_ALONE) that loads the model the cpu backend builds for that case
(onnx_models.single_node_model of ort.case_node), makes each chunk of inputs as the runner does
(caseset.inputs.chunks, runner.STREAM_CHUNK elements) and runs it through a session on the CPU
provider with the provider's own best options (provider_session).
"""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 0.25  # end to end through cpu: at least this fraction of the CPU provider's own throughput
QUICK_EXPONENT = 24
FULL_EXPONENT = 28
# name -> first bit pattern of the range
WORKLOADS = {"passing": 0xbd800000, "every element off": 0x80000001}


def provider_session(onnxruntime, model, threads: int):
    """A session on the CPU provider at its own best: default options (spinning intra-op threads),
    one thread per usable core."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


# argv: model path, generator (JSON), data type, elements, chunk, threads. Prints its timings as JSON.
PROVIDER_ALONE = """import json, sys, time
import onnxruntime
from conformance.caseset import inputs
from conformance.cli.bench_end_to_end import provider_session
model, generator, dtype, elements, chunk, threads = sys.argv[1:]
began = time.perf_counter()
session = provider_session(onnxruntime, model, int(threads))
made = time.perf_counter()
run = 0.0
for offset, x in inputs.chunks(json.loads(generator), dtype, (int(elements),), int(chunk)):
    start = time.perf_counter()
    session.run(["y"], {"x": x})
    run += time.perf_counter() - start
print(json.dumps({"session_seconds": made - began, "run_seconds": run,
                  "loop_seconds": time.perf_counter() - made}))
"""


def case_text(op: str, params: dict, start: int, exponent: int) -> str:
    """The case file of one workload: 2**exponent float32 bit patterns spread evenly over the
    2**FULL_EXPONENT from start."""
    from conformance.cli.bench_runs import sweep_file
    step = 1 << (FULL_EXPONENT - exponent)
    return sweep_file(op, params, f"{{kind: exhaustive_float32, start: {start:#x}, "
                                  f"stop: {start + (1 << FULL_EXPONENT):#x}, step: {step}}}")


def provider_alone(case_file: Path, threads: int) -> dict:
    """The CPU provider alone on case_file's only case, on threads intra-op threads, in a process of
    its own: wall seconds and the script's own timings."""
    from conformance.backends.onnx_models import single_node_model
    from conformance.backends.ort import case_node
    from conformance.caseset.caseload import load_paths
    from conformance.run.runner import STREAM_CHUNK
    from conformance.cli.bench_runs import CHILD_DIES_WITH_BENCH
    (case,) = load_paths([case_file])
    node, _ = case_node(case)
    model = case_file.with_suffix(".onnx")
    model.write_bytes(single_node_model(node, case.dtype))
    command = [sys.executable, "-c", PROVIDER_ALONE, str(model), json.dumps(case.generator), case.dtype,
               str(case.shape[0]), str(STREAM_CHUNK), str(threads)]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, preexec_fn=CHILD_DIES_WITH_BENCH)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"the CPU provider alone failed (exit {done.returncode}): {done.stderr[-500:]}")
    return {"wall": wall, **json.loads(done.stdout.strip().splitlines()[-1])}


def measure(op: str, params: dict, exponent: int, jobs: int, repeats: int, out=print) -> list:
    """Each workload at 2**exponent elements, `conformance run --jobs jobs` against the CPU provider
    alone on every usable core: the best of repeats of each side, interleaved."""
    from conformance.cli.bench_runs import conformance_run
    from conformance.judge.fast import usable_cpus
    rows = []
    for name, start in WORKLOADS.items():
        elements = 1 << exponent
        row = {"workload": name, "op": op, "elements": elements, "start": start}
        with tempfile.TemporaryDirectory() as folder:
            case_file = Path(folder) / "end_to_end.yaml"
            case_file.write_text(case_text(op, params, start, exponent))
            for _ in range(repeats):
                ran = conformance_run(case_file, jobs)
                if ran["wall"] < row.get("wall", float("inf")):
                    row.update(wall=ran["wall"], run_seconds=ran["footer"].get("seconds"), record=ran["record"])
                alone = provider_alone(case_file, usable_cpus())
                if alone["wall"] < row.get("provider", {}).get("wall", float("inf")):
                    row["provider"] = alone
        record, provider = row["record"], row["provider"]
        row["ratio"] = provider["wall"] / row["wall"]
        out(f"  {name} 2**{exponent}: conformance run {row['wall']:.2f} s (its run {row['run_seconds']:.2f} s), "
            f"CPU provider alone {provider['wall']:.2f} s (session {provider['session_seconds']:.2f} s, "
            f"runs {provider['run_seconds']:.2f} s, chunks with their inputs {provider['loop_seconds']:.2f} s): "
            f"{row['ratio']:.2f}x; {record['status']}, {record['mismatches']:,} mismatches, "
            f"{(record['d3d'] or {}).get('checked', 0):,} off the exact value")
        rows.append(row)
    return rows


def table_rows(rows, short) -> list:
    """bench's table rows: [figure, measured, against, ratio, target, met] per workload."""
    table = []
    for row in rows:
        record, provider = row["record"], row["provider"]
        off = (record["d3d"] or {}).get("checked", 0)
        label = (f"end to end through cpu, {short(row['op'])} float32 2**{row['elements'].bit_length() - 1} "
                 f"{row['workload']} ({record['status']}, {off:,} off)")
        table.append([label, f"{row['elements'] / row['wall'] / 1e6:,.0f} M/s ({row['wall']:.1f} s)",
                      f"CPU provider alone {row['elements'] / provider['wall'] / 1e6:,.0f} M/s "
                      f"({provider['wall']:.1f} s)", f"{row['ratio']:.2f}x", f">= {TARGET_RATIO}x",
                      "yes" if row["ratio"] >= TARGET_RATIO else "NO"])
    return table
