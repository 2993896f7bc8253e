"""Every status a case can end with, and what each means for conformance."""
PASS = "pass"
FAIL = "fail"  # numbers outside tolerance
UNSUPPORTED_REQUIRED = "unsupported-required"  # the device refused what the level requires
UNSUPPORTED = "unsupported"  # refused, and not required at the chosen level
NOT_REACHABLE = "not-reachable"  # this route (ONNX Runtime) cannot express the case
ERROR = "error"
CRASH = "crash"
TIMEOUT = "timeout"
CPU_FALLBACK = "cpu-fallback"  # a node ran on another provider than the one under test

ALL = (PASS, FAIL, UNSUPPORTED_REQUIRED, UNSUPPORTED, NOT_REACHABLE, ERROR, CRASH, TIMEOUT, CPU_FALLBACK)
FAILING = frozenset({FAIL, UNSUPPORTED_REQUIRED, ERROR, CRASH, TIMEOUT, CPU_FALLBACK})
MEANING = {
    PASS: "every element within tolerance",
    FAIL: "numbers outside tolerance (or NaN where a number is due, or the reverse)",
    UNSUPPORTED_REQUIRED: "the backend refused a case the chosen feature level requires",
    UNSUPPORTED: "the backend refused a case the chosen feature level does not require",
    NOT_REACHABLE: "the backend's route cannot express the case (e.g. a data type or field an ONNX "
                   "operator lacks, through ONNX Runtime)",
    ERROR: "the backend raised an error",
    CRASH: "the backend process died",
    TIMEOUT: "the backend did not answer in time",
    CPU_FALLBACK: "a node ran on a provider other than the one under test",
}
