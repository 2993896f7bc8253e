"""Several backends on the same cases (dml vs cpu vs webgpu ...), as one matrix.

Rows: operator, data type, feature level. Columns: one per run. A cell means what it means in
the single-run matrix (reports.matrix.Cell). Below it, the cases whose status differs between runs.
"""
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from conformance import statuses
from conformance.judge.verdicts import highest_conforming_level
from conformance.run.results import read_results
from reports import details, matrix


@dataclass
class Run:
    label: str
    path: str
    header: dict
    records: list
    footer: dict | None

    @property
    def failing(self) -> int:
        return len(matrix.failing(self.records))


@dataclass
class Comparison:
    runs: list
    rows: list = field(default_factory=list)  # [(op, dtype, level, [Cell per run])]
    levels: list = field(default_factory=list)  # [(op, [level, None (conforms nowhere) or "" (not run)])]
    differing: list = field(default_factory=list)  # [(id, [record or None per run])]
    steps: list = field(default_factory=list)  # [reports.releases.Step]: consecutive releases (--releases)

    @property
    def labels(self) -> list:
        return [run.label for run in self.runs]


def load(paths) -> list:
    runs = []
    for path in paths:
        header, records, footer = read_results(path)
        runs.append(Run(details.run_label(header, Path(path).stem), str(path), header, records, footer))
    seen = defaultdict(int)
    for run in runs:
        seen[run.label] += 1
    for run in runs:  # two runs of one backend: tell them apart by file name
        if seen[run.label] > 1:
            run.label = f"{run.label} [{Path(run.path).name}]"
    return runs


def compare_runs(runs) -> Comparison:
    result = Comparison(runs)
    keys = set()
    cells = []
    for run in runs:
        grouped = defaultdict(matrix.Cell)
        for record in run.records:
            key = (record["op"], record["dtype"], record["feature_level"])
            grouped[key].records.append(record)
            keys.add(key)
        cells.append(grouped)
    for key in sorted(keys, key=lambda k: (k[0], matrix.dtype_key(k[1]), matrix.level_key(k[2]))):
        result.rows.append((*key, [grouped.get(key) for grouped in cells]))
    ops = sorted({k[0] for k in keys})
    for op in ops:
        result.levels.append((op, [highest_conforming_level([r for r in run.records if r["op"] == op], op)
                                   if any(r["op"] == op for r in run.records) else "" for run in runs]))
    by_id = [{r["id"]: r for r in run.records} for run in runs]
    all_ids = dict.fromkeys(case_id for index in by_id for case_id in index)  # first-seen order
    for case_id in all_ids:
        records = [index.get(case_id) for index in by_id]
        if len({r["status"] if r else None for r in records}) > 1:
            result.differing.append((case_id, records))
    # the most severe status any run gave first, then by id
    result.differing.sort(key=lambda item: (min(statuses.rank(r["status"]) for r in item[1] if r), item[0]))
    return result


def compare_files(paths) -> Comparison:
    return compare_runs(load(paths))
