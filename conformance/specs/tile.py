import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, OnnxNode, OperatorSpec,
                                    Parameter, SupportTable, page)
from conformance.specs.families import DATA_MOVEMENT


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i]."""
    return (tuple(n * r for n, r in zip(input_shapes[0], params["Repeats"])),)


def shape_check(input_shapes, params) -> str | None:
    repeats = params.get("Repeats")
    if repeats is None:
        return "Repeats is required: one value per input dimension"
    if len(repeats) != len(input_shapes[0]):
        return (f"RepeatsCount {len(repeats)} (the length of Repeats) must be InputTensor.DimensionCount "
                f"{len(input_shapes[0])}")
    if any(r <= 0 for r in repeats):
        return f"Repeats {list(repeats)}: values must be larger than 0"
    return None


def source_index(output_index, inputs, params) -> tuple:
    """The input element an output element copies: its index modulo the input's sizes."""
    which = np.zeros(np.shape(output_index[0]), dtype=np.intp)
    return which, tuple(np.asarray(o) % n for o, n in zip(output_index, np.shape(inputs[0])))


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    # Alone: a shared graph's (1,) placeholder is refused by a Tile whose repeats have another length
    return OnnxNode("Tile", 13, constant_inputs=(np.array(params["Repeats"], dtype=np.int64),), alone=True)


SPEC = OperatorSpec(
    name="TILE",
    struct="DML_TILE_OPERATOR_DESC",
    formula="OutputTensor[o] = InputTensor[o mod InputTensor.Sizes], "
            "OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i]",
    summary="Constructs an output tensor by tiling the input tensor: each dimension's elements repeated "
            "Repeats[i] times.",
    parameters=(Parameter("Repeats", "uint_array", None,
                          "The number of tiled copies of each input dimension, in order; larger than 0.",
                          count="RepeatsCount"),),
    introduced="1_0",
    # The page's tables as far as the stored copies show them (4_1, 3_1); those of lower levels were not read
    tables=(SupportTable("4_1", ONE_TO_EIGHT, FLOATS + INTEGERS_64 + INTEGERS_32),
            SupportTable("3_1", ONE_TO_EIGHT, FLOATS + INTEGERS_32)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType. OutputTensor has the input's "
                "DimensionCount; RepeatsCount is InputTensor.DimensionCount.",
    tolerance_ulp={"float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Tile (opset 13) with the repeats as an int64 initializer",
    to_onnx=to_onnx,
    source=page("DML_TILE_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    # A copy: no arithmetic on integers to state (None: the registry's Python-int comparison, on 1-D
    # inputs of the element-wise shape, does not apply)
    integers=lambda params, dtype: None,
    notes=("The page's support tables below DML_FEATURE_LEVEL_3_1 are not transcribed (not read).",),
)
