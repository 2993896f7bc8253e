"""What QUANTIZE and DEQUANTIZE (6_3) share: the QuantizationType field, the QuantizationTensors array
(the scale, then the zero point), blocked quantization sizes and the struct's order."""
from conformance.specs.base import ONE_TO_EIGHT, Input, Parameter
from oracle.quantization import QUANTIZATION_TYPES, SCALE_ZERO_POINT, spread, tensor_count

QUANTIZATION_TYPE = Parameter(
    "QuantizationType", "enum", SCALE_ZERO_POINT,
    "DML_QUANTIZATION_TYPE: SCALE (QuantizationTensors holds the scale) or SCALE_ZERO_POINT (the scale, then "
    "the zero point); NONE is refused at load (no quantization to judge).",
    choices=tuple(QUANTIZATION_TYPES), enum_values=QUANTIZATION_TYPES)
QUANTIZATION_SIZES = Parameter(
    "QuantizationSizes", "uint_array", None,
    "No field: the sizes of the scale and zero point tensors, which the page lets a case choose (the same "
    "DimensionCount): InputTensor.Sizes[i] / QuantizationSizes[i] elements share one value along dimension i "
    "(1: one value for the dimension; InputTensor.Sizes[i]: one per element); unset: InputTensor's sizes.",
    sizes_of="QuantizationTensors")
STRUCT_ORDER = ("InputTensor", "QuantizationType", "QuantizationTensorCount", "QuantizationTensors", "OutputTensor")
RANKS = ONE_TO_EIGHT


def tensors(scale_dtype, zero_point_dtype) -> tuple:
    """InputTensor, then the QuantizationTensors array: the scale, the zero point."""
    return (Input("InputTensor"),
            Input("QuantizationTensors", count="QuantizationTensorCount", aliases_output=False,
                  members=(Input("ScaleTensor", role="scale", aliases_output=False, dtype=scale_dtype),
                           Input("ZeroPointTensor", role="zero_point", aliases_output=False, dtype=zero_point_dtype)),
                  length=tensor_count))


def input_shapes(shape, params) -> tuple:
    """The case's shape is InputTensor's; each quantization tensor has QuantizationSizes (unset: the same)."""
    sizes = tuple(params.get("QuantizationSizes") or shape)
    return (tuple(shape),) + (sizes,) * tensor_count(params)


def output_shapes(input_shapes, params) -> tuple:
    return (tuple(input_shapes[0]),)


def shape_check(input_shapes, params) -> str | None:
    if params.get("QuantizationType") == "DML_QUANTIZATION_TYPE_NONE":
        return "QuantizationType DML_QUANTIZATION_TYPE_NONE: no quantization tensors, nothing the pages define to judge"
    shape, sizes = input_shapes[0], input_shapes[1]
    if len(sizes) != len(shape):
        return (f"QuantizationSizes {list(sizes)} must have InputTensor's DimensionCount {len(shape)} (the page: "
                "the same DimensionCount)")
    if any(m == 0 or n % m for n, m in zip(shape, sizes)):
        return (f"QuantizationSizes {list(sizes)}: each must divide InputTensor.Sizes {list(shape)} (blocks of one "
                "size)")
    return None


NOTES = ("The pages' text is TBD (fields, Availability 6_3, the tensor table); the harness reads QuantizationTensors "
         "as the scale then, for SCALE_ZERO_POINT, the zero point, and a quantization tensor of smaller sizes as "
         "blocked: InputTensor.Sizes[i] / QuantizationSizes[i] consecutive elements share one value along i.",
         "INT4 and UINT4 (in the tables) have no numpy type and no bound tensors here: not tested.",
         "QuantizationType NONE is refused at load: the pages do not say what it computes.")


def spread_inputs(x, params) -> tuple:
    """Each quantization tensor repeated over its blocks to InputTensor's shape (the judge's view)."""
    return (x[0],) + tuple(spread(t, x[0].shape) for t in x[1:])


def onnx_layout(shape, sizes):
    """How QuantizeLinear-21 and DequantizeLinear-21 take quantization tensors of these sizes for an input
    of this shape: ("tensor",), ("axis", i) (1-D of the input's size along i), ("blocked", i, block) (the
    input's rank, blocked along i), or None where ONNX has no such layout (blocks along two dimensions)."""
    shape, sizes = tuple(shape), tuple(sizes or shape)
    if all(m == 1 for m in sizes):
        return ("tensor",)
    differ = [i for i, (n, m) in enumerate(zip(shape, sizes)) if n != m]
    if not differ:
        return ("blocked", 0, 1)
    if len(differ) == 1:
        return ("blocked", differ[0], shape[differ[0]] // sizes[differ[0]])
    kept = [i for i, m in enumerate(sizes) if m != 1]
    return ("axis", kept[0]) if len(kept) == 1 and sizes[kept[0]] == shape[kept[0]] else None


# to_onnx has the fields, not the input's shape: it leaves QuantizationSizes in this attribute, which
# onnx_for_shape (always applied, with the shape) turns into axis and block_size and never lets through
SIZES_KEY = "_quantization_sizes"


def onnx_node(op_type: str, output_type: str, params: dict):
    """The node, its attributes left to onnx_for_shape."""
    from conformance.specs.base import OnnxNode
    return OnnxNode(op_type, 21, attributes={SIZES_KEY: params.get("QuantizationSizes")}, alone=True,
                    output_type=output_type)


def onnx_for_shape(node, shape):
    from dataclasses import replace

    from conformance.specs.base import NotReachable
    layout = onnx_layout(shape, node.attributes.get(SIZES_KEY))
    if layout is None:
        raise NotReachable(f"{node.op_type}-21: no ONNX layout of quantization tensors blocked along two "
                           "dimensions (one axis at most)")
    attributes = {} if layout[0] == "tensor" else {"axis": layout[1]}
    if layout[0] == "blocked":
        attributes["block_size"] = layout[2]
    return replace(node, attributes=attributes)


def onnx_shapes(input_shapes, params) -> tuple:
    """The quantization tensors as ONNX takes them: a scalar per tensor, 1-D per axis, else as they are."""
    layout = onnx_layout(input_shapes[0], input_shapes[1])
    if layout is None or layout[0] == "blocked":
        return tuple(input_shapes)
    own = () if layout[0] == "tensor" else (input_shapes[0][layout[1]],)
    return (tuple(input_shapes[0]),) + (own,) * (len(input_shapes) - 1)
