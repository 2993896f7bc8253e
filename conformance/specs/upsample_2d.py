import numpy as np

from conformance.specs import resampling as r
from conformance.specs.base import FLOATS, OnnxNode, OperatorSpec, Parameter, SupportTable, page
from conformance.specs.families import DATA_MOVEMENT

UINT_MAX = 2**32 - 1
SCALE_SIZE = Parameter("ScaleSize", "size_2d", None,
                       "A DML_SIZE_2D {Width, Height} (written {array: [Width, Height]}): the UINT scales of the "
                       "last two dimensions; 0 < Height <= UINT_MAX / InputHeight, 0 < Width <= UINT_MAX / "
                       "InputWidth.")


def output_shapes(input_shapes, params) -> tuple:
    """{..., InputHeight * HeightScale, InputWidth * WidthScale} (4-D NCHW, 5-D NCDHW)."""
    *rest, height, width = input_shapes[0]
    scale_width, scale_height = params["ScaleSize"]
    return ((*rest, height * scale_height, width * scale_width),)


def shape_check(input_shapes, params) -> str | None:
    *_, height, width = input_shapes[0]
    if params.get("ScaleSize") is None:
        return "ScaleSize is required: {array: [Width, Height]}"
    if len(params["ScaleSize"]) != 2:
        return f"ScaleSize {params['ScaleSize']}: a DML_SIZE_2D is [Width, Height]"
    scale_width, scale_height = params["ScaleSize"]
    if not 0 < scale_height <= UINT_MAX // height or not 0 < scale_width <= UINT_MAX // width:
        return (f"ScaleSize [Width {scale_width}, Height {scale_height}]: the page needs 0 < Height <= "
                f"UINT_MAX / InputHeight ({height}) and 0 < Width <= UINT_MAX / InputWidth ({width})")
    return None


def source_index(output_index, inputs, params) -> tuple:
    """Integer scales: the pixel centre of output element o maps to (o + 0.5) / scale - 0.5, whose
    nearest input element is o // scale (never a tie)."""
    scale_width, scale_height = params["ScaleSize"]
    rank = len(output_index)
    scales = [1] * (rank - 2) + [scale_height, scale_width]
    which = np.zeros(np.shape(output_index[0]), dtype=np.intp)
    return which, tuple(np.asarray(o) // s for o, s in zip(output_index, scales))


def mapping(offsets):
    """The LINEAR mode's coordinates under one reading of the page (its only words: "linear (including bilinear,
    trilinear, etc.)"): ScaleSize on the last two axes, the pixel offsets (InputPixelOffset, OutputPixelOffset)
    on every axis."""
    def axes(shape, params):
        scale_width, scale_height = params["ScaleSize"]
        scales = [1] * (len(shape) - 2) + [scale_height, scale_width]
        return [(s, offsets[0], offsets[1], n * s) for s, n in zip(scales, shape)]
    return axes


# Pixel centres (RESAMPLE's (o + 0.5) / scale - 0.5, the nearest mode's reading) or corners (o / scale, ONNX
# Upsample's, which ONNX Runtime's DirectML provider maps to this operator): the page says neither
READINGS = (r.CENTRE_OFFSETS, (0.0, 0.0))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    scale_width, scale_height = params["ScaleSize"]
    # The rank is not known here: a 4-D and a 5-D case share one spec; the scales are built per shape
    if params.get("InterpolationMode") == r.LINEAR:
        return OnnxNode("Resize", 13, {"mode": "linear", "coordinate_transformation_mode": "half_pixel"},
                        constant_inputs=(np.zeros(0, np.float32), np.array([scale_height, scale_width], np.float32)),
                        alone=True)
    return OnnxNode("Resize", 13, {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
                                   "nearest_mode": "floor"},
                    constant_inputs=(np.zeros(0, np.float32), np.array([scale_height, scale_width], np.float32)),
                    alone=True)


def for_shape(node: OnnxNode, shape) -> OnnxNode:
    from dataclasses import replace
    roi, last_two = node.constant_inputs
    scales = np.concatenate([np.ones(len(shape) - 2, np.float32), last_two])
    return replace(node, constant_inputs=(roi, scales))


SPEC = OperatorSpec(
    name="UPSAMPLE_2D",
    struct="DML_UPSAMPLE_2D_OPERATOR_DESC",
    formula="OutputTensor[..., h, w] = InputTensor[..., floor(h / ScaleSize.Height), floor(w / ScaleSize.Width)] "
            "(nearest neighbour: the input element nearest to each output pixel centre)",
    summary="Upsamples the last two dimensions (height, width) of a 4-D NCHW or 5-D NCDHW input by integer "
            "scales; nearest neighbour repeats each element ScaleSize times along each.",
    parameters=(SCALE_SIZE, r.INTERPOLATION),
    introduced="1_0",
    tables=(SupportTable("1_0", (4, 5), FLOATS),),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and DimensionCount.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Resize (opset 13), nearest, asymmetric with floor (LINEAR: linear, half_pixel), scales 1 but for "
               "the last two dimensions",
    to_onnx=to_onnx,
    onnx_for_shape=for_shape,
    source=page("DML_UPSAMPLE_2D_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,
    accumulation=r.linear_accumulation(tuple(mapping(offsets) for offsets in READINGS)),
    ulp_tolerance=r.ulp_tolerance,
    notes=(r.LINEAR_NOTE,
           "LINEAR: the page does not say where an output element's coordinate lies: the judge accepts the "
           "interpolation at pixel centres ((o + 0.5) / scale - 0.5, the oracle's) or at corners (o / scale, ONNX "
           "Upsample's); the ONNX route is Resize's half_pixel.",
           "The page's one support table (4 to 5-D, FLOAT32, FLOAT16, DML_FEATURE_LEVEL_1_0) of its 2020 copy "
           "(MicrosoftDocs/sdk-api); later tables, if any, were not read.",
           "The page does not say how a tie is broken; with integer scales no output pixel centre is "
           "equally near two input pixel centres."),
)
