"""`python:MODULE:FUNCTION`: a Python function with oracle.evaluate's signature is the device.

The project's tests inject faults through it; `python:oracle:evaluate` must pass at 0 ULP. A function
with a `close` attribute has it called when the backend closes (a device's teardown).
"""
import importlib
import traceback

import numpy as np

from conformance.backends.base import ERROR, MESSAGE_CHARS, OK, Backend, BackendUnavailable, Outcome


class PythonFunctionBackend(Backend):
    def __init__(self, spec: str):
        super().__init__()
        self.name = spec
        try:
            _, module_name, function_name = spec.split(":", 2)
            self.function = getattr(importlib.import_module(module_name), function_name)
        except (ValueError, ImportError, AttributeError) as error:
            raise BackendUnavailable(f"{spec}: expected python:MODULE:FUNCTION naming an importable "
                                     f"function ({error})") from None

    def close(self):
        teardown = getattr(self.function, "close", None)
        if callable(teardown):
            teardown()

    def metadata(self) -> dict:
        return {"backend": self.name, "provider": "python", "device": self.name}

    def run(self, case, x: np.ndarray) -> Outcome:
        extra = {} if case.nan_rule == "d3d" else {"nan_rule": case.nan_rule}
        try:
            given = tuple(v.copy() for v in x) if isinstance(x, tuple) else x.copy()
            output = self.function(case.op, given, case.dtype, **case.params, **extra)
        except Exception as error:
            frames = traceback.format_exception_only(type(error), error)
            return Outcome(ERROR, message="".join(frames).strip()[:MESSAGE_CHARS])
        # Several outputs (TOP_K's values and indices): a tuple of arrays, each its own
        return Outcome(OK, output=tuple(map(np.asarray, output)) if isinstance(output, tuple) else np.asarray(output))
