"""The console: a progress bar on a terminal (tqdm), silence elsewhere; a word on a wait that would
pass for a hang; output that no console encoding can stop."""
import sys
import threading

SLOW = 1.0  # seconds: a wait longer than this is said as it happens


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


class SaidIfSlow:
    """with SaidIfSlow(line, say): says line (say(line), from a timer thread) once the block has taken
    SLOW seconds, so that a quick step stays silent and a slow one (a Wine worker's start) is not a
    blank screen; .said tells afterwards whether it was said."""

    def __init__(self, line: str, say, after: float = SLOW):
        self.said = False
        self._line, self._say = line, say
        self._timer = threading.Timer(after, self._fire)
        self._timer.daemon = True

    def _fire(self):
        self.said = True
        self._say(self._line)

    def __enter__(self):
        self._timer.start()
        return self

    def __exit__(self, *exc):
        self._timer.cancel()
        return False
