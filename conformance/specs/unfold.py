import numpy as np

from conformance.specs.base import ALL_TYPES, OperatorSpec, Parameter, SupportTable, no_onnx, page
from conformance.specs.families import WINDOW
from oracle import windows
from oracle.unfold import window

FIELDS = (
    Parameter("WindowSizes", "uint_array", None, "The size of the sliding window.", count="DimensionCount"),
    Parameter("Strides", "uint_array", None, "The step of the sliding window in the input spatial dimensions.",
              count="DimensionCount"),
    Parameter("Dilations", "uint_array", None, "The dilations of the sliding window (the space between the kernel "
              "points scaled).", count="DimensionCount"),
    Parameter("StartPadding", "uint_array", None, "Implicit zero-padding before each spatial dimension.",
              count="DimensionCount"),
    Parameter("EndPadding", "uint_array", None, "Implicit zero-padding after each spatial dimension.",
              count="DimensionCount"))


def output_shapes(input_shapes, params) -> tuple:
    """(N, C * prod(WindowSizes), BlockCount), BlockCount the product of BlocksPerDimension: 3-D whatever
    the input's DimensionCount, as the page's text and example say and DirectML takes (its constraint
    "the same DimensionCount" is not what DirectML does: docs/findings/issue25-window.md)."""
    shape = input_shapes[0]
    blocks = windows.output_sizes(shape, window(params))[2:]
    return ((shape[0], shape[1] * int(np.prod(params["WindowSizes"])), int(np.prod(blocks))),)


def shape_check(input_shapes, params) -> str | None:
    return windows.problem(input_shapes[0], window(params), empty_windows=True)


def source_index(output_index, inputs, params) -> tuple:
    """Output (.., n, c * K + k, b) copies the input element window position k of block b reads in
    channel c; -1 (the page's implicit zero) where that position is padding."""
    x = np.asarray(inputs[0])
    index, valid = windows.taps(x.shape, window(params))
    k = valid.shape[-1]
    blocks = valid.shape[2:-1]
    n, row, b = (np.asarray(i) for i in output_index)
    at = (n, row // k, *np.unravel_index(b, blocks), row % k)
    which = np.where(valid[at], 0, -1)
    return which, tuple(axis[at] for axis in index)


SPEC = OperatorSpec(
    name="UNFOLD",
    struct="DML_UNFOLD_OPERATOR_DESC",
    formula="OutputTensor[n, c * prod(WindowSizes) + k, b] = InputTensor[n, c, the window position k of block b] "
            "(0 in the padding); BlocksPerDimension[d] = (SpatialSize[d] + StartPadding[d] + EndPadding[d] - "
            "Dilations[d] * (WindowSizes[d] - 1) - 1) / Strides[d] + 1",
    summary="Extracts sliding local blocks from a batched input tensor: each WindowSizes'd block flattened into "
            "a column of OutputTensor (N, C x prod(WindowSizes), BlockCount).",
    parameters=FIELDS,
    introduced="6_4",
    # The page's table gives dimension counts (3 to 8) and leaves the data types blank: every type DirectML has
    tables=(SupportTable("6_4", (3, 4, 5, 6, 7, 8), ALL_TYPES),),
    in_place=False,
    constraints="The page: InputTensor and OutputTensor must have the same DimensionCount (DirectML takes a "
                "3-D OutputTensor for every input: see notes); DimensionCount (the spatial dimensions) in [1, 6].",
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route="none: ONNX has no Unfold (im2col) operator",
    to_onnx=no_onnx("ONNX has no Unfold (im2col) operator"),
    source=page("DML_UNFOLD_OPERATOR_DESC").replace("win32/api/directml", "ai/directml/api"),
    family=WINDOW,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,
    notes=("The page's tensor support table leaves the data types blank: the cases try every DirectML type.",
           "The page describes OutputTensor as 3-D (N, C x prod(WindowSizes), BlockCount) and also requires "
           "InputTensor's DimensionCount. DirectML 1.15.4 takes the 3-D output for 3- to 8-D inputs and refuses "
           "(E_INVALIDARG) that output written with leading sizes of 1, or as (N, C x prod(WindowSizes), "
           "*BlocksPerDimension): the cases use the 3-D output (docs/findings/issue25-window.md).",
           "Introduced in DirectML 1.15.1 (DML_FEATURE_LEVEL_6_4)."),
)
