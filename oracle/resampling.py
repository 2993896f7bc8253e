"""Nearest-neighbour resampling as the DML_RESAMPLE pages write it: OutputTensorX = (InputTensorX +
InputPixelOffset) * Scale + OutputPixelOffset, so each output element o copies the input element at
round((o - OutputPixelOffset) / Scale - InputPixelOffset), clamped into the input ("the output edges are
clamped"). FLOAT fields are float32; the coordinates are computed in float64 from them. The output sizes
are the case's OutputSizes (the output tensor's), else floor(InputSize * Scale): "If the input after scaling
is larger than the output bound, then we crop it to the output size. On the other hand, if the input after
scaling is smaller than the output bound, the output edges are clamped." A copy: float inputs keep their bits (the modules say READS_BITS)."""
import math

import numpy as np


def half_up(x):
    """The input element nearest to x, of two equally near the higher: floor(x + 0.5)."""
    return np.floor(x + 0.5)


def resample(x, scales, input_offsets, output_offsets, rounding, output_sizes=None):
    """x resampled along every axis; rounding: a numpy function of the float coordinate."""
    scales = np.asarray(scales, dtype=np.float32).astype(np.float64)
    ins = np.asarray(input_offsets, dtype=np.float32).astype(np.float64)
    outs = np.asarray(output_offsets, dtype=np.float32).astype(np.float64)
    picks = []
    sizes = output_sizes or [math.floor(size * scale) for size, scale in zip(x.shape, scales)]
    for size, scale, i, o, count in zip(x.shape, scales, ins, outs, sizes):
        output = np.arange(count, dtype=np.float64)
        coordinate = (output - o) / scale - i
        picks.append(np.clip(rounding(coordinate), 0, size - 1).astype(np.intp))
    return x[np.ix_(*picks)]
