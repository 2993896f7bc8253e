"""Results as JSON lines: a header with the run's metadata, one object per case, a footer.

Each line is flushed as it is written, so a crash loses nothing already done. Results and reports
end their lines with "\n" on every system (Windows' text mode would write "\r\n"): the same run
gives the same bytes on Windows and Linux, for diffs, git and CI.
"""
import json
import os
from pathlib import Path


class ResultsWriter:
    def __init__(self, path):
        self.path = Path(path) if path else None
        self._handle = None
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.path, "w", encoding="utf-8", newline="\n")

    def write(self, record: dict):
        if self._handle:
            self._handle.write(json.dumps(record, allow_nan=False, default=_default) + "\n")
            self._handle.flush()

    def close(self):
        if self._handle:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None


def write_report(path, text: str):
    """A report or any other text file the harness writes: UTF-8, "\n" line ends, folders made."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def _default(value):
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    raise TypeError(f"cannot write {type(value).__name__} to results")


def read_results(path):
    """-> (header, cases, footer or None). A truncated last line (a crash mid-write) is skipped.

    A run that never wrote its footer (the process died) gets header["unfinished"]: the ids
    that were in flight in the backend and have no record."""
    header, cases, footer = {}, [], None
    in_flight = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            kind = record.get("type")
            if kind == "header":
                header = record
            elif kind == "footer":
                footer = record
            elif kind == "in-flight":
                in_flight = record.get("ids", [])
            else:
                cases.append(record)
    if footer is None and in_flight:
        done = {case.get("id") for case in cases}
        unfinished = [case_id for case_id in in_flight if case_id not in done]
        if unfinished:
            header = {**header, "unfinished": unfinished}
    return header, cases, footer
