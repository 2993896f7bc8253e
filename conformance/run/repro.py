"""Save a failing case so it can be reproduced alone: inputs, outputs, the model, the case."""
import re
import shutil
from pathlib import Path

import numpy as np

import oracle
from conformance import specs
from conformance.backends.onnx_models import node_for, single_node_model
from conformance.errors import OutputFailed
from conformance.run.results import write_report
from conformance.specs.base import NotReachable
from conformance.worker import jsonfloats


def save_case(directory, case, x, outcome) -> str:
    folder = Path(directory) / re.sub(r"[^A-Za-z0-9_.=,+-]+", "_", case.id)
    if folder.is_symlink():  # planted beside the failures to come: not followed (outputs.check_writable)
        return f"not saved: {folder} is a symbolic link"
    made = not folder.exists()
    try:
        _save(folder, case, x, outcome)
    except (OSError, OutputFailed) as error:  # a full disk: the run goes on, the record says so
        if made:
            shutil.rmtree(folder, ignore_errors=True)  # no folder of half a case left behind
        return f"not saved: {folder}: {getattr(error, 'strerror', None) or error}"
    return str(folder)


def _outputs(prefix, value, case) -> dict:
    """{prefix: the output}, or for several outputs each by its name (expected_OutputValue, ...)."""
    if isinstance(value, tuple):
        return {f"{prefix}_{o.short}": np.asarray(v) for o, v in zip(specs.get(case.op).outputs, value)}
    return {prefix: np.asarray(value)}


def _save(folder, case, x, outcome):
    folder.mkdir(parents=True, exist_ok=True)
    # several inputs: input_A, input_B, ... (their own shapes; case.json says which are broadcast)
    given = {f"input_{i.name}": v for i, v in zip(case.inputs, x)} if case.several else {"input": x}
    arrays = {**given, **_outputs("expected", oracle.evaluate(case.op, x, case.dtype, **case.oracle_params()), case)}
    if outcome.output is not None:
        arrays.update(_outputs("actual", outcome.output, case))
    np.savez(folder / "tensors.npz", **arrays)
    write_report(folder / "case.json", jsonfloats.dumps(case.describe(), indent=2, default=str))
    try:
        spec = specs.get(case.op)
        node = node_for(spec, case)
        (folder / "model.onnx").write_bytes(single_node_model(node, case.dtype))
    except NotReachable:
        pass
