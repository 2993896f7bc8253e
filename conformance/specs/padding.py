import numpy as np

from conformance import featurelevels
from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, NotReachable, OnnxNode,
                                    OperatorSpec, Parameter, SupportTable, page)
from conformance.specs.families import DATA_MOVEMENT
from oracle.padding import MODES, value_in_tensor_type

CONSTANT, EDGE, REFLECTION, SYMMETRIC, WRAP = MODES
# The level each mode appears at (the page: SYMMETRIC from 3_0; DirectML.h and the 1.15 notes: WRAP from 6_4)
MODE_LEVELS = {SYMMETRIC: "3_0", WRAP: "6_4"}
ONNX_MODES = {CONSTANT: "constant", EDGE: "edge", REFLECTION: "reflect", WRAP: "wrap"}
ALL_TYPES = ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32

PADDING_MODE = Parameter(
    "PaddingMode", "enum", CONSTANT,
    "How the padding regions are filled: CONSTANT (PaddingValue), EDGE (each dimension's edge value), REFLECTION "
    "(mirrored, the edge not repeated), SYMMETRIC (mirrored, the edge repeated; FL 3_0), WRAP (periodic; FL 6_4).",
    choices=MODES, enum_values={name: value for value, name in enumerate(MODES)})
PADDINGS = (Parameter("StartPadding", "uint_array", None, "The padding before each dimension's elements.",
                      count="DimensionCount"),
            Parameter("EndPadding", "uint_array", None, "The padding after each dimension's elements.",
                      count="DimensionCount"))
FORMULA = ("OutputTensor.Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]; OutputTensor[o] = "
           "InputTensor[o - StartPadding] inside, the padding filled as PaddingMode says")


def output_shapes(input_shapes, params) -> tuple:
    """OutputTensor.Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]."""
    return (tuple(n + s + e for n, s, e in zip(input_shapes[0], params["StartPadding"], params["EndPadding"])),)


def shape_check(input_shapes, params) -> str | None:
    start, end = params.get("StartPadding"), params.get("EndPadding")
    if start is None or end is None:
        return "StartPadding and EndPadding are required: one value per input dimension"
    if len(start) != len(input_shapes[0]):
        return (f"DimensionCount {len(start)} (the length of StartPadding and EndPadding) must be "
                f"InputTensor.DimensionCount {len(input_shapes[0])}")
    return None


def mode_level(introduced: str):
    """parameter_level of an operator introduced at that level: the level of a mode that came later."""
    def parameter_level(params: dict) -> str | None:
        level = MODE_LEVELS.get(params.get("PaddingMode"))
        return level if level and featurelevels.index(level) > featurelevels.index(introduced) else None
    return parameter_level


def source_index(output_index, inputs, params) -> tuple:
    """The input element an output element copies, per dimension from its place p = o - StartPadding:
    EDGE clamps p, REFLECTION folds it with period 2(n - 1), SYMMETRIC with period 2n, WRAP takes p mod n;
    CONSTANT's padding is no input element (-1)."""
    mode = params["PaddingMode"]
    inside = np.ones(np.shape(output_index[0]), dtype=bool)
    index = []
    for o, n, s in zip(output_index, np.shape(inputs[0]), params["StartPadding"]):
        p = np.asarray(o, dtype=np.int64) - s
        if mode == REFLECTION and n > 1:
            q = p % (2 * (n - 1))
            index.append(np.where(q < n, q, 2 * (n - 1) - q))
        elif mode == SYMMETRIC:
            q = p % (2 * n)
            index.append(np.where(q < n, q, 2 * n - 1 - q))
        elif mode == WRAP:
            index.append(p % n)
        else:  # CONSTANT inside, EDGE, and REFLECTION of one element: the nearest element
            inside &= (mode != CONSTANT) | ((p >= 0) & (p < n))
            index.append(np.clip(p, 0, n - 1))
    return np.where(inside, 0, -1), tuple(index)


def onnx_route(padding_value):
    """to_onnx of PADDING and PADDING1: Pad with the pads and the constant (padding_value(params, dtype),
    in the tensor's type) as initializers; SYMMETRIC has no ONNX mode. Alone: a shared graph's (1,)
    placeholder is refused by a Pad whose pads have another length."""
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        mode = params["PaddingMode"]
        if mode not in ONNX_MODES:
            raise NotReachable(f"{mode}: ONNX's Pad has no symmetric mode")
        pads = np.array(list(params["StartPadding"]) + list(params["EndPadding"]), dtype=np.int64)
        constants = (pads, np.array(padding_value(params, dtype), dtype=dtype)) if mode == CONSTANT else (pads,)
        return OnnxNode("Pad", 19 if mode == WRAP else 18, {"mode": ONNX_MODES[mode]}, constants, alone=True)
    return to_onnx


def onnx_for_shape(node: OnnxNode, shape) -> OnnxNode:
    """ONNX Runtime's Pad refuses reflect pads beyond a dimension's size less one (and any on a dimension
    of one element), which DirectML's page allows (padding folded again over the padding)."""
    if node.attributes.get("mode") == "reflect":
        pads = node.constant_inputs[0]
        rank = len(shape)
        if any(max(pads[i], pads[rank + i]) > n - 1 for i, n in enumerate(shape)):
            raise NotReachable("ONNX Runtime's Pad refuses reflect padding wider than a dimension's size less one")
    return node


TO_ONNX = onnx_route(lambda params, dtype: value_in_tensor_type(params["PaddingValue"], dtype))

SPEC = OperatorSpec(
    name="PADDING",
    struct="DML_PADDING_OPERATOR_DESC",
    formula=FORMULA,
    summary="Inflates the input tensor with constant or mirrored values on the edges, and writes the result to "
            "the output.",
    parameters=(PADDING_MODE,
                Parameter("PaddingValue", "float", 0.0,
                          "The value of CONSTANT's padding (ignored by the other modes); a FLOAT, truncated in an "
                          "integer tensor (10.6 becomes 10)."),
                *PADDINGS),
    introduced="1_0",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, ALL_TYPES),
            SupportTable("3_1", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
            SupportTable("2_1", (4, 5), FLOATS + INTEGERS_32),
            SupportTable("1_0", (4, 5), FLOATS)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DataType and DimensionCount. DimensionCount "
                "(the length of StartPadding and EndPadding) is InputTensor's.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # a copy: exact
    onnx_route="Pad (opset 18; 19 for wrap) with the pads and the constant value as initializers; "
               "SYMMETRIC not reachable",
    to_onnx=TO_ONNX,
    onnx_for_shape=onnx_for_shape,
    source=page("DML_PADDING_OPERATOR_DESC"),
    family=DATA_MOVEMENT,
    parameter_level=mode_level("1_0"),
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    source_index=source_index,
    integers=lambda params, dtype: None,  # a copy: no integer arithmetic to state
    notes=("PaddingValue in an integer tensor: the page says truncated (10.6 becomes 10); beyond the type's "
           "range it wraps here, two's complement (the page is silent; DirectML 1.15 wraps: -10.6 in UINT8 is 246).",
           "DML_PADDING_MODE_WRAP (FL 6_4) is in DirectML.h and the DirectML 1.15 release notes, not on the page: "
           "its semantics here are ONNX Pad's wrap (periodic).",
           "REFLECTION of a dimension of one element copies that element (the page is silent).",
           "ONNX Runtime's Pad: no SYMMETRIC; reflect no wider than a dimension's size less one; no INT16 or UINT16 "
           "on the CPU provider."),
)
