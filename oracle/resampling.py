"""Nearest-neighbour resampling as the DML_RESAMPLE pages write it: OutputTensorX = (InputTensorX +
InputPixelOffset) * Scale + OutputPixelOffset, so each output element o copies the input element at
round((o - OutputPixelOffset) / Scale - InputPixelOffset), clamped into the input ("the output edges are
clamped"). FLOAT fields are float32; the coordinates are computed in float64 from them. The output sizes
are the case's OutputSizes (the output tensor's), else floor(InputSize * Scale): "If the input after scaling
is larger than the output bound, then we crop it to the output size. On the other hand, if the input after
scaling is smaller than the output bound, the output edges are clamped." A copy: float inputs keep their bits (the modules say READS_BITS).
LINEAR ("linear (including bilinear, trilinear, etc.)"): the multilinear interpolation, in float64, of the input
elements around that coordinate clamped into the input (linear())."""
import math

import numpy as np

LINEAR = "DML_INTERPOLATION_MODE_LINEAR"


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


def coordinates(sizes, scales, input_offsets, output_offsets, output_sizes) -> list:
    """Each axis's input coordinate of every output index, x = (o - OutputPixelOffset) / Scale - InputPixelOffset,
    in float64 from the float32 fields."""
    scales, ins, outs = (np.asarray(v, dtype=np.float32).astype(np.float64)
                         for v in (scales, input_offsets, output_offsets))
    return [(np.arange(count, dtype=np.float64) - o) / s - i for s, i, o, count in zip(scales, ins, outs, output_sizes)]


def taps(coordinate, size) -> tuple:
    """The two input indices around a coordinate clamped into [0, size - 1], and the second one's weight."""
    clamped = np.clip(coordinate, 0, size - 1)
    first = np.floor(clamped)
    return first.astype(np.intp), np.minimum(first + 1, size - 1).astype(np.intp), clamped - first


def interpolate(x, coordinates_, magnitude=False) -> np.ndarray:
    """The multilinear interpolation of x (float64) at each axis's coordinates: along each axis
    (1 - f) * x[i] + f * x[i + 1]; magnitude: the sum of |x| over the 2^D elements it reads instead."""
    y = np.abs(x) if magnitude else x
    for axis, coordinate in enumerate(coordinates_):
        first, second, f = taps(coordinate, x.shape[axis])
        shape = [1] * x.ndim
        shape[axis] = -1
        low, high = np.take(y, first, axis=axis), np.take(y, second, axis=axis)
        y = low + high if magnitude else low * (1 - f).reshape(shape) + high * f.reshape(shape)
    return y


def linear(x, scales, input_offsets, output_offsets, output_sizes=None):
    """The LINEAR mode: x interpolated at every output element's coordinate, in float64."""
    x = np.asarray(x, dtype=np.float64)
    sizes = output_sizes or [math.floor(size * float(np.float32(scale))) for size, scale in zip(x.shape, scales)]
    return interpolate(x, coordinates(x.shape, scales, input_offsets, output_offsets, sizes))
