"""The parts of a sharded run (conformance run --shard K/N) joined into the results one run of the
whole selection writes: its header (without the shard; merged_from names the parts), every record in
the selection's order, one footer. Parts that cannot make that whole are refused (BadInput naming
the file): another run's, another case set's, a shard given twice or missing, a part cut short
(unless allow_partial), a file that is not a part of a sharded run.
"""
from dataclasses import dataclass
from pathlib import Path

from conformance.caseset.shards import POSITIONS, SHARD
from conformance.errors import BadInput
from conformance.run.results import partial, read_results

# What makes the parts one run: header fields that change verdicts or name what ran them. Others
# (start, argv, os, python, numpy, a worker's timings) may differ from machine to machine.
RUN_FIELDS = ("tool", "backend", "provider", "provider_options", "session_config", "device", "directml",
              "onnxruntime", "feature_level", "seed", "tolerance_model", "directml_loaded.sha256")
SUMMED = ("seconds", "sessions_created", "wall_seconds", "backend_start_seconds")  # footer fields added up
_PART_ONLY = (SHARD, POSITIONS, "unfinished", "truncated_line")  # header fields of one part, not the whole


@dataclass
class Part:
    path: str
    header: dict
    records: list
    footer: dict | None
    cut: str | None  # why it is partial, or None

    @property
    def shard(self) -> dict:
        return self.header[SHARD]

    @property
    def name(self) -> str:
        return f"shard {self.shard['index']}/{self.shard['count']}"


def merge(paths, allow_partial: bool = False) -> tuple:
    """-> (header, records, footer) of the whole run."""
    parts = sorted((_read(path, allow_partial) for path in paths), key=lambda part: part.shard["index"])
    _check_together(parts)
    slots = [None] * parts[0].shard["of_cases"]
    for part in parts:
        for position, record in zip(part.header[POSITIONS], part.records):  # a part cut short: its first ones
            slots[position] = record
    records = [record for record in slots if record is not None]
    return _header(parts), records, _footer(parts, records)


def _read(path, allow_partial: bool) -> Part:
    if not Path(path).is_file():
        raise BadInput(f"{path}: no such results file")
    header, records, footer = read_results(path)
    shard, positions = header.get(SHARD), header.get(POSITIONS)
    if not (isinstance(shard, dict) and isinstance(positions, list)
            and all(isinstance(shard.get(key), int) for key in ("index", "count", "of_cases"))):
        raise BadInput(f"{path}: not a part of a sharded run (its header records no shard: "
                       "conformance run --shard K/N writes one)")
    part = Part(str(path), header, records, footer, partial(header, footer))
    if header.get("truncated_line"):
        part.cut = part.cut or f"its line {header['truncated_line']} is cut short"
    if part.cut and not allow_partial:
        raise BadInput(f"{path}: {part.name} is partial: {part.cut}; run that shard again, or give "
                       "--allow-partial to merge what it holds")
    if len(records) > len(positions) or (not part.cut and len(records) != len(positions)):
        raise BadInput(f"{path}: {part.name} holds {len(records)} case records for its {len(positions)} cases")
    return part


def _check_together(parts):
    first = parts[0]
    count = first.shard["count"]
    for part in parts[1:]:
        for field in RUN_FIELDS:
            mine, theirs = _field(part.header, field), _field(first.header, field)
            if mine != theirs:
                raise BadInput(f"{part.path}: a part of another run than {first.path}: {field} is {mine!r} "
                               f"there, {theirs!r} in {first.path}")
        for key in ("count", "of_cases", "case_set"):
            if part.shard.get(key) != first.shard.get(key):
                raise BadInput(f"{part.path}: a part of another case set than {first.path}: {key} "
                               f"{part.shard.get(key)!r} there, {first.shard.get(key)!r} in {first.path}")
    for before, part in zip(parts, parts[1:]):
        if part.shard["index"] == before.shard["index"]:
            raise BadInput(f"{part.path}: {part.name} is given twice (also {before.path})")
    given = {part.shard["index"] for part in parts}
    missing = [index for index in range(1, count + 1) if index not in given]
    if missing:
        raise BadInput(f"missing shard {', '.join(f'{index}/{count}' for index in missing)} of the run of "
                       f"{first.path} (given: {', '.join(part.name for part in parts)})")
    seen = set()
    for part in parts:
        positions = set(part.header[POSITIONS])
        if positions & seen or any(not 0 <= p < first.shard["of_cases"] for p in positions):
            raise BadInput(f"{part.path}: {part.name}'s cases are not those its case set gives it")
        seen |= positions


def _field(header: dict, dotted: str):
    value = header
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _header(parts) -> dict:
    """The first part's header as an unsharded run writes it: no shard (nor --shard in its argv),
    the earliest start, the case files of every part, and merged_from naming the parts."""
    header = {key: value for key, value in parts[0].header.items() if key not in _PART_ONLY}
    header["start"] = min(str(part.header.get("start") or "") for part in parts) or None
    header["argv"] = _without_shard(header.get("argv") or [])
    files = {}
    for part in parts:
        for source, entry in (part.header.get("case_files") or {}).items():
            files.setdefault(source, entry)
    if files or "case_files" in header:
        header["case_files"] = files
    unfinished = [case_id for part in parts for case_id in part.header.get("unfinished", [])]
    if unfinished:
        header["unfinished"] = unfinished
    header["merged_from"] = [{"file": part.path, "shard": part.shard["index"], "start": part.header.get("start")}
                             for part in parts]
    return header


def _without_shard(argv) -> list:
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--shard":
            skip = True
        elif not str(arg).startswith("--shard="):
            kept.append(arg)
    return kept


def _footer(parts, records) -> dict:
    footers = [part.footer or {} for part in parts]
    footer = {"type": "footer"}
    for key in SUMMED:
        footer[key] = round(sum(f.get(key) or 0 for f in footers), 3)
    footer["cases"] = len(records)
    footer["interrupted"] = any(part.cut for part in parts)
    ends = [str(f["end"]) for f in footers if f.get("end")]
    footer["end"] = max(ends) if ends else None
    return {key: footer[key] for key in ("type", "seconds", "cases", "sessions_created", "interrupted", "end",
                                         "wall_seconds", "backend_start_seconds")}
