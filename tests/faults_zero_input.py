"""Faulty devices for the operators of no input tensor (tests/test_zero_input.py), each with oracle.evaluate's
signature: `--backend python:faults_zero_input:<fault>`."""
import numpy as np

import oracle
from oracle.generated import union_value


def diagonal_one_column_off(op, x, dtype, **params):
    """DIAGONAL_MATRIX and DIAGONAL_MATRIX1 with every diagonal one column to the right."""
    if op == "DIAGONAL_MATRIX":
        params["Offset"] = params.get("Offset", 0) + 1
    else:
        params["DiagonalFillBegin"] = params.get("DiagonalFillBegin", 0) + 1
        params["DiagonalFillEnd"] = params.get("DiagonalFillEnd", 1) + 1
    return oracle.evaluate(op, x, dtype, **params)


def delta_applied_once_too_many(op, x, dtype, **params):
    """FILL_VALUE_SEQUENCE whose first element already has ValueDelta added: ValueStart + (i + 1) * ValueDelta."""
    start = union_value(params.get("ValueStart"), dtype)
    delta = union_value(params.get("ValueDelta"), dtype)
    with np.errstate(all="ignore"):
        params["ValueStart"] = (start + delta).item()  # in the type: wrapped or rounded
    return oracle.evaluate(op, x, dtype, **params)


def value_type_ignored(op, x, dtype, **params):
    """FILL_VALUE_CONSTANT reading Value through FLOAT32 whatever ValueDataType says (an INT64 2^53 + 1 becomes
    2^53; an integer beyond the type saturates on the way back)."""
    single = float(np.float32(params.get("Value") or 0))
    if np.dtype(dtype).kind in "iu" and single == single:
        info = np.iinfo(dtype)
        single = max(min(int(single), int(info.max)), int(info.min))
    params["Value"] = single
    return oracle.evaluate(op, x, dtype, **params)
