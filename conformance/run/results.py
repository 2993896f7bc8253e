"""Results as JSON lines: a header with the run's metadata, one object per case, a footer.

Each line is flushed as it is written, so a crash loses nothing already done. Results and reports
end their lines with "\n" on every system (Windows' text mode would write "\r\n"): the same run
gives the same bytes on Windows and Linux, for diffs, git and CI.
"""
import contextlib
import gzip
import json
import os
import secrets
from pathlib import Path

from conformance import statuses
from conformance.errors import BadInput, OutputFailed
from conformance.worker import jsonfloats


class ResultsWriter:
    def __init__(self, path):
        self.path = Path(path) if path else None
        self._handle = self._lock = None
        self.written = 0  # records on disk
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # A path ending in .gz is written through gzip. A run killed midway leaves it cut short,
            # which read_results refuses in one line; a plain .jsonl keeps every record written.
            self._lock = _lock(self.path)
            with self._failing("open"):
                self._handle = _open(self.path, "wt")

    def write(self, record: dict):
        if self._handle:
            with self._failing("write"):
                self._handle.write(encode(record) + "\n")
                self._handle.flush()
            self.written += 1

    def close(self):
        if self._handle:
            with self._failing("write"):
                self._handle.flush()
                os.fsync(self._handle.fileno())
                self._handle.close()
            self._handle = None
        self._unlock()

    @contextlib.contextmanager
    def _failing(self, doing: str):
        """An OSError (ENOSPC, EIO, EFBIG, EDQUOT) as OutputFailed naming the file: the handle is
        dropped, not flushed again, so the lines already on disk stay as they are (a last line cut
        short is skipped by read_results)."""
        try:
            yield
        except OSError as error:
            handle, self._handle = self._handle, None
            if handle is not None:
                with contextlib.suppress(OSError, ValueError):
                    handle.close()
            self._unlock()
            kept = (f"the {self.written} lines before it are kept" if self.written else
                    "not even its header was written whole")
            raise OutputFailed(f"{self.path}: cannot {doing} the results: {error.strerror or error}; "
                               f"{kept}") from None

    def _unlock(self):
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __del__(self):  # a writer dropped unclosed (a library caller's) must not keep the path locked
        self._unlock()


def write_report(path, text: str):
    """A report or any other text file the harness writes: UTF-8, "\n" line ends, folders made.

    A file is written whole or not at all: into a new file beside it, renamed over it once complete,
    so that a full disk leaves neither an empty report nor a cut one, and the report it would have
    replaced stays. A path that is not a regular file (/dev/stdout, a FIFO, /dev/full) is written
    directly. Any OSError is OutputFailed naming the path."""
    path = Path(path)
    data = text.encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        target = Path(os.path.realpath(path))  # a link is written through, as open() would
        if target.exists() and not target.is_file():
            with open(target, "wb") as handle:
                handle.write(data)
            return
        _replace_whole(target, data)
    except OSError as error:
        raise OutputFailed(f"{path}: cannot write it: {error.strerror or error}; the file is as it was") \
            from None


def _replace_whole(target: Path, data: bytes):
    partial = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666  # os.open applies the umask
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with open(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def _default(value):
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    raise TypeError(f"cannot write {type(value).__name__} to results")


_ENCODER = json.JSONEncoder(allow_nan=False, default=_default)  # json.dumps makes one a call


def encode(record) -> str:
    """One results line: strict JSON, NaN and the infinities as jsonfloats' names (README, "Results
    files"), numpy scalars as numbers."""
    return jsonfloats.encode(_ENCODER, record)


def read_results(path):
    """-> (header, cases, footer or None).

    A last line cut short (no newline: the process died while writing it) is skipped and noted
    in header["truncated_line"]; any other line that is not a JSON object is BadInput naming the
    file and line. A run that never wrote its footer (the process died) or was interrupted gets
    header["unfinished"]: the ids that were in flight in the backend and have no record."""
    header, cases, footer = None, [], None
    in_flight, truncated = [], None
    for number, record in _records(path):
        if record is None:
            truncated = number
            continue
        kind = record.get("type")
        if kind == "header":
            header = record
        elif kind == "footer":
            footer = record
        elif kind == "in-flight":
            in_flight = record.get("ids", [])
        else:
            _check_case(path, number, record)
            cases.append(record)
    if header is None:
        raise BadInput(f"{path}: not a results file: it has no header line (conformance run writes one first)")
    if in_flight and (footer is None or footer.get("interrupted")):
        done = {case.get("id") for case in cases}
        unfinished = [case_id for case_id in in_flight if case_id not in done]
        if unfinished:
            header = {**header, "unfinished": unfinished}
    if truncated is not None:
        header = {**header, "truncated_line": truncated}
    return header, cases, footer


def _check_case(path, number, record):
    """What every reader relies on in a case record, or BadInput naming the file and line: an unknown
    status is an error, never a silent third kind."""
    for key in ("id", "op", "status"):
        if not isinstance(record.get(key), str):
            raise BadInput(f"{path}:{number}: a case record without {key!r} (is this a results file?)")
    if record["status"] not in statuses.ALL:
        raise BadInput(f"{path}:{number}: unknown status {record['status']!r} (known: {', '.join(statuses.ALL)})")
    for key in ("max_ulp", "elements", "mismatches"):
        value = record.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise BadInput(f"{path}:{number}: {key} is {value!r}, not a number")


def partial(header, footer) -> str | None:
    """Why a run's results are partial, or None where the run finished."""
    if footer is None:
        return "it has no footer: the run stopped early (a crash or a kill)"
    if footer.get("interrupted"):
        return "the run was interrupted"
    return None


def _open(path, mode: str):
    """A results file as UTF-8 text with \n line ends, through gzip where its name ends in .gz."""
    opener = gzip.open if str(path).endswith(".gz") else open
    return opener(path, mode, encoding="utf-8", newline="\n")


def _lock(path: Path):
    """A descriptor of path holding its lock, taken before the file is emptied: a second run given the
    same --results while the first still writes is refused (BadInput) instead of wiping the first's
    records. flock where the system has it: the lock goes with the process, however it ends."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock
        return None
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        raise BadInput(f"--results {path}: another run is writing it now; wait for it, or give another "
                       "path") from None
    return descriptor


def _records(path):
    """(line number, record) per line; (number, None) for a last line cut short. A path ending
    in .gz is read through gzip (results committed under docs/ are kept compressed)."""
    with _open(path, "rt") as handle:
        try:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = jsonfloats.loads(line)
                except json.JSONDecodeError as error:
                    if not line.endswith("\n"):  # only the last line can lack its newline
                        yield number, None
                        return
                    raise BadInput(f"{path}:{number}: not a results record ({error.msg})") from None
                if not isinstance(record, dict):
                    raise BadInput(f"{path}:{number}: not a results record (a JSON {type(record).__name__})")
                yield number, record
        except UnicodeDecodeError:
            raise BadInput(f"{path}: not a results file (not UTF-8 text)") from None
        except (EOFError, gzip.BadGzipFile) as error:
            raise BadInput(f"{path}: not a readable gzip file ({error})") from None
