from conformance.specs import roi_aligning as a
from conformance.specs.base import OperatorSpec, page
from conformance.specs.families import WINDOW

STRUCT = "DML_ROI_ALIGN1_OPERATOR_DESC"

SPEC = OperatorSpec(
    name="ROI_ALIGN1",
    struct=STRUCT,
    formula="X1 = x1 * SpatialScaleX, X2 = x2 * SpatialScaleX (Y alike); n = clamp(ceil((X2 - X1) / OutputWidth), "
            "MinimumSamplesPerOutput, MaximumSamplesPerOutput); sample s of output X (X * n <= s < X * n + n) at "
            "x = (s - OutputPixelOffset) * (X2 - X1) / (OutputWidth * n) + X1 - InputPixelOffset "
            "(AlignRegionsToCorners: divided by OutputWidth * n - 1; y alike); OutputTensor[r, c, Y, X] = "
            "the average (or maximum) over its n_Y * n_X samples of the bilinear (or nearest) interpolation of "
            "InputTensor[BatchIndices[r], c] at (x, y), elements outside the input read as OutOfBoundsInputValue",
    summary="Performs an ROI align operation, as described in the Mask R-CNN paper: extracts cropped windows from the "
            "input image tensor and resizes them to a common output size (OutputTensor's last 2 dimensions) using "
            "the specified InterpolationMode.",
    inputs=a.INPUTS,
    parameters=a.FIELDS_BEFORE + a.PIXEL_OFFSETS + (a.OUT_OF_BOUNDS, a.MINIMUM, a.MAXIMUM, a.CORNERS) + a.NO_FIELDS,
    introduced="4_0",
    tables=a.tables("4_0"),
    parameter_level=a.parameter_level,
    in_place=False,
    constraints=a.SAME_TYPE + " Regions may be empty (every output from one input coordinate) or inverted (x2 < x1: "
                "mirrored).",
    tolerance_ulp={},
    ulp_tolerance=a.ulp_tolerance,
    onnx_route="RoiAlign (opset 16), as ONNX Runtime's DirectML provider maps it: InputPixelOffset 0.5 half_pixel, "
               "0 output_half_pixel; OutputPixelOffset -0.5; one spatial_scale; LINEAR; sampling_ratio Min (Min = Max) "
               "or 0 (Min 1, Max UINT32_MAX); OutOfBoundsInputValue 0; AlignRegionsToCorners FALSE",
    to_onnx=a.to_onnx,
    source=page(STRUCT),
    family=WINDOW,
    output_shapes_rule=a.output_shapes,
    shape_check=a.shape_check,
    values_check=a.values_check,
    index_bounds=a.index_bounds,
    onnx_shapes=a.onnx_shapes,
    outputs=a.OUTPUTS,
    accumulation=a.accumulation,
    integers=lambda params, dtype: None,
    notes=("BatchIndicesTensor: UINT32 from 4_0, UINT64 from 5_0 (BatchIndicesType).",) + a.NOTES,
)
