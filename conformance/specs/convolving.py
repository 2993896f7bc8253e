"""What the convolution pages share (CONVOLUTION, CONVOLUTION_INTEGER, QUANTIZED_LINEAR_CONVOLUTION): the
window fields, the output sizes and the check of a filter against its input (the arithmetic is
oracle/convolution.py's), and the ONNX attributes."""
from conformance.specs.base import Parameter
from oracle.convolution import dilated, output_channels, output_spatial

WINDOW = ("Strides", "Dilations", "StartPadding", "EndPadding")


def window_fields(output_padding: bool) -> tuple:
    """Strides, Dilations, StartPadding, EndPadding (and OutputPadding), their count DimensionCount."""
    said = {"Strides": "The filter's step over the input in each spatial dimension.",
            "Dilations": "The distance between the filter's taps in each spatial dimension (1: adjacent).",
            "StartPadding": "Zeros before each spatial dimension of the input (BACKWARD: cropped from the "
                            "start of the output).",
            "EndPadding": "Zeros after each spatial dimension of the input (BACKWARD: cropped from the end "
                          "of the output).",
            "OutputPadding": "More output positions at the end of each spatial dimension."}
    names = WINDOW + (("OutputPadding",) if output_padding else ())
    return tuple(Parameter(n, "uint_array", None, said[n], count="DimensionCount") for n in names)


def output_shape(input_shape, filter_shape, params, backward: bool = False) -> tuple:
    groups = int(params.get("GroupCount") or 1)
    spatial = output_spatial(input_shape[2:], filter_shape[2:], params, backward)
    return (input_shape[0], output_channels(filter_shape, groups, backward), *spatial)


def problem(input_shape, filter_shape, params, backward: bool = False) -> str | None:
    """Why this filter cannot convolve this input with these fields (one line), or None."""
    rank = len(input_shape)
    if len(filter_shape) != rank:
        return f"FilterTensor has {len(filter_shape)} dimensions, InputTensor {rank}: they must have the same"
    names = WINDOW + (("OutputPadding",) if "OutputPadding" in params and params["OutputPadding"] is not None
                      else ())
    for name in names:
        if params.get(name) is None or len(params[name]) != rank - 2:
            return f"{name} must give one value per spatial dimension: DimensionCount {rank - 2} for a {rank}-D input"
    for name in ("Strides", "Dilations"):
        if any(v < 1 for v in params[name]):
            return f"{name} {list(params[name])}: values must be at least 1"
    groups = int(params.get("GroupCount") or 1)
    channels = input_shape[1]
    if groups < 1 or channels % groups:
        return f"GroupCount {groups} must divide InputChannelCount {channels}"
    if backward:
        if filter_shape[0] != channels:
            return (f"FilterTensor's FilterBatchCount {filter_shape[0]} must be InputChannelCount {channels} "
                    "(BACKWARD: {InputChannelCount, OutputChannelCount / GroupCount, kernel...})")
    else:
        if filter_shape[1] * groups != channels:
            return (f"FilterTensor's FilterChannelCount {filter_shape[1]} times GroupCount {groups} must be "
                    f"InputChannelCount {channels}")
        if filter_shape[0] % groups:
            return f"GroupCount {groups} must divide FilterBatchCount (OutputChannelCount) {filter_shape[0]}"
        for i, n in enumerate(input_shape[2:]):
            padded = n + params["StartPadding"][i] + params["EndPadding"][i]
            if padded < dilated(filter_shape[2 + i], params["Dilations"][i]):
                return (f"spatial dimension {i}: the dilated filter's extent is larger than the padded input "
                        f"{n} + {params['StartPadding'][i]} + {params['EndPadding'][i]}")
    if any(s < 1 for s in output_spatial(input_shape[2:], filter_shape[2:], params, backward)):
        return "the output would have no element along some spatial dimension (padding crops it all)"
    return None


def per_channel_problem(name: str, shape, channels: int, rank: int) -> str | None:
    """A tensor the page gives as {1, channels, 1, ...} (a bias, a per-channel zero point or scale)."""
    if len(shape) != rank or shape[1] != channels or any(shape[i] != 1 for i in range(rank) if i != 1):
        return f"{name} {list(shape)} must be {[1, channels] + [1] * (rank - 2)}"
    return None


def onnx_attributes(params) -> dict:
    """Conv, ConvTranspose, ConvInteger and QLinearConv's attributes (kernel_shape: the filter's own)."""
    return {"strides": [int(v) for v in params["Strides"]],
            "dilations": [int(v) for v in params["Dilations"]],
            "pads": [int(v) for v in params["StartPadding"]] + [int(v) for v in params["EndPadding"]],
            "group": int(params.get("GroupCount") or 1)}


def taps_per_output(filter_shape, input_channels: int, groups: int) -> int:
    """The products each output sums: the group's input channels times the filter's taps (an upper
    bound for BACKWARD, whose outputs near the edges take fewer)."""
    count = input_channels // groups
    for k in filter_shape[2:]:
        count *= int(k)
    return count
