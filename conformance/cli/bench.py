"""`conformance bench`: how fast the harness verifies, measured side by side in one run.

    conformance bench            # everything, the full 2**32 sweep included (~5 min on 2 cores)
    conformance bench --quick    # the sweep up to 2**28 only, end to end on 2**24 (~1 min)
    conformance bench --only end-to-end   # one section (--only again for more: SECTIONS)

Sections (each figure is measured in this run, next to what it is compared with):

1. verification: oracle + comparison of a large float32 (and float16) tensor of
   each workload (the shipped sweeps/bench/: an operator, data type and fields each),
   against ONNX Runtime's CPU provider on the same operator and tensor, and
   against the plain path (whole-tensor float64 numpy oracle + compare.compare);
2. small cases: the default cases/ on the cpu backend, against a baseline that
   makes one session per case the way ONNX's backend test runner does
   (onnxruntime.backend.prepare, run, verify, drop);
3. sweep: exhaustive_float32 of the primary workload (the first) from 2**20 to
   2**32 elements, each `conformance run` in its own process (seconds, elements
   per second, peak RSS);
4. --jobs: the large-tensor verification on 1 thread and on every core, and
   whether the results are the same;
5. end to end: `conformance run --backend cpu` of the primary workload's float32
   inputs where they pass and where every element is off the exact value, against
   the CPU provider alone on the same inputs and chunks (bench_end_to_end.py).

Timings are the best of a few repeats (the machine may be shared); nothing
here asserts a time: the targets are printed next to the figures.
"""
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from conformance.caseset.caseload import SHIPPED_SWEEPS
from conformance.cli import bench_end_to_end
from conformance.cli.bench_runs import conformance_run, sweep_file
from conformance.cli.bench_sections import SECTIONS

TARGET_VERIFY_RATIO = 0.5
TARGET_CASES_PER_SECOND = 1000
TARGET_BASELINE_RATIO = 10
TARGET_SWEEP_SECONDS = 600
TARGET_SWEEP_RSS_MIB = 1024
LARGE = 1 << 24
WORKLOADS = SHIPPED_SWEEPS / "bench"


def workloads(paths=None) -> list:
    """[(operator, data type, fields)]: each case of sweeps/bench/ once, the primary one first."""
    from conformance.caseset.caseload import load_paths
    found = []
    for case in load_paths(paths or [WORKLOADS]):
        entry = (case.op, case.dtype, case.params)
        if entry not in found:
            found.append(entry)
    return found


def _short(op: str) -> str:
    return op.replace("ELEMENT_WISE_", "").replace("ACTIVATION_", "")


def _best(function, repeats=3):
    times = []
    result = None
    for _ in range(repeats):
        began = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - began)
    return min(times), result


def _case(op, dtype, shape, params, tolerance=None):
    from conformance import specs
    from conformance.caseset.case import Case
    spec = specs.get(op)
    return Case(id=f"bench/{op}/{dtype}", op=op, dtype=dtype, shape=tuple(shape),
                params={**spec.defaults(), **params}, generator={"kind": "uniform"}, required_level="1_0",
                tolerance=spec.tolerance(dtype) if tolerance is None else tolerance)


def _ort_session(case):
    import onnxruntime
    from conformance import specs
    from conformance.backends.onnx_models import single_node_model
    from conformance.cli.bench_end_to_end import provider_session
    from conformance.judge.fast import usable_cpus
    model = single_node_model(specs.get(case.op).to_onnx(case.dtype, case.params), case.dtype)
    return provider_session(onnxruntime, model, usable_cpus())


def verification(op, dtype, params, elements, jobs, repeats, plain=True, tiny=False):
    """-> dict of throughputs (elements per second) for one operator and data type. tiny: the
    inputs are float32's tiniest negatives (bit patterns 0x80000001 to 0x807fffff), whose results
    the CPU provider flushes to zero: every element is off the exactly rounded value."""
    from conformance.caseset import inputs
    from conformance.judge import fast, fast_kernels
    from conformance.judge.compare import compare
    from conformance.judge.expected import interval_judge
    from conformance.run import runner
    case = _case(op, dtype, (elements,), params)
    rng = np.random.default_rng(0)
    x = rng.uniform(*inputs.UNIFORM_RANGE, size=elements).astype(dtype)
    if tiny:
        x = (rng.integers(1, 0x00800000, size=elements, dtype=np.uint32) | np.uint32(0x80000000)).view(np.float32)
    session = _ort_session(case)
    actual = session.run(["y"], {"x": x})[0]
    fast_kernels.load()
    row = {"op": op, "dtype": dtype, "elements": elements}
    with fast.Verifier(jobs=jobs) as verifier:
        verifier.check(case, x[:1 << 16], actual[:1 << 16])  # tables, kernel specialisation
        # Interleaved, best of each: a shared machine's quiet moments fall to both alike.
        ort_seconds = fast_seconds = float("inf")
        for _ in range(repeats):
            ort_seconds = min(ort_seconds, _best(lambda: session.run(["y"], {"x": x}), 2)[0])
            seconds, fast_result = _best(lambda: verifier.check(case, x, actual), 1)
            fast_seconds = min(fast_seconds, seconds)
    session = None  # its buffers are not needed any more
    row["ort"] = elements / ort_seconds
    row["fast"] = elements / fast_seconds
    if jobs > 1:
        with fast.Verifier(jobs=1) as verifier:
            one_seconds, one_result = _best(lambda: verifier.check(case, x, actual), max(1, repeats - 1))
        row["fast_1_thread"] = elements / one_seconds
        row["jobs_identical"] = one_result == fast_result
    if plain:
        def plain_path():
            expected, reference, zeros = runner.expected_for(case, x)
            return compare(x, expected, actual, case.tolerance, case.flush_allowed, zeros, reference,
                           interval_judge(case))
        plain_seconds, plain_result = _best(plain_path, 2)
        oracle_seconds, _ = _best(lambda: runner.expected_for(case, x), 1)
        row["plain"] = elements / plain_seconds
        row["plain_oracle_only"] = elements / oracle_seconds
        row["identical"] = plain_result == fast_result
    row["max_ulp"], row["mismatches"] = fast_result.max_ulp, fast_result.mismatches
    row["off"] = fast_result.d3d["checked"] if fast_result.d3d else None  # elements off the exact value
    return row


def small_cases(jobs, repeats):
    """The default cases on the cpu backend: this harness vs one session per case."""
    from conformance import backends
    from conformance.caseset.caseload import load_paths
    from conformance.run import runner
    from conformance.run.results import ResultsWriter
    load_seconds, cases = _best(load_paths, 1)

    def harness():
        backend = backends.create("cpu", announce=lambda m: None)
        with tempfile.TemporaryDirectory() as folder:
            writer = ResultsWriter(Path(folder) / "r.jsonl")
            summary = runner.run(cases, backend, "5_0", writer, jobs=jobs)
            writer.close()
        backend.close()
        return summary

    # Interleaved, best of each: a shared machine's noise falls on both alike.
    fast_seconds = baseline_seconds = float("inf")
    for _ in range(repeats):
        seconds, summary = _best(harness, 1)
        fast_seconds = min(fast_seconds, seconds)
        seconds, baseline_records = _best(lambda: onnx_backend_style(cases), 1)
        baseline_seconds = min(baseline_seconds, seconds)
    same = [(a["status"], a["max_ulp"]) for a in summary.records] == \
        [(b["status"], b["max_ulp"]) for b in baseline_records]
    return {"cases": len(cases), "load_seconds": load_seconds, "seconds": fast_seconds,
            "sessions": summary.sessions_created, "baseline_seconds": baseline_seconds,
            "baseline_sessions": len(cases), "identical": same}


@contextlib.contextmanager
def _native_output_silenced():
    """File descriptors 1 and 2 to /dev/null while native code runs: its warnings are no figure (the
    errors that matter come back as Python exceptions)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)


def onnx_backend_style(cases):
    """One session per case, as onnx.backend.test's runner drives ONNX Runtime's backend: the case's
    own node (the harness's single-node model, every input given the case's shape, a ModelProto as
    the runner loads them), onnxruntime.backend.prepare (onnx.checker, serialisation, a session with
    default options), run, verify, drop."""
    import onnx
    import onnxruntime.backend as ort_backend

    from conformance.backends.base import OK, Outcome
    from conformance.backends.onnx_models import as_directml, feeds, single_node_model
    from conformance.backends.ort import case_node, classify_error
    from conformance.run import runner

    # As onnx's backend tests run with ALLOW_RELEASED_ONNX_OPSET_ONLY=0: Gelu's opset is newer than
    # the table of released opsets this onnxruntime.backend was built with.
    ort_backend.backend.OnnxRuntimeBackend.allowReleasedOpsetsOnly = False
    records = []
    for case in cases:
        x = case.make_input()
        began = time.perf_counter()
        found = case_node(case)
        if isinstance(found, Outcome):
            outcome = Outcome(found.status, message=found.message)
        else:
            try:
                node, _ = found
                given = feeds(node, x, "x")
                model = onnx.load_from_string(single_node_model(node, case.dtype))
                for info in model.graph.output:
                    info.type.tensor_type.shape.SetInParent()  # the checker wants a shape, if unknown
                for info in model.graph.input:
                    dims = info.type.tensor_type.shape
                    dims.SetInParent()
                    dims.ClearField("dim")
                    for size in np.shape(given[info.name]):
                        dims.dim.add().dim_value = size
                with _native_output_silenced():  # onnx.checker's "Model contains experimental ops"
                    prepared = ort_backend.prepare(model, "CPU")
                outcome = Outcome(OK, output=as_directml(prepared.run([given[i.name] for i in model.graph.input])[0]))
                del prepared
            except Exception as error:
                outcome = Outcome(classify_error(str(error)), message=str(error)[:200])
        records.append(runner.judge(case, x, outcome, "5_0", "baseline", time.perf_counter() - began))
    return records


def sweep(exponent: int, jobs: int, op: str, params: dict) -> dict:
    """2**exponent float32 bit patterns spread over all 2**32 (step 2**(32 - exponent)) of op with
    params, through `conformance run` in a process of its own: wall seconds and that process's peak RSS."""
    step = 1 << (32 - exponent)
    generator = "{kind: exhaustive_float32}" if step == 1 else f"{{kind: exhaustive_float32, step: {step}}}"
    with tempfile.TemporaryDirectory() as folder:
        case_file = Path(folder) / "sweep.yaml"
        case_file.write_text(sweep_file(op, params, generator))
        ran = conformance_run(case_file, jobs)
    record, footer = ran["record"], ran["footer"]
    return {"exponent": exponent, "elements": 1 << exponent, "wall": ran["wall"], "run_seconds": footer.get("seconds"),
            "peak_rss_mib": ran["peak_rss_mib"], "status": record["status"], "max_ulp": record["max_ulp"],
            "mismatches": record["mismatches"]}


def machine() -> str:
    import platform

    import onnxruntime
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            cpu = next(line.split(":", 1)[1].strip() for line in handle if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    from conformance.judge.fast import usable_cpus
    memory = ""
    try:
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        pass
    return (f"{cpu}, {usable_cpus()} usable cores{memory}; Python {platform.python_version()}, numpy "
            f"{np.__version__}, onnxruntime {onnxruntime.__version__}")


def _m(rate):
    return f"{rate / 1e6:,.0f} M/s"


def run(quick=False, jobs=0, repeats=3, json_path=None, out=print, only=None):
    """only: the SECTIONS to measure (None: every one)."""
    from tabulate import tabulate

    from conformance.judge.fast import usable_cpus
    jobs = jobs or usable_cpus()
    figures = _measure(quick, jobs, repeats, out, only or SECTIONS)
    out("")
    out(tabulate(figure_rows(figures), headers=["figure", "measured", "against", "ratio", "target", "met"]))
    out(f"\nload average before {figures['load_before']}, after {figures['load_after']} (other work on the "
        "machine slows the long figures more than the provider's best-of runs)")
    if quick:
        out(f"(--quick: the full 2**32 sweep was skipped; end to end on 2**{bench_end_to_end.QUICK_EXPONENT} "
            f"elements, not 2**{bench_end_to_end.FULL_EXPONENT})")
    if json_path:
        Path(json_path).write_text(json.dumps(figures, indent=2, default=str))
        out(f"wrote {json_path}")
    return figures


def _measure(quick, jobs, repeats, out, sections) -> dict:
    """The figures of each section asked for: the default suite, verification of large tensors, the
    float32 sweeps, end to end through the cpu backend against the CPU provider alone."""
    figures = {"machine": machine(), "jobs": jobs, "load_before": _load()}
    out(f"conformance bench on {figures['machine']}; --jobs {jobs}; load average {figures['load_before']}\n")
    chosen = workloads()
    primary_op, _, primary_params = chosen[0]
    if "small-cases" in sections:
        out("small cases: the default cases/ on the cpu backend ...")
        figures["small_cases"] = small_cases(jobs, repeats)
    if "verification" in sections:
        out("verification: large tensors, oracle + comparison vs ONNX Runtime's CPU provider ...")
        figures["verification"] = [verification(op, dtype, params, LARGE, jobs, repeats,
                                                plain=number == 0 or dtype == "float16")
                                   for number, (op, dtype, params) in enumerate(chosen)]
        figures["verification_failing"] = verification(primary_op, "float32", primary_params, LARGE, jobs, repeats,
                                                        plain=False, tiny=True)
    if "sweep" in sections:
        out(f"sweep: exhaustive_float32 {primary_op}, each size in its own process ...")
        sweeps = []
        for exponent in (20, 24, 28) + (() if quick else (32,)):
            sweeps.append(sweep(exponent, jobs, primary_op, primary_params))
            out(f"  2**{exponent}: {sweeps[-1]['wall']:.1f} s")
        figures["sweep"] = sweeps
    if "end-to-end" in sections:
        exponent = bench_end_to_end.QUICK_EXPONENT if quick else bench_end_to_end.FULL_EXPONENT
        out(f"end to end: `conformance run --backend cpu` of {primary_op} float32 vs the CPU provider alone, "
            "each in its own process ...")
        figures["end_to_end"] = bench_end_to_end.measure(primary_op, primary_params, exponent, jobs, repeats, out)
    figures["load_after"] = _load()
    return figures


def figure_rows(figures) -> list:
    """The table: each figure measured, what it is measured against, and the target it meets or misses."""
    table = []
    if "verification" in figures:
        table += _verification_rows(figures["verification"], figures["verification_failing"])
    if "small_cases" in figures:
        table += _small_case_rows(figures["small_cases"])
    if "sweep" in figures:
        table += _sweep_rows(figures["sweep"], workloads()[0][0])
    if "end_to_end" in figures:
        table += bench_end_to_end.table_rows(figures["end_to_end"], _short)
    if "verification" in figures and "fast_1_thread" in figures["verification"][0]:
        primary, jobs = figures["verification"][0], figures["jobs"]
        table.append([f"--jobs {jobs} vs --jobs 1 ({_short(primary['op'])} {primary['dtype']} 2**24 verification)",
                      _m(primary["fast"]), f"1 thread {_m(primary['fast_1_thread'])}",
                      f"{primary['fast'] / primary['fast_1_thread']:.2f}x", "same results",
                      _yes(primary["jobs_identical"])])
    return table


def _verification_rows(rows, failing) -> list:
    table = []
    primary = rows[0]
    ratio = primary["fast"] / primary["ort"]
    name = f"{_short(primary['op'])} {primary['dtype']}"
    table.append([f"verify {name} 2**24: oracle + compare", _m(primary["fast"]),
                  f"CPU provider {_m(primary['ort'])}", f"{ratio:.2f}x", f">= {TARGET_VERIFY_RATIO}x",
                  _yes(ratio >= TARGET_VERIFY_RATIO)])
    table.append([f"  every element off (tiniest negatives: {failing['off']:,} of {failing['elements']:,})",
                  _m(failing["fast"]), f"CPU provider {_m(failing['ort'])}",
                  f"{failing['fast'] / failing['ort']:.2f}x", f">= {TARGET_VERIFY_RATIO}x",
                  _yes(failing["fast"] / failing["ort"] >= TARGET_VERIFY_RATIO)])
    table.append(["  plain path (whole-tensor numpy oracle + compare)", _m(primary["plain"]),
                  f"oracle alone {_m(primary['plain_oracle_only'])}", f"{primary['fast'] / primary['plain']:.1f}x faster",
                  "", _yes(primary["identical"]) + " same result"])
    for row in rows[1:]:
        label = f"verify {_short(row['op'])} {row['dtype']} 2**24"
        note = ""
        if "plain" in row:
            note = f"{row['fast'] / row['plain']:.0f}x the plain path"
        table.append([label + (" (table)" if row["dtype"] == "float16" else ""), _m(row["fast"]),
                      f"CPU provider {_m(row['ort'])}", f"{row['fast'] / row['ort']:.2f}x", note,
                      _yes(row.get("identical", True)) + " same result" if "identical" in row else ""])
    return table


def _small_case_rows(small) -> list:
    rate = small["cases"] / small["seconds"]
    speedup = small["baseline_seconds"] / small["seconds"]
    return [[f"default suite, {small['cases']} cases, cpu backend", f"{rate:,.0f} cases/s",
             f"{small['seconds']:.2f} s + load {small['load_seconds']:.2f} s, {small['sessions']} sessions",
             "", f">= {TARGET_CASES_PER_SECOND}/s", _yes(rate >= TARGET_CASES_PER_SECOND)],
            ["  vs one session per case (ONNX backend-test style)",
             f"{small['cases'] / small['baseline_seconds']:,.0f} cases/s",
             f"{small['baseline_seconds']:.2f} s, {small['baseline_sessions']} sessions", f"{speedup:.1f}x",
             f">= {TARGET_BASELINE_RATIO}x",
             _yes(speedup >= TARGET_BASELINE_RATIO) + (", same statuses and max ULP" if small["identical"]
                                                       else ", RESULTS DIFFER")]]


def _sweep_rows(sweeps, op) -> list:
    table, previous = [], None
    for item in sweeps:
        growth = f"x{item['wall'] / previous['wall']:.1f} for x{item['elements'] // previous['elements']}" \
            if previous else ""
        target = ""
        met = ""
        if item["exponent"] == 32:
            target = f"<= {TARGET_SWEEP_SECONDS} s, < {TARGET_SWEEP_RSS_MIB} MiB"
            met = _yes(item["wall"] <= TARGET_SWEEP_SECONDS and item["peak_rss_mib"] < TARGET_SWEEP_RSS_MIB)
        table.append([f"sweep {_short(op)} float32 2**{item['exponent']} ({item['status']}, "
                      f"max {item['max_ulp']} ULP)",
                      _m(item["elements"] / item["wall"]),
                      f"{item['wall']:.1f} s, peak RSS {item['peak_rss_mib']:.0f} MiB", growth, target, met])
        previous = item
    return table


def _load() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def _yes(flag) -> str:
    return "yes" if flag else "NO"
