"""Every status a case can end with: its name in the results, how reports name and draw it, how
bad it is, and whether it fails conformance. The runner, the backends (whose outcomes use the
same names), the pytest plugin and every report read it from here."""
from dataclasses import dataclass

PASS = "pass"
FAIL = "fail"
UNSUPPORTED_REQUIRED = "unsupported-required"
UNSUPPORTED = "unsupported"
NOT_REACHABLE = "not-reachable"
ERROR = "error"
CRASH = "crash"
TIMEOUT = "timeout"
CPU_FALLBACK = "cpu-fallback"


@dataclass(frozen=True)
class Status:
    name: str  # as the results write it
    label: str  # in reports and table headings
    short: str  # in a matrix cell
    icon: str  # in markdown
    severity: int  # 0 nothing wrong, 1 wrong numbers or refused, 2 broke, 3 died
    failing: bool  # the case fails conformance
    meaning: str


# In the order of the operator tables' columns.
STATUSES = (
    Status(PASS, "pass", "pass", "✅", 0, False, "every element within tolerance"),
    Status(FAIL, "fail", "fail", "❌", 1, True,
           "numbers outside tolerance (or NaN where a number is due, or the reverse)"),
    Status(UNSUPPORTED_REQUIRED, "unsupported (required)", "unsupported (required)", "⛔", 1, True,
           "the backend refused a case the chosen feature level requires"),
    Status(UNSUPPORTED, "unsupported (not required)", "unsupported", "▫️", 0, False,
           "the backend refused a case the chosen feature level does not require"),
    Status(NOT_REACHABLE, "not reachable", "not reachable", "➖", 0, False,
           "the backend's route cannot express the case (e.g. a data type or field an ONNX "
           "operator lacks, through ONNX Runtime)"),
    Status(ERROR, "error", "error", "❗", 2, True, "the backend raised an error"),
    Status(CRASH, "crash", "crash", "💥", 3, True, "the backend process died"),
    Status(TIMEOUT, "timeout", "timeout", "⏱️", 2, True, "the backend did not answer in time"),
    Status(CPU_FALLBACK, "CPU fallback", "CPU fallback", "⚠️", 1, True,
           "a node ran on a provider other than the one under test"),
)
BY_NAME = {status.name: status for status in STATUSES}
ALL = tuple(BY_NAME)
FAILING = frozenset(s.name for s in STATUSES if s.failing)
SKIPPED = frozenset(s.name for s in STATUSES if not s.failing and s.name != PASS)  # did not run as a test
# Most severe first: a matrix cell takes the colour and label of its most severe status.
MOST_SEVERE_FIRST = (CRASH, TIMEOUT, ERROR, CPU_FALLBACK, UNSUPPORTED_REQUIRED, FAIL, PASS, UNSUPPORTED,
                     NOT_REACHABLE)
UNKNOWN_SEVERITY = 2  # a status this version does not know (a newer harness's): it broke


def label(name: str) -> str:
    return BY_NAME[name].label if name in BY_NAME else name


def short(name: str) -> str:
    return BY_NAME[name].short if name in BY_NAME else name


def icon(name: str) -> str:
    return BY_NAME[name].icon if name in BY_NAME else ""


def severity(name: str) -> int:
    return BY_NAME[name].severity if name in BY_NAME else UNKNOWN_SEVERITY


def rank(name: str) -> int:
    """Position among MOST_SEVERE_FIRST; a status this version does not know comes first."""
    return MOST_SEVERE_FIRST.index(name) if name in BY_NAME else -1
