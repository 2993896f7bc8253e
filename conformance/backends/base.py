"""What every backend returns: an output, or a typed failure."""
from dataclasses import dataclass, field

import numpy as np

from conformance.errors import BadInput
# The statuses a backend's outcome may carry besides OK; a case record takes them over as they are
# (UNSUPPORTED becomes unsupported-required where the feature level requires the case).
from conformance.statuses import CPU_FALLBACK, CRASH, ERROR, NOT_REACHABLE, TIMEOUT, UNSUPPORTED  # noqa: F401

OK = "ok"  # an output, for the runner to judge
BATCH = 64  # cases the runner hands a backend at once (run_many); a shared graph holds as many nodes
MESSAGE_CHARS = 500  # an outcome's message at most (one line where it comes from a library)


class BackendUnavailable(Exception):
    """The backend cannot run on this machine (exit code 3)."""


@dataclass
class Outcome:
    status: str
    output: np.ndarray | None = None
    message: str = ""
    placement: dict = field(default_factory=dict)  # node name -> provider that ran it
    # The DML_EXECUTION_FLAGS the operator was compiled with, as a case writes them (specs.base.flags_word);
    # None: not DirectML, or not run. docs/execution-flags.md
    execution_flags: str | None = None


def one_line(text) -> str:
    """A library's error as an outcome's message: its whitespace runs as single spaces, cut short."""
    return " ".join(str(text).split())[:MESSAGE_CHARS]


def number_option(key: str, value, kind=float):
    """A --provider-option's value as a number, or BadInput naming the option."""
    try:
        return kind(value)
    except (TypeError, ValueError):
        expected = "an integer" if kind is int else "a number"
        raise BadInput(f"--provider-option {key}={value}: expected {expected}") from None


class Backend:
    name = "backend"

    def __init__(self):
        self.sessions_created = 0

    def metadata(self) -> dict:
        return {"backend": self.name}

    def run(self, case, x: np.ndarray) -> Outcome:
        raise NotImplementedError

    def run_many(self, items):
        """items: list of (case, x). Backends that batch (a worker, a shared graph) override this."""
        return [self.run(case, x) for case, x in items]

    def close(self):
        pass
