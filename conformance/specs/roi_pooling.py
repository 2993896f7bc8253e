import numpy as np

from conformance.specs.base import FLOATS, Input, OnnxNode, OperatorSpec, Output, Parameter, SupportTable, page
from conformance.specs.families import WINDOW
from oracle import roi_pooling as oracle_roi

STRUCT = "DML_ROI_POOLING_OPERATOR_DESC"
POOLED_SIZE = Parameter("PooledSize", "size_2d", None,
                        "A DML_SIZE_2D {Width, Height} (written {array: [Width, Height]}): the ROI pool output size, "
                        "the last 2 dimensions of OutputTensor.")


def output_shapes(input_shapes, params) -> tuple:
    """{NumROIs, InputChannelCount, PooledSize.Height, PooledSize.Width}."""
    width, height = params["PooledSize"]
    return ((input_shapes[1][2], input_shapes[0][1], height, width),)


def shape_check(input_shapes, params) -> str | None:
    data, rois = input_shapes
    if len(data) != 4:
        return f"InputTensor has {len(data)} dimensions: {{BatchCount, ChannelCount, InputHeight, InputWidth}}"
    if len(rois) != 4 or rois[:2] != (1, 1) or rois[3] != 5:
        return f"ROITensor {list(rois)}: the page expects {{1, 1, NumROIs, 5}} ([BatchID, x1, y1, x2, y2] per ROI)"
    size = params.get("PooledSize")
    if size is None or len(size) != 2 or min(size) < 1:
        return f"PooledSize {size}: a DML_SIZE_2D [Width, Height], each at least 1"
    return None


def values_check(name: str, values, input_shapes, params) -> str | None:
    """The page's ROIs: BatchID a batch of InputTensor, x2 >= x1 and y2 >= y1."""
    if name != "ROI":
        return None
    if values is None:
        return "ROI's values are the case file's: {kind: values}, [BatchID, x1, y1, x2, y2] per ROI"
    for k, (batch, x1, y1, x2, y2) in enumerate(np.asarray(values, dtype=np.float64).reshape(-1, 5)):
        if batch != int(batch) or not 0 <= batch < input_shapes[0][0]:
            return f"ROI {k}: BatchID {batch} is not a batch of InputTensor (0 to {input_shapes[0][0] - 1})"
        if not (x2 >= x1 and y2 >= y1):
            return f"ROI {k}: [x1 {x1}, y1 {y1}, x2 {x2}, y2 {y2}]: the page requires x2 >= x1 and y2 >= y1"
    return None


def _copied(flat, data_shape) -> tuple:
    which = np.where(flat >= 0, 0, -1)
    return which, np.unravel_index(np.maximum(flat, 0), data_shape)


def source_index(output_index, inputs, params) -> tuple:
    """The input element each output element copies: the first maximum of its bin; -1: an empty bin."""
    data, rois = inputs
    flat = oracle_roi.sources(np.asarray(data), rois, params["SpatialScale"], params["PooledSize"],
                              params.get("nan_rule", "d3d"))
    return _copied(flat[output_index], np.shape(data))


def source_alternatives(output_index, inputs, params) -> list:
    """The page's `round` is silent on halves: a corner at x.5 rounded to even instead."""
    data, rois = inputs
    flat = oracle_roi.sources(np.asarray(data), rois, params["SpatialScale"], params["PooledSize"],
                              params.get("nan_rule", "d3d"), rounding=np.round)
    return [_copied(flat[output_index], np.shape(data))]


def empty_bins(inputs, params) -> np.ndarray:
    """The bins the clamping leaves empty, the page's round read either way at halves: the page does not
    say what they hold."""
    data, rois = inputs
    return np.logical_or.reduce([oracle_roi.sources(np.asarray(data), rois, params["SpatialScale"],
                                                    params["PooledSize"], rounding=rounding) < 0
                                 for rounding in (oracle_roi.round_half_away, np.round)])


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    width, height = params["PooledSize"]
    # Alone: a (1,) placeholder is no 4-D input or (NumROIs, 5) ROI tensor
    return OnnxNode("MaxRoiPool", 1, {"pooled_shape": [height, width],
                                      "spatial_scale": float(np.float32(params["SpatialScale"]))}, alone=True)


def onnx_shapes(input_shapes, params) -> tuple:
    """MaxRoiPool takes the ROIs as (num_rois, 5)."""
    return (input_shapes[0], (input_shapes[1][2], 5))


SPEC = OperatorSpec(
    name="ROI_POOLING",
    struct=STRUCT,
    formula="x1 = round(RoiX1 * SpatialScale) (x2, y1, y2 alike); RegionHeight = y2 - y1 + 1; "
            "StartY = (Y * RegionHeight) / PooledSize.Height + y1; "
            "EndY = ((Y + 1) * RegionHeight + PooledSize.Height - 1) / PooledSize.Height + y1 (X alike), "
            "clamped to the input; Output[r, c, Y, X] = max(Input[BatchID, c, StartY:EndY, StartX:EndX])",
    summary="Performs a MaxPool function across the input tensor (according to regions of interest, or ROIs).",
    parameters=(Parameter("SpatialScale", "float", 1.0, "Multiplicative spatial scale factor used to translate the "
                          "ROI coordinates from their input scale to the scale used when pooling."),
                POOLED_SIZE),
    inputs=(Input("InputTensor", broadcast=False, aliases_output=False),
            Input("ROITensor", role="rois", broadcast=False, aliases_output=False)),
    outputs=(Output("OutputTensor", undefined=empty_bins),),
    introduced="1_0",
    tables=(SupportTable("1_0", (4,), FLOATS),),
    in_place=False,
    constraints="InputTensor, OutputTensor, and ROITensor must have the same DataType. ROITensor {1, 1, NumROIs, 5}, "
                "each ROI [BatchID, x1, y1, x2, y2] with x2 >= x1, y2 >= y1; OutputTensor {NumROIs, "
                "InputChannelCount, PooledSize.Height, PooledSize.Width}.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a maximum is one of its inputs: exact
    onnx_route="MaxRoiPool (opset 1) with pooled_shape [Height, Width] and spatial_scale, the ROIs as (NumROIs, 5)",
    to_onnx=to_onnx,
    source=page(STRUCT),
    family=WINDOW,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    values_check=values_check,
    source_index=source_index,
    source_alternatives=source_alternatives,
    onnx_shapes=onnx_shapes,
    integers=lambda params, dtype: None,
    notes=("The page's one table (1_0: 4-D, FLOAT32 and FLOAT16 for all three tensors) is transcribed whole.",
           "The page's `round` does not say how halves go: the oracle rounds them away from zero (C's round), a "
           "device rounding them to even passes too (source_alternatives).",
           "The page's divisions are of integers (floor); StartY and the exclusive EndY are clamped to [0, height].",
           "The page does not say what a bin left empty by the clamping (a ROI outside the input) holds: any value "
           "is accepted there (Output.undefined); the oracle writes 0.",
           "The page does not say how a NaN in a bin compares: Direct3D's max (a NaN operand yields the other); "
           "equal values keep the first in row-major order."),
)
