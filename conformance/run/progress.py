"""The console: a progress bar on a terminal (tqdm), silence elsewhere; output that no console
encoding can stop."""
import sys


def tolerant_console():
    """Write what the console's encoding cannot hold as escapes (\\u4e2d) instead of raising.

    On Windows, output redirected to a file or a pipe is encoded in the ANSI code page (cp1252 and
    the like), which cannot hold every path or message: a run would die with UnicodeEncodeError
    while printing its summary, after its results but before its reports."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


class _Quiet:
    def update(self, record=None):
        pass

    @staticmethod
    def write(line: str):
        print(line, file=sys.stderr, flush=True)

    def close(self):
        pass


class _Bar:
    def __init__(self, total):
        from tqdm import tqdm
        self._bar = tqdm(total=total, unit="case", file=sys.stderr, dynamic_ncols=True)
        self._failed = 0

    def update(self, record=None):
        from conformance.statuses import FAILING
        if record and record["status"] in FAILING:
            self._failed += 1
            self._bar.set_postfix(failing=self._failed, refresh=False)
        self._bar.update(1)

    def write(self, line: str):
        """A line above the bar."""
        self._bar.write(line, file=sys.stderr)

    def close(self):
        self._bar.close()


def progress_bar(total, enabled=True):
    return _Bar(total) if enabled and sys.stderr.isatty() else _Quiet()
