"""DML_CONVOLUTION: OutputTensor = FusedActivation(the convolution of FilterTensor with InputTensor +
BiasTensor broadcast over each output channel), in float64 (the judge bounds this float64 sum's own
error: conformance/judge/accumulated.py).

The convolution, per output element o of output channel m in group g (GroupCount groups of the input
channels and of the output channels), for each spatial dimension i:
- FORWARD: sum over the group's input channels c and the filter taps k of
  Input[c, o * Strides[i] + k * Dilations[i] - StartPadding[i]] * Filter[m, c, k] (a position outside
  the input reads 0); FilterTensor is {OutputChannelCount, InputChannelCount / GroupCount, kernel...}.
- BACKWARD (transposed): the adjoint: each Input[c, j] * Filter[c, m, k] adds to output position
  j * Strides[i] + k * Dilations[i] - StartPadding[i]; FilterTensor is {InputChannelCount,
  OutputChannelCount / GroupCount, kernel...} (ONNX ConvTranspose's, as ONNX Runtime's DirectML
  provider passes it).
- Mode CONVOLUTION flips the filter along every spatial dimension first (the page's table: relative to
  CROSS_CORRELATION in either direction).
- OutputPadding: OutputPadding[i] more output positions at the end of each spatial dimension, zeros
  (the page: "a zero padding to the result of the convolution"; DirectML.dll under Wine (dml-direct)
  writes 0 there in both directions, the bias not added, the fused activation applied to the 0). ONNX ConvTranspose's output_padding
  computes those positions instead (its bias added, EndPadding's cropped contributions kept).
The sums run one filter tap at a time (a matrix product over the group's channels): exact where the
arrays are integers (CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION use the same routine).
The fused activation is its own oracle applied to the sum rounded to the tensor type, as the unfused
layers give (oracle/element_wise_add1.py), after the output padding; FusedActivation None, or {"Type":
name, its fields}.
"""
import itertools

import numpy as np

OPERATOR = "CONVOLUTION"
OWN_SHAPES = True
MODES = ("DML_CONVOLUTION_MODE_CONVOLUTION", "DML_CONVOLUTION_MODE_CROSS_CORRELATION")  # DirectML.h's order
DIRECTIONS = ("DML_CONVOLUTION_DIRECTION_FORWARD", "DML_CONVOLUTION_DIRECTION_BACKWARD")
WINDOW_FIELDS = ("Strides", "Dilations", "StartPadding", "EndPadding")
DEFAULTS = {"BiasTensor": "present", "Mode": MODES[1], "Direction": DIRECTIONS[0], "Strides": None,
            "Dilations": None, "StartPadding": None, "EndPadding": None, "OutputPadding": None, "GroupCount": 1,
            "FusedActivation": None, "ExecutionFlags": "NONE"}


def dilated(kernel: int, dilation: int) -> int:
    return (kernel - 1) * dilation + 1


def output_spatial(input_spatial, kernel, fields: dict, backward: bool) -> tuple:
    """Each spatial output size: FORWARD (in + start + end - dilated kernel) // stride + 1, BACKWARD
    stride * (in - 1) + dilated kernel - start - end (ONNX Conv's and ConvTranspose's), plus OutputPadding."""
    sizes = []
    for i, (n, k) in enumerate(zip(input_spatial, kernel)):
        extent = dilated(k, fields["Dilations"][i])
        pads = fields["StartPadding"][i] + fields["EndPadding"][i]
        base = (fields["Strides"][i] * (n - 1) + extent - pads if backward
                else (n + pads - extent) // fields["Strides"][i] + 1)
        sizes.append(base + (fields.get("OutputPadding") or [0] * len(kernel))[i])
    return tuple(sizes)


def output_channels(filter_shape, groups: int, backward: bool) -> int:
    return filter_shape[1] * groups if backward else filter_shape[0]


def convolve(x: np.ndarray, w: np.ndarray, fields: dict, backward: bool = False, flip: bool = False) -> np.ndarray:
    """The convolution of x {N, C, spatial...} with w by the fields (Strides, Dilations, StartPadding,
    EndPadding, OutputPadding, GroupCount), without bias; float64 or int64 as the arrays are."""
    groups = int(fields.get("GroupCount") or 1)
    rank = x.ndim - 2
    kernel = w.shape[2:]
    if flip:
        w = w[(slice(None), slice(None)) + (slice(None, None, -1),) * rank]
    out_spatial = output_spatial(x.shape[2:], kernel, fields, backward)
    batch, channels = x.shape[0], x.shape[1]
    per_group = channels // groups
    out_channels = output_channels(w.shape, groups, backward)
    xg = x.reshape(batch, groups, per_group, *x.shape[2:])
    # the filter as {group, output channel of the group, input channel of the group, taps...}
    if backward:
        wg = np.swapaxes(w.reshape(groups, per_group, w.shape[1], *kernel), 1, 2)
    else:
        wg = w.reshape(groups, out_channels // groups, per_group, *kernel)
    dtype = np.result_type(x.dtype, w.dtype)
    strides, dilations, start = fields["Strides"], fields["Dilations"], fields["StartPadding"]
    # positions run in a margin wide enough for every tap's reach on either side
    margin = [dilated(k, d) + s * (n + o) + p for k, d, s, n, o, p in
              zip(kernel, dilations, strides, x.shape[2:], out_spatial, start)]
    if backward:
        out = np.zeros((batch, groups, out_channels // groups, *(o + 2 * m for o, m in zip(out_spatial, margin))),
                       dtype=dtype)
    else:
        padded = np.zeros((batch, groups, per_group, *(n + 2 * m for n, m in zip(x.shape[2:], margin))), dtype=dtype)
        padded[(Ellipsis,) + tuple(slice(m, m + n) for m, n in zip(margin, x.shape[2:]))] = xg
        out = np.zeros((batch, groups, out_channels // groups, *out_spatial), dtype=dtype)
    for tap in itertools.product(*(range(k) for k in kernel)):
        weights = wg[(slice(None), slice(None), slice(None)) + tap]  # {groups, out, in}
        offsets = [t * d - p for t, d, p in zip(tap, dilations, start)]
        if backward:  # input position j adds to output position j * stride + offset
            where = tuple(slice(m + off, m + off + s * (n - 1) + 1, s)
                          for m, off, s, n in zip(margin, offsets, strides, x.shape[2:]))
            out[(Ellipsis,) + where] += np.einsum("goc,ngc...->ngo...", weights, xg)
        else:  # output position o reads input position o * stride + offset
            where = tuple(slice(m + off, m + off + s * (o - 1) + 1, s)
                          for m, off, s, o in zip(margin, offsets, strides, out_spatial))
            out += np.einsum("goc,ngc...->ngo...", weights, padded[(slice(None),) * 3 + where])
    if backward:
        out = out[(Ellipsis,) + tuple(slice(m, m + o) for m, o in zip(margin, out_spatial))]
    return out.reshape(batch, out_channels, *out_spatial)


def output_padded(values: np.ndarray, fields: dict) -> np.ndarray:
    """values with OutputPadding[i] zeros after each spatial dimension i."""
    padding = [int(v) for v in fields.get("OutputPadding") or [0] * (values.ndim - 2)]
    return np.pad(values, [(0, 0), (0, 0)] + [(0, p) for p in padding])


def unpadded(fields: dict) -> dict:
    return {**fields, "OutputPadding": None}


def window_fields(fields: dict) -> dict:
    return {name: [int(v) for v in fields[name]] for name in WINDOW_FIELDS} | {
        "OutputPadding": [int(v) for v in fields.get("OutputPadding") or [0] * len(fields["Strides"])],
        "GroupCount": int(fields.get("GroupCount") or 1)}


def convolution(inputs, fields: dict, magnitude: bool = False) -> np.ndarray:
    """The float64 sum of products (no bias) of a CONVOLUTION case's InputTensor and FilterTensor, without the
    output padding; magnitude: of their magnitudes (the judge's sum |products|)."""
    x, w = (np.asarray(v, dtype=np.float64) for v in inputs[:2])
    if magnitude:
        x, w = np.abs(x), np.abs(w)
    with np.errstate(all="ignore"):
        return convolve(x, w, window_fields(unpadded(fields)), backward=fields.get("Direction") == DIRECTIONS[1],
                        flip=fields.get("Mode") == MODES[0])


def reference(x, dtype: str, nan_rule="d3d", BiasTensor="present", Mode=MODES[1], Direction=DIRECTIONS[0],
              Strides=None, Dilations=None, StartPadding=None, EndPadding=None, OutputPadding=None, GroupCount=1,
              FusedActivation=None, ExecutionFlags="NONE") -> np.ndarray:
    fields = {"Mode": Mode, "Direction": Direction, "Strides": Strides, "Dilations": Dilations,
              "StartPadding": StartPadding, "EndPadding": EndPadding, "OutputPadding": OutputPadding,
              "GroupCount": GroupCount}
    total = convolution(x, fields)
    if BiasTensor == "present":
        total = total + np.asarray(x[2], dtype=np.float64)
    total = output_padded(total, fields)
    if FusedActivation is None:
        return total
    import oracle  # this package: its registry imports this module while it discovers operators
    from oracle.rounding import round_to
    activation = {k: v for k, v in FusedActivation.items() if k != "Type"}
    return oracle.reference(FusedActivation["Type"], round_to(total, dtype), dtype, nan_rule=nan_rule, **activation)
