"""Faults of nearest-neighbour resampling (UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3), each a
device with oracle.evaluate's signature (backend python:faults_resample:<fault>): the rounding the other
way where a coordinate is exactly halfway, the pixel offsets ignored, the scales of two axes swapped."""
import math

import numpy as np

import oracle
from oracle.resample2 import ROUNDING
from oracle.resampling import half_up

CENTRES = (0.5, -0.5)  # the pixel-centre offsets of DML_RESAMPLE, which has no offset fields


def _mapping(op, x, params):
    """(output sizes, scales, input offsets, output offsets, rounding) of a case, as the page maps it."""
    x = np.asarray(x)
    if op == "UPSAMPLE_2D":
        width, height = params["ScaleSize"]
        scales = [1.0] * (x.ndim - 2) + [float(height), float(width)]
        sizes = [n * int(s) for n, s in zip(x.shape, scales)]
        # Integer scales: o // s is the row whose centre is nearest (floor of o / s from the corners)
        return sizes, scales, [0.0] * x.ndim, [0.0] * x.ndim, np.floor
    scales = [float(np.float32(s)) for s in params["Scales"]]
    sizes = params.get("OutputSizes") or [math.floor(n * s) for n, s in zip(x.shape, scales)]
    ins = params.get("InputPixelOffsets") or [CENTRES[0]] * x.ndim
    outs = params.get("OutputPixelOffsets") or [CENTRES[1]] * x.ndim
    rounding = ROUNDING[params["RoundingDirection"]] if "RoundingDirection" in params else half_up
    return sizes, scales, ins, outs, rounding


def _resampled(x, sizes, scales, ins, outs, rounding):
    picks = []
    for n, size, s, i, o in zip(np.shape(x), sizes, scales, ins, outs):
        coordinate = (np.arange(size, dtype=np.float64) - float(np.float32(o))) / s - float(np.float32(i))
        picks.append(np.clip(rounding(coordinate), 0, n - 1).astype(np.intp))
    return np.asarray(x)[np.ix_(*picks)]


def rounds_halves_the_other_way(op, x, dtype, **params):
    """Where an input coordinate is exactly halfway between two elements, the other of the two."""
    sizes, scales, ins, outs, rounding = _mapping(op, x, params)

    def other_at_halves(coordinate):
        chosen, low = rounding(coordinate), np.floor(coordinate)
        return np.where(coordinate - low == 0.5, 2 * low + 1 - chosen, chosen)
    return _resampled(x, sizes, scales, ins, outs, other_at_halves)


def ignores_pixel_offsets(op, x, dtype, **params):
    """The coordinates mapped from the pixels' corners: InputPixelOffsets and OutputPixelOffsets (DML_RESAMPLE's
    implied 0.5 and -0.5) taken as 0."""
    sizes, scales, ins, outs, rounding = _mapping(op, x, params)
    return _resampled(x, sizes, scales, [0.0] * len(ins), [0.0] * len(outs), rounding)


def swaps_two_scales(op, x, dtype, **params):
    """The output of the right sizes, its coordinates mapped with the scales of the last two axes swapped."""
    sizes, scales, ins, outs, rounding = _mapping(op, x, params)
    if len(scales) < 2:
        return oracle.evaluate(op, x, dtype, **params)
    swapped = scales[:-2] + [scales[-1], scales[-2]]
    return _resampled(x, sizes, swapped, ins, outs, rounding)
