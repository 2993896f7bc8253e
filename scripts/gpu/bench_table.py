"""The GPU side of `conformance bench`: tables from the results files of `device.sh bench` and `pairs`.

    python3 scripts/gpu/bench_table.py PATH...   # results files, or folders of them (docs/gpu/sweeps-h100/at-pace)
    python3 scripts/gpu/bench_table.py DIR --pack OUT [--name bench]   # also OUT/NAME.md (the tables),
                                                        # OUT/NAME.log (DIR's NAME.log) and OUT/NAME.tar.gz (all
                                                        # of DIR): what `device.sh bench` (`pairs`) hands back

Per results file (JSON lines, gzipped or not) and its log beside it: the run's seconds in the runner
(the footer), its cases and statuses, whether the header's gpu_proof says the GPU ran it, each streamed
case's seconds (the log's `stream` lines), and for a worker backend the worker's peak memory (the log's
last line). Reads those files only; against the issue's targets: a float32 sweep that passed (every
case `pass`, none cut short) within 60 s, the dml-wine worker within 4 GiB.

A float16 pair sweep (exhaustive_float16_pairs) gets a table of its own: the pairs verified (cases
judged pass or fail, a case cut short by its "partial" elements), the runner's seconds, pairs per
second and the seconds all 2**32 pairs would take at that pace, the per-chunk medians of each
streamed case's `stream` line (backend, verification, how long the backend waited for it), and
where the run was cut short: a record with "partial", a case in flight with no record, no footer.
"""
import argparse
import gzip
import json
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from conformance import statuses  # noqa: E402
from conformance.caseset.inputs import PAIRS, bit_range  # noqa: E402

ALL_PAIRS = len(bit_range({"kind": PAIRS}))
# A runner's console line for a streamed case (conformance/run/streamtime.py, Pipeline.summary); its
# per-chunk medians are read one by one, so a figure the line lacks (an older runner) is left blank.
STREAM = re.compile(r"^stream (?P<id>.+?): (?P<chunks>[\d,]+) chunk\(s\), (?P<elements>[\d,]+) elements in "
                    r"(?P<seconds>[\d.]+) s(?P<rest>.*)$", re.M)
MEDIANS = {"backend_ms": r"(?:^|, )backend ([\d.]+)", "verification_ms": r"(?:^|, )verification ([\d.]+)",
           "waited_ms": r"(?:^|, )backend waited for it ([\d.]+)"}
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
    quarters = [s["seconds"] for s in streams(log)]
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
            "interrupted": footer.get("interrupted"), "pairs": is_pairs(lines)}


def streams(log: str) -> list:
    """Each `stream` line of a log: its case id, chunks, elements, seconds and per-chunk medians (ms)."""
    found = []
    for match in STREAM.finditer(log):
        medians = match["rest"].partition("median ms:")[2].partition("; in all")[0].strip()
        figures = {key: re.search(pattern, medians) for key, pattern in MEDIANS.items()}
        found.append({"id": match["id"], "chunks": int(match["chunks"].replace(",", "")),
                      "elements": int(match["elements"].replace(",", "")), "seconds": float(match["seconds"]),
                      **{key: float(m.group(1)) if m else None for key, m in figures.items()}})
    return found


def is_pairs(lines) -> bool:
    ids = [i for r in lines if r.get("type") == "in-flight" for i in r.get("ids", [])]
    return any(r.get("generator", {}).get("kind") == PAIRS for r in lines if "status" in r) or \
        any(re.search(rf"/{PAIRS}(\[|$)", i) for i in ids)


def pair_row(path: Path) -> dict:
    """The pair figures of one results file (and its log beside it)."""
    lines = _lines(path)
    footer = next((r for r in lines if r.get("type") == "footer"), None)
    records = [r for r in lines if "status" in r and "id" in r]
    verified = sum(r["elements"] for r in records if r["status"] in (statuses.PASS, statuses.FAIL))
    seconds = (footer or {}).get("seconds")
    rate = verified / seconds if seconds and verified else None
    cut = [f"{_part(r['id'])} {r['partial']['verified']:,} of {r['partial']['of']:,} (partial)"
           for r in records if r.get("partial")]
    recorded = {r["id"] for r in records}
    cut += [f"{_part(i)} in flight, no record" for r in lines if r.get("type") == "in-flight"
            for i in r.get("ids", []) if i not in recorded]
    if footer is None:
        cut.append("no footer (the run was killed)")
    elif footer.get("interrupted") and not cut:
        cut.append("interrupted")
    return {**row(path), "verified": verified, "seconds": seconds, "rate": rate,
            "projected_s": ALL_PAIRS / rate if rate else None, "streams": streams(_log(path)), "cut_short": cut}


def _part(case_id: str) -> str:
    """A case's pair range from its id ([0x40000000,0x80000000]), else the id."""
    match = re.search(r"(\[[^\]]*\])$", case_id)
    return match.group(1) if match else case_id


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


def tables(paths) -> str:
    rows = [row(p) for p in paths]
    parts = [table([r for r in rows if not r["pairs"]]) if any(not r["pairs"] for r in rows) else "",
             pair_table([pair_row(p) for p, r in zip(paths, rows) if r["pairs"]]) if any(r["pairs"] for r in rows)
             else ""]
    return "\n\n".join(p for p in parts if p)


def pair_table(rows) -> str:
    head = ("| pair sweep | GPU | pairs verified | seconds | pairs/s | projected s, all 2**32 | backend ms | "
            "verification ms | backend waited ms | statuses | cut short |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]

    def each(r, key):
        return ", ".join("-" if s[key] is None else f"{s[key]:.1f}" for s in r["streams"])
    for r in rows:
        statuses_text = ", ".join(f"{k} {v:,}" for k, v in sorted(r["statuses"].items()))
        out.append(f"| {r['run']} | {r['gpu']} | {r['verified']:,} | "
                   f"{'' if r['seconds'] is None else format(r['seconds'], '.1f')} | "
                   f"{'' if r['rate'] is None else format(r['rate'], ',.0f')} | "
                   f"{'' if r['projected_s'] is None else format(r['projected_s'], ',.0f')} | "
                   f"{each(r, 'backend_ms')} | {each(r, 'verification_ms')} | {each(r, 'waited_ms')} | "
                   f"{statuses_text} | {'; '.join(r['cut_short']) or 'no'} |")
    return "\n".join(out)


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


def pack(folder: Path, out: Path, text: str, name: str = "bench") -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.md").write_text(text + "\n")
    if (folder / f"{name}.log").exists():
        (out / f"{name}.log").write_bytes((folder / f"{name}.log").read_bytes())
    # written beside and renamed: a command cut short between two packs leaves the last one whole
    with tarfile.open(out / f".{name}.tar.gz", "w:gz") as archive:
        for path in sorted(folder.iterdir()):
            archive.add(path, arcname=path.name)
    (out / f".{name}.tar.gz").replace(out / f"{name}.tar.gz")


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="bench_table.py")
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--pack", metavar="OUT", help="write the table, the log and an archive of the one folder given")
    parser.add_argument("--name", default="bench", help="--pack's files: OUT/NAME.md, NAME.log, NAME.tar.gz")
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
    text = tables(paths)
    print(text)
    if args.pack:
        pack(Path(args.paths[0]), Path(args.pack), text, args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
