"""A streamed case's pipeline and where its time goes (conformance.run.runner._run_streamed).

Chunk k is verified (fast.Verifier, over its threads) while the backend runs chunk k + 1: one
background thread waits on each chunk's verification in turn, which times it; the runner waits for
chunk k's verification before it hands chunk k + 1 over, so the tally adds the chunks in order,
whatever the thread count. The summary says, per chunk (median) and in all: making the input, the
backend's round trip (for a worker backend also the worker's own parts: `execute`, the device's
upload, dispatch and readback; `inputs`/`outputs`, the worker's copies; the rest is the transfer),
the verification, and how long the backend side waited for the verification.
"""
import collections
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from conformance.caseset import operands


DEPTH = 1  # chunks whose verification may be under way at once (4 was slower on the H100: docs/performance.md)


class Pipeline:
    def __init__(self, verifier, backend, depth=None):
        self.verifier, self.backend = verifier, backend
        self.depth = max(1, int(DEPTH if depth is None else depth))
        # One thread starts each chunk's verification (Verifier.submit: the threads take it from there),
        # another finishes them in order (adds each to the tally): the tally adds the chunks in order.
        self._starter = ThreadPoolExecutor(1, thread_name_prefix="verify-start")
        self._finisher = ThreadPoolExecutor(1, thread_name_prefix="verify-chunk")
        self._pending = collections.deque()
        self._last_done = 0.0  # when the finisher added the last chunk
        self.times = {"input": [], "input_waited": [], "round_trip": [], "verify": [], "waited": []}
        self.worker = {}  # the backend's last_timing parts, per chunk
        self.elements = 0
        self.started = time.perf_counter()

    def timed_chunks(self, pieces):
        """pieces (offset, x), each made on a thread of its own while the caller runs the one before
        through the backend (numpy releases the GIL); times how long each took to make, and how long
        the caller waited for it."""
        def make():
            began = time.perf_counter()
            try:
                piece = next(pieces)
            except StopIteration:
                return None
            self.times["input"].append(time.perf_counter() - began)
            return piece

        maker = ThreadPoolExecutor(1, thread_name_prefix="make-chunk")
        try:
            upcoming = maker.submit(make)
            while True:
                began = time.perf_counter()
                piece = upcoming.result()
                self.times["input_waited"].append(time.perf_counter() - began)
                if piece is None:
                    return
                upcoming = maker.submit(make)
                self.elements += operands.size(piece[1])
                yield piece
        finally:
            maker.shutdown(wait=True, cancel_futures=True)

    def ran(self, seconds: float):
        self.times["round_trip"].append(seconds)
        for key, value in (getattr(self.backend, "last_timing", None) or {}).items():
            if isinstance(value, (int, float)):
                self.worker.setdefault(key, []).append(float(value))

    def submit(self, tally, case, x, actual, offset):
        """Start verifying a chunk; waits first while `depth` chunks are under way."""
        while len(self._pending) >= self.depth:
            self._finish_oldest()
        began = time.perf_counter()
        started = self._starter.submit(self.verifier.submit, tally, case, x, actual, offset)

        def finish():  # on the finisher thread, chunk after chunk
            started.result()()
            done = time.perf_counter()
            seconds, self._last_done = done - max(began, self._last_done), done
            return seconds
        self._pending.append(self._finisher.submit(finish))

    def _finish_oldest(self):
        began = time.perf_counter()
        seconds = self._pending.popleft().result()
        self.times["waited"].append(time.perf_counter() - began)
        self.times["verify"].append(seconds)

    def wait(self):
        """Every chunk submitted, verified and added."""
        while self._pending:
            self._finish_oldest()

    def close(self):
        try:
            self.wait()
        finally:
            self._starter.shutdown(wait=True)
            self._finisher.shutdown(wait=True)

    def summary(self, name: str) -> str:
        def ms(values):
            return f"{statistics.median(values) * 1e3:.1f}" if values else "-"
        chunks = len(self.times["round_trip"])
        wall = time.perf_counter() - self.started
        worker = self.worker
        parts = ""
        if worker.get("execute"):
            transfer = [r - w for r, w in zip(worker["round_trip"], worker.get("worker") or [])]
            parts = (f" [worker: execute {ms(worker['execute'])} (upload, dispatch, readback), inputs "
                     f"{ms(worker.get('inputs'))}, outputs {ms(worker.get('outputs'))}; transfer {ms(transfer)}]")
        jobs = getattr(self.verifier, "jobs", "?")
        return (f"stream {name}: {chunks} chunk(s), {self.elements:,} elements in {wall:.1f} s "
                f"({self.elements / max(wall, 1e-9) / 1e6:,.0f} M/s); per chunk, median ms: input {ms(self.times['input'])} "
                f"(waited for {ms(self.times['input_waited'])}), "
                f"backend {ms(self.times['round_trip'])}{parts}, verification {ms(self.times['verify'])} "
                f"on {jobs} thread(s), backend waited for it {ms(self.times['waited'])}; in all: backend "
                f"{sum(self.times['round_trip']):.1f} s, verification {sum(self.times['verify']):.1f} s")
