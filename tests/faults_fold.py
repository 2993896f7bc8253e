"""Faults of FOLD, for `python:faults_fold:<name>`: a device that sums wrongly in one way the page forbids."""
import numpy as np

import oracle


def last_window_position_dropped(op, x, dtype, **params):
    """Each block's last window position (row c * K + K - 1) left out of the sum."""
    k = int(np.prod(params["WindowSizes"]))
    kept = np.array(x, copy=True)
    kept[:, k - 1::k, :] = 0
    return oracle.evaluate(op, kept, dtype, **params)
