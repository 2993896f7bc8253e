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
    if params.get("InterpolationMode") == r.LINEAR:
        return f"{r.LINEAR}: the linear modes belong to issue 26; only {r.NEAREST} is tested"
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


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    scale_width, scale_height = params["ScaleSize"]
    # The rank is not known here: a 4-D and a 5-D case share one spec; the scales are built per shape
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
    onnx_route="Resize (opset 13), nearest, asymmetric with floor, scales 1 but for the last two dimensions",
    to_onnx=to_onnx,
    onnx_for_shape=for_shape,
    source=page("DML_UPSAMPLE_2D_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,
    notes=(r.LINEAR_REFUSED,
           "The page's one support table (4 to 5-D, FLOAT32, FLOAT16, DML_FEATURE_LEVEL_1_0) of its 2020 copy "
           "(MicrosoftDocs/sdk-api); later tables, if any, were not read.",
           "The page does not say how a tie is broken; with integer scales no output pixel centre is "
           "equally near two input pixel centres."),
)
