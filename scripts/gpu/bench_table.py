"""The GPU side of `conformance bench`: one table from the results files of `device.sh bench`.

    python3 scripts/gpu/bench_table.py PATH...   # results files, or folders of them (docs/gpu/sweeps-h100/at-pace)

Per results file (JSON lines, gzipped or not) and its log beside it: the run's seconds in the runner
(the footer), its cases and statuses, whether the header's gpu_proof says the GPU ran it, each streamed
case's seconds (the log's `stream` lines), and for a worker backend the worker's peak memory (the log's
last line). Reads those files only; against the issue's targets: a float32 sweep within 60 s, the
dml-wine worker within 4 GiB.
"""
import gzip
import json
import re
import sys
from collections import Counter
from pathlib import Path

SWEEP_TARGET_S = 60.0
WORKER_TARGET_GIB = 4.0


def _lines(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def _log(results: Path) -> str:
    stem = results.name.split(".jsonl")[0]
    for name in (f"{stem}.log", f"{stem}.log.gz"):
        path = results.with_name(name)
        if path.exists():
            return (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)).read()
    return ""


def row(path: Path) -> dict:
    lines = _lines(path)
    header = next((r for r in lines if r.get("type") == "header"), {})
    footer = next((r for r in lines if r.get("type") == "footer"), {})
    records = [r for r in lines if "status" in r and "id" in r]
    log = _log(path)
    quarters = [float(s) for s in re.findall(r"^stream .*? elements in ([0-9.]+) s", log, re.M)]
    peak = re.search(r"worker peak ([0-9.]+) GiB", log)
    proof = (header.get("gpu_proof") or {}).get("verdict", {})
    seconds = footer.get("seconds")
    return {"run": path.name.split(".jsonl")[0], "backend": header.get("backend"), "device": header.get("device"),
            "gpu": proof.get("gpu"), "cases": len(records), "seconds": seconds,
            "statuses": dict(Counter(r["status"] for r in records)), "streamed_s": quarters,
            "worker_peak_gib": float(peak.group(1)) if peak else None,
            "interrupted": footer.get("interrupted")}


def verdict(r: dict) -> str:
    if r["streamed_s"]:
        return "yes" if r["seconds"] is not None and r["seconds"] <= SWEEP_TARGET_S else "NO"
    if r["worker_peak_gib"] is not None:
        return "yes" if r["worker_peak_gib"] <= WORKER_TARGET_GIB else "NO"
    return ""


def table(rows) -> str:
    head = "| run | backend | GPU | cases | seconds | streamed parts (s) | worker peak | statuses | target met |"
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        statuses = ", ".join(f"{k} {v:,}" for k, v in sorted(r["statuses"].items()))
        parts = ", ".join(f"{s:.1f}" for s in r["streamed_s"])
        peak = f"{r['worker_peak_gib']:.1f} GiB" if r["worker_peak_gib"] is not None else ""
        seconds = "" if r["seconds"] is None else f"{r['seconds']:.1f}" + (" (interrupted)" if r["interrupted"] else "")
        out.append(f"| {r['run']} | {r['backend']} | {r['gpu']} | {r['cases']:,} | {seconds} | {parts} | {peak} | "
                   f"{statuses} | {verdict(r)} |")
    return "\n".join(out)


def main(argv) -> int:
    paths = []
    for given in map(Path, argv):
        if given.is_dir():
            paths += sorted(p for p in given.iterdir() if ".jsonl" in p.name)
        elif given.is_file():
            paths.append(given)
        else:
            print(f"bench_table.py: {given}: no such file or folder", file=sys.stderr)
            return 2
    if not paths:
        print("usage: bench_table.py PATH... (results files, or folders of them)", file=sys.stderr)
        return 2
    print(table([row(p) for p in paths]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
