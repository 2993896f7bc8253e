"""Faults of DEPTH_TO_SPACE(1) and SPACE_TO_DEPTH(1), for `--backend python:faults_depth_to_space:<fault>`:
devices that move the right elements to the wrong places."""
import numpy as np

import oracle
from oracle.depth_space import ORDERS


def the_other_order(op, x, dtype, **params):
    """The depth read (or laid out) in the other DML_DEPTH_SPACE_ORDER: COLUMN_ROW_DEPTH where the case
    says DEPTH_COLUMN_ROW (the first versions' only order), and the reverse. The orders agree where
    BlockSize is 1 or there is one channel of space."""
    other = ORDERS[1] if params.get("Order", ORDERS[0]) == ORDERS[0] else ORDERS[0]
    versioned = op if op.endswith("1") else op + "1"
    return oracle.evaluate(versioned, x, dtype, **{**params, "Order": other})


def blocks_transposed(op, x, dtype, **params):
    """Each [BlockSize, BlockSize] block transposed: the element due at block row i, column j is the one
    due at row j, column i (the same elements, in the right output shape)."""
    block = params["BlockSize"]
    if op.startswith("DEPTH_TO_SPACE"):
        y = oracle.evaluate(op, x, dtype, **params)
        n, c, h, w = y.shape
        return np.ascontiguousarray(y.reshape(n, c, h // block, block, w // block, block)
                                    .transpose(0, 1, 2, 5, 4, 3).reshape(y.shape))
    n, c, h, w = x.shape
    swapped = x.reshape(n, c, h // block, block, w // block, block).transpose(0, 1, 2, 5, 4, 3).reshape(x.shape)
    return oracle.evaluate(op, np.ascontiguousarray(swapped), dtype, **params)
