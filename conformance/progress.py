"""A progress bar on a terminal (tqdm), silence elsewhere."""
import sys


class _Quiet:
    def update(self, record=None):
        pass

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

    def close(self):
        self._bar.close()


def progress_bar(total, enabled=True):
    return _Bar(total) if enabled and sys.stderr.isatty() else _Quiet()
