"""The GPU side of `conformance bench`: one table from the results files of `device.sh bench`.

    python3 scripts/gpu/bench_table.py PATH...   # results files, or folders of them (docs/gpu/sweeps-h100/at-pace)
    python3 scripts/gpu/bench_table.py DIR --pack OUT   # also OUT/bench.md (the table), OUT/bench.log (DIR's
                                                        # bench.log) and OUT/bench.tar.gz (all of DIR): what
                                                        # `device.sh bench` hands back, three files

Per results file (JSON lines, gzipped or not) and its log beside it: the run's seconds in the runner
(the footer), its cases and statuses, whether the header's gpu_proof says the GPU ran it, each streamed
case's seconds (the log's `stream` lines), and for a worker backend the worker's peak memory (the log's
last line). Reads those files only; against the issue's targets: a float32 sweep that passed (every
case `pass`, none cut short) within 60 s, the dml-wine worker within 4 GiB.
"""
import argparse
import gzip
import json
import re
import sys
import tarfile
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
            # a sweep: every case exhaustive (a run with none, one without the worker's peak either)
            "sweep": all(r.get("generator", {}).get("kind", "").startswith("exhaustive") for r in records)
            if records else peak is None,
            "statuses": dict(Counter(r["status"] for r in records)), "streamed_s": quarters,
            "worker_peak_gib": float(peak.group(1)) if peak else None,
            "interrupted": footer.get("interrupted")}


def verdict(r: dict) -> str:
    if r["sweep"]:
        why = []
        if r["seconds"] is None or r["seconds"] > SWEEP_TARGET_S:
            why.append(f"over {SWEEP_TARGET_S:.0f} s")
        if r["interrupted"] or not r["cases"] or set(r["statuses"]) != {"pass"}:
            why.append("not passed")
        return f"NO ({', '.join(why)})" if why else "yes"
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


def pack(folder: Path, out: Path, text: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.md").write_text(text + "\n")
    if (folder / "bench.log").exists():
        (out / "bench.log").write_bytes((folder / "bench.log").read_bytes())
    with tarfile.open(out / "bench.tar.gz", "w:gz") as archive:
        for path in sorted(folder.iterdir()):
            archive.add(path, arcname=path.name)


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="bench_table.py")
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--pack", metavar="OUT", help="write the table, the log and an archive of the one folder given")
    args = parser.parse_args(argv)
    if args.pack and (len(args.paths) != 1 or not Path(args.paths[0]).is_dir()):
        print("bench_table.py: --pack takes one folder", file=sys.stderr)
        return 2
    paths = []
    for given in map(Path, args.paths):
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
    text = table([row(p) for p in paths])
    print(text)
    if args.pack:
        pack(Path(args.paths[0]), Path(args.pack), text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
