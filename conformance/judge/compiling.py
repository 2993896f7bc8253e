"""What numba compiles, said as it starts: a first run on a machine waits for the verifier's loops
to compile (seconds each, cached after), and a run that sits still without a word looks hung.
conformance.judge.jit's listener calls compiling(); the command line sets announcer. No numba here."""
import contextlib
import threading

announcer = None  # a function(line), set by the command line; None: silent (a library, the tests)
_subject = threading.local()
_announced = set()
_lock = threading.Lock()


@contextlib.contextmanager
def verifying(case):
    """Loops numba compiles meanwhile, on this thread, are announced as compiled for case's kind."""
    previous = getattr(_subject, "label", None)
    _subject.label = f"{case.op} {case.dtype}"
    try:
        yield
    finally:
        _subject.label = previous


def compiling(cache: str):
    """numba starts compiling a loop (its cache had none for this machine): say so once per kind."""
    label = getattr(_subject, "label", None) or "this run"
    with _lock:
        if announcer is None or label in _announced:
            return
        _announced.add(label)
    announcer(f"compiling the verifier's loops for {label} (first run on this machine only; cached in {cache})")
