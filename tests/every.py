"""One test over every operator, type or parameter set, instead of one test each: a check per item,
each failure kept with the item that broke it, all of them reported at the end.

    failures = Failures()
    for op in specs.SPECS:
        with failures.check(op):
            assert ...
    failures.assert_none("operators whose ... ")

The suite's cost then grows with the work the checks do, not with pytest's cost per test, and a
failure still names the operator, type and case (each with its own assertion message)."""
import contextlib

SHOWN = 40  # failures printed in full; the rest are counted


class Failures:
    def __init__(self):
        self.items = []
        self.checked = 0

    @contextlib.contextmanager
    def check(self, label: str):
        """Run a block for one item: an assertion or an exception in it is recorded under label, not raised."""
        self.checked += 1
        try:
            yield
        except AssertionError as error:
            lines = str(error).strip().splitlines() or ["assertion failed"]
            self.items.append(f"{label}: {lines[0]}")  # the message; pytest's explanation follows it
        except Exception as error:  # an item the code under test raised on: the others still run
            self.items.append(f"{label}: {type(error).__name__}: {str(error).strip()[:300]}")

    def assert_none(self, what: str):
        if self.items:
            shown = "\n".join(f"  - {item}" for item in self.items[:SHOWN])
            more = f"\n  ... and {len(self.items) - SHOWN} more" if len(self.items) > SHOWN else ""
            raise AssertionError(f"{len(self.items)} of {self.checked} {what}:\n{shown}{more}")
