"""What UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2 and RESAMPLE3 share in their nearest-neighbour
modes: the fields, the support tables read from their pages, the shape rules and checks, the source of
each output element (the pages' coordinate formula as index arithmetic, written apart from the oracle)
and the ONNX route (Resize, where one coordinate transformation and nearest mode is the same mapping).

The pages' relation: OutputTensorX = (InputTensorX + InputPixelOffset) * Scale + OutputPixelOffset, so
an output element o reads the input at x = (o - OutputPixelOffset) / Scale - InputPixelOffset, rounded
as each page says and clamped into the input ("the output edges are clamped")."""
import itertools
import math

import numpy as np

from conformance.specs.accumulation import Dot
from conformance.specs.base import FLOATS, NotReachable, OnnxNode, Parameter, SupportTable
from oracle.resampling import LINEAR, coordinates, interpolate

NEAREST = "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR"
INCREASING, DECREASING = "DML_AXIS_DIRECTION_INCREASING", "DML_AXIS_DIRECTION_DECREASING"
# DML_RESAMPLE_OPERATOR_DESC has no pixel offsets; DML_RESAMPLE1's page: "When the InputPixelOffsets are
# set to 0.5, and the OutputPixelOffsets are set to -0.5, this operator is equivalent to" it
CENTRE_OFFSETS = (0.5, -0.5)
ONE_TO_FOUR = (1, 2, 3, 4)
INT8_UINT8 = ("int8", "uint8")
# DML_RESAMPLE's and DML_RESAMPLE1's pages: 4-D FLOAT32/16 at their first level, 1 to 4-D from 5_1,
# INT8 and UINT8 from 6_2
RESAMPLE_TABLES = (SupportTable("6_2", ONE_TO_FOUR, FLOATS + INT8_UINT8), SupportTable("5_1", ONE_TO_FOUR, FLOATS))
SAME_TYPE_AND_RANK = "InputTensor and OutputTensor must have the same DataType and DimensionCount."
LINEAR_NOTE = (f"{LINEAR} (\"linear (including bilinear, trilinear, etc.)\", DML_INTERPOLATION_MODE's page, "
               "its only words on it): each output element the multilinear interpolation of the 2^D input "
               "elements around its coordinate, clamped into the input as nearest's is, judged by the sound "
               "interval of that formula with the coordinates computed in float32 (each within 6 units of "
               "roundoff of the terms of its formula: the exact value's range over them joins the bound) and "
               "the weighted sum of 2^D + 3D operations (gamma(2^D + 3D) times the sum of the elements read); "
               "INT8 and UINT8 (RESAMPLE and RESAMPLE1 from 6_2): the page gives no rounding of the interpolated "
               "value to the integer type, so any integer from the floor to the ceiling of its float32 interval.")


def rounded_integers(params) -> bool:
    """OperatorSpec.rounded_integers: the LINEAR mode's integer outputs."""
    return params.get("InterpolationMode") == LINEAR
# The output sizes: the pages leave them to the OutputTensor ("the scales don't need to be exactly
# OutputSize / InputSize"): floor(InputSize * Scale), as UPSAMPLE_2D's page and ONNX's Resize take them,
# unless a case gives OutputSizes
OUTPUT_SIZES_NOTE = ("OutputTensor.Sizes[i] = floor(InputTensor.Sizes[i] * Scales[i]) unless a case gives "
                     "OutputSizes (no field): larger, the output's edges clamped; smaller, the output cropped.")
OUTPUT_SIZES = Parameter("OutputSizes", "uint_array", None,
                         "No field: the output tensor's sizes, which the pages let differ from InputSize * Scale "
                         "(\"If the input after scaling is larger than the output bound, then we crop it ... if "
                         "smaller, the output edges are clamped\"); unset: floor(InputSize * Scale).",
                         sizes_of="OutputTensor")

INTERPOLATION = Parameter("InterpolationMode", "enum", NEAREST,
                          "A DML_INTERPOLATION_MODE: NEAREST_NEIGHBOR chooses the input element nearest to the "
                          "output element's coordinate; LINEAR interpolates the 2^D elements around it "
                          "(bilinear, trilinear, ...).",
                          choices=(NEAREST, LINEAR), enum_values={NEAREST: 0, LINEAR: 1})
ROUNDING = Parameter("RoundingDirection", "enum", DECREASING,
                     "A DML_AXIS_DIRECTION: the direction to round along each axis when mapping fractional "
                     "coordinates back to input pixels: INCREASING ceil, DECREASING floor (nearest neighbour "
                     "only). The page gives no default; the harness's is DECREASING.",
                     choices=(INCREASING, DECREASING), enum_values={INCREASING: 0, DECREASING: 1})


def scales(count: str) -> Parameter:
    return Parameter("Scales", "float_array", None,
                     "The scale of each dimension: > 1 scales up, < 1 scales down; need not be exactly "
                     "OutputSize / InputSize.", count=count)


def offsets(name: str, usual: float) -> Parameter:
    when = "before" if name.startswith("Input") else "after"
    return Parameter(name, "float_array", None,
                     f"The offset of each dimension's pixels {when} resampling ({usual} for pixel centres, "
                     "DML_RESAMPLE's behaviour; 0: the top left corner).", count="DimensionCount")


def pixel_offsets(params) -> tuple:
    """(InputPixelOffsets, OutputPixelOffsets) as float32, DML_RESAMPLE's where the page has none."""
    rank = len(params["Scales"])
    given = [params.get("InputPixelOffsets"), params.get("OutputPixelOffsets")]
    return tuple(np.float32(CENTRE_OFFSETS[k] if v is None else v) * np.ones(rank, np.float32)
                 for k, v in enumerate(given))


def scaled_sizes(input_shape, params) -> tuple:
    """floor(InputTensor.Sizes[i] * Scales[i]) (FLOAT Scales, float32)."""
    return tuple(math.floor(n * float(np.float32(s))) for n, s in zip(input_shape, params["Scales"]))


def resample_shapes(input_shapes, params) -> tuple:
    """The case's OutputSizes, else floor(InputTensor.Sizes[i] * Scales[i])."""
    given = params.get("OutputSizes")
    return (tuple(given) if given is not None else scaled_sizes(input_shapes[0], params),)


def resample_check(input_shapes, params) -> str | None:
    shape, given = input_shapes[0], params.get("Scales")
    if given is None:
        return "Scales is required: one value per input dimension"
    if len(given) != len(shape):
        return f"Scales has {len(given)} values; InputTensor has {len(shape)} dimensions (the count must match)"
    for name in ("InputPixelOffsets", "OutputPixelOffsets"):
        if name in params and params[name] is None:
            return f"{name} is required: one value per input dimension"
    if not all(np.isfinite(s) and s > 0 for s in given):
        return f"Scales {list(given)}: each must be a finite number larger than 0"
    sizes = params.get("OutputSizes")
    if sizes is not None and len(sizes) != len(shape):
        return f"OutputSizes has {len(sizes)} values; InputTensor has {len(shape)} dimensions"
    if sizes is not None and min(sizes) < 1:
        return f"OutputSizes {list(sizes)}: each at least 1"
    empty = [i for i, n in enumerate(resample_shapes(input_shapes, params)[0]) if n < 1]
    if empty:
        return f"Scales {list(given)} make output dimension {empty[0]} empty (floor(size * scale) = 0)"
    return None


def nearest(output_index, sizes, scale, input_offset, output_offset, rounding) -> np.ndarray:
    """One axis: the input index output_index reads, the page's inverse mapping rounded by `rounding`
    (a function of float64) and clamped into [0, sizes - 1]."""
    x = (np.asarray(output_index, dtype=np.float64) - float(output_offset)) / float(scale) - float(input_offset)
    return np.clip(rounding(x), 0, sizes - 1).astype(np.intp)


def half_up(x):
    """Round to nearest, halves toward increasing values: floor(x + 0.5)."""
    return np.floor(x + 0.5)


def sources(rounding_of) -> callable:
    """source_index of a RESAMPLE version: rounding_of(params) -> the rounding of every axis."""
    def source_index(output_index, inputs, params) -> tuple:
        sizes, rounding = np.shape(inputs[0]), rounding_of(params)
        ins, outs = pixel_offsets(params)
        scale = np.asarray(params["Scales"], dtype=np.float32)
        which = np.zeros(np.shape(output_index[0]), dtype=np.intp)
        return which, tuple(nearest(o, n, s, i, p, rounding)
                            for o, n, s, i, p in zip(output_index, sizes, scale, ins, outs))
    return source_index


# ONNX Resize's coordinate transformations as (InputPixelOffset, OutputPixelOffset): x_original =
# (x_resized - OutputPixelOffset) / scale - InputPixelOffset
ONNX_TRANSFORMS = {(0.5, -0.5): "half_pixel", (0.0, 0.0): "asymmetric", (0.0, -0.5): "tf_half_pixel_for_nn"}
# Resize's nearest modes as the rounding of x_original they are, and how far each moves the input offset
# of the transformation it is paired with: round_prefer_ceil(x) = floor(x + 0.5), round_prefer_floor(x) =
# ceil(x - 0.5)
ONNX_NEAREST = {("floor", 0.0): "floor", ("ceil", 0.0): "ceil",
                ("floor", -0.5): "round_prefer_ceil", ("ceil", 0.5): "round_prefer_floor"}


# Resize's linear coordinate transformations as (InputPixelOffset, OutputPixelOffset)
ONNX_LINEAR_TRANSFORMS = {(0.5, -0.5): "half_pixel", (0.0, 0.0): "asymmetric"}


def _resize_linear(params: dict) -> OnnxNode:
    """Resize-13, linear, where one of its coordinate transformations is every axis's pixel offsets."""
    scales = [float(np.float32(s)) for s in params["Scales"]]
    if len(scales) not in (2, 4) or any(s != 1 for s in scales[:-2]):
        raise NotReachable(f"Scales {scales}: ONNX Runtime's CPU linear Resize takes 2-D inputs or 4-D ones whose "
                           "first two scales are 1")
    pairs = {(float(i), float(o)) for i, o in zip(*pixel_offsets(params))}
    transform = ONNX_LINEAR_TRANSFORMS.get(next(iter(pairs))) if len(pairs) == 1 else None
    if transform is None:
        raise NotReachable(f"pixel offsets {sorted(pairs)}: no Resize coordinate transformation of its linear mode "
                           "(half_pixel: 0.5 and -0.5 on every axis; asymmetric: 0 and 0)")
    return OnnxNode("Resize", 13, {"mode": "linear", "coordinate_transformation_mode": transform},
                    constant_inputs=(np.zeros(0, np.float32), np.asarray(params["Scales"], np.float32)), alone=True)


def half_up_as_floor(offsets_) -> tuple:
    """floor(x + 0.5) is floor of x computed with the input offset 0.5 smaller: ("floor", offsets)."""
    ins, outs = offsets_
    return "floor", (np.asarray(ins, np.float64) - 0.5, outs)


def resize(params: dict, direction: str, offsets_) -> OnnxNode:
    """Resize-13, nearest, where every axis has one pair of offsets that one of ONNX's coordinate
    transformations and nearest modes computes exactly (direction: "floor" or "ceil" of x)."""
    if params.get("OutputSizes") is not None:
        raise NotReachable("OutputSizes: Resize's output sizes are floor(InputSize * scale), or its scales "
                           "OutputSize / InputSize")
    if params.get("InterpolationMode") == LINEAR:
        return _resize_linear(params)
    if params.get("Antialiased"):
        raise NotReachable("Antialiased: Resize's antialias applies to its linear and cubic modes only")
    ins, outs = offsets_
    pairs = {(float(i), float(o)) for i, o in zip(ins, outs)}
    if len(pairs) != 1:
        raise NotReachable(f"pixel offsets differ between axes ({sorted(pairs)}): Resize's coordinate "
                           "transformation is one for every axis")
    (given_in, given_out), = pairs
    shift = -given_out - given_in  # x = o + shift on an axis of scale 1
    if 1.0 in (float(s) for s in params["Scales"]) and not (0 <= shift < 1 if direction == "floor" else -1 < shift <= 0):
        raise NotReachable("an axis of scale 1 whose offsets move it: ONNX Runtime keeps such an axis as it is "
                           "(docs/findings/issue25-resample_nearest.md)")
    for (onnx_in, onnx_out), transform in ONNX_TRANSFORMS.items():
        mode = ONNX_NEAREST.get((direction, given_in - onnx_in))
        if onnx_out == given_out and mode:
            return OnnxNode("Resize", 13, {"mode": "nearest", "coordinate_transformation_mode": transform,
                                           "nearest_mode": mode},
                            constant_inputs=(np.zeros(0, np.float32), np.asarray(params["Scales"], np.float32)),
                            alone=True)
    raise NotReachable(f"InputPixelOffset {given_in}, OutputPixelOffset {given_out}, rounding {direction}: "
                       "no Resize coordinate transformation and nearest mode maps coordinates so")


# The LINEAR mode's coordinates, x = (o - OutputPixelOffset) / Scale - InputPixelOffset, computed by a device in
# float32 (a subtraction, a division (2.5 ULP) or a reciprocal (1 ULP) and a product, a subtraction; or o times
# the reciprocal plus -OutputPixelOffset / Scale - InputPixelOffset folded in float32, the worst: 2 |o / Scale| +
# 5.5 |OutputPixelOffset / Scale| + |InputPixelOffset| + |x| units): within COORDINATE_ROUNDINGS units of
# roundoff of each term's magnitude
COORDINATE_ROUNDINGS = 6
_U = 2.0 ** -23
_FLUSHED = 2.0 ** -126


def linear_step(mapping) -> Dot:
    """The LINEAR mode as a Dot whose weights the device computes: mapping(input shape, params) -> per axis
    (Scale, InputPixelOffset, OutputPixelOffset, output size)."""
    def axes(inputs, params):
        x = np.asarray(inputs[0], dtype=np.float64)
        return x, [tuple(axis) for axis in mapping(x.shape, params)]

    def exact(inputs, params):
        x, chosen = axes(inputs, params)
        return interpolate(x, coordinates(x.shape, *zip(*chosen)))

    def candidates(inputs, params):
        """Each axis's coordinates at both ends of their error, and an integer between them where there is one
        (the interpolation is linear between integers: its range over the box is at these corners)."""
        x, chosen = axes(inputs, params)
        exact_coordinates = coordinates(x.shape, *zip(*chosen))
        sets = []
        for (scale, ins, outs, count), c in zip(chosen, exact_coordinates):
            scale, ins, outs = (float(np.float32(v)) for v in (scale, ins, outs))
            q = (np.arange(count) - outs) / scale
            if scale == 1 and np.all(q.astype(np.float32) == q) and np.all(c.astype(np.float32) == c):
                sets.append((c,))  # every operation exact in float32 (a division by 1, representable results)
                continue
            error = COORDINATE_ROUNDINGS * _U * (np.abs(q) + np.abs(c) + abs(outs) / scale + abs(ins)) + _FLUSHED
            if np.any(error >= 0.5):  # the candidates below hold one integer at most
                raise ValueError(f"LINEAR coordinates up to {np.abs(c).max():g}: their float32 rounding spans "
                                 "more than one input element; the judge bounds coordinates below 2^20")
            between = np.ceil(c - error)
            sets.append((c - error, c + error, np.where(between < c + error, between, c)))
        return x, sets, exact_coordinates

    def spread(inputs, params):
        x, sets, exact_coordinates = candidates(inputs, params)
        x = np.where(np.isfinite(x), x, 0.0)
        centre = interpolate(x, exact_coordinates)
        reach = np.zeros(centre.shape)
        for corner in itertools.product(*sets):
            reach = np.maximum(reach, np.abs(interpolate(x, corner) - centre))
        return reach

    def magnitude(inputs, params):
        x, sets, _ = candidates(inputs, params)
        return np.maximum.reduce([interpolate(x, corner, magnitude=True)
                                  for corner in itertools.product(*[c[:2] for c in sets])])

    def count(inputs, params):
        rank = np.ndim(inputs[0])
        return 2 ** rank + 3 * rank

    def reach(inputs, params):
        """Where a NaN or infinite element lies among those the candidate coordinates read: the interpolation in
        IEEE arithmetic at each corner of their box (a coordinate at an integer reads the next element with weight
        0, NaN times an infinity or a NaN; one just below it reads the element before instead)."""
        x = np.asarray(inputs[0], dtype=np.float64)
        if np.isfinite(x).all():
            return (False,) * 4
        _, sets, _ = candidates(inputs, params)
        seen = []
        with np.errstate(invalid="ignore"):
            for corner in itertools.product(*sets):
                v = interpolate(x, corner)
                seen.append((np.isfinite(v), np.isnan(v), v == np.inf, v == -np.inf))
        return tuple(np.logical_or.reduce(parts) for parts in zip(*seen))
    return Dot("Output", exact, magnitude, count, spread, reach)


def resample_mapping(shape, params):
    """RESAMPLE to RESAMPLE3: each axis's Scale, pixel offsets (DML_RESAMPLE's 0.5 and -0.5) and output size."""
    ins, outs = pixel_offsets(params)
    return zip(params["Scales"], ins, outs, resample_shapes((shape,), params)[0])


def linear_accumulation(mappings):
    """OperatorSpec.accumulation: params -> the LINEAR mode's alternatives (one per reading of the coordinates
    in `mappings`), none for nearest neighbour (a copy, judged exactly)."""
    steps = tuple((linear_step(mapping),) for mapping in mappings)
    return lambda params: steps if params.get("InterpolationMode") == LINEAR else ()


def ulp_tolerance(input_shapes, params, dtype) -> int:
    """WebNN's resample2d count: linear 84 (float32), 10 (float16); nearest neighbour 0"""
    return {"float32": 84, "float16": 10}.get(dtype, 1) if params.get("InterpolationMode") == LINEAR else 0
