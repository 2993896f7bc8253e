"""Padding devices that are wrong on purpose, with oracle.evaluate's signature
(python:faults_padding:NAME)."""
import numpy as np

import oracle

MIRRORS = {"DML_PADDING_MODE_REFLECTION": "DML_PADDING_MODE_SYMMETRIC",
           "DML_PADDING_MODE_SYMMETRIC": "DML_PADDING_MODE_REFLECTION"}


def mirror_modes_swapped(op, x, dtype, **params):
    """REFLECTION computed as SYMMETRIC (the edge element repeated) and SYMMETRIC as REFLECTION."""
    mode = params.get("PaddingMode")
    return oracle.evaluate(op, x, dtype, **{**params, "PaddingMode": MIRRORS.get(mode, mode)})


def start_and_end_swapped(op, x, dtype, **params):
    """StartPadding taken as EndPadding and EndPadding as StartPadding (the output's sizes unchanged)."""
    return oracle.evaluate(op, x, dtype, **{**params, "StartPadding": params.get("EndPadding"),
                                            "EndPadding": params.get("StartPadding")})


def whole_axis_reversed(op, x, dtype, **params):
    """REVERSE_SUBSEQUENCES that ignores SequenceLengthsTensor: every subsequence reversed in full."""
    data, lengths = x
    return oracle.evaluate(op, (data, np.full_like(lengths, data.shape[params["Axis"]])), dtype, **params)
