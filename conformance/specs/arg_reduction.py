"""What DML_ARGMIN_OPERATOR_DESC and DML_ARGMAX_OPERATOR_DESC share (the pages differ in the extreme
alone): their fields, tables, shape rule (the reduction family's), ONNX route and index judge."""
from conformance.specs import indices
from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, NotReachable, OnnxNode,
                                    OperatorSpec, Output, Parameter, SupportTable, page)
from conformance.specs.families import REDUCTION
from oracle.arg_extreme import DECREASING, INCREASING, output_dtype

INDEX_TYPES = ("int64", "int32", "uint64", "uint32")  # OutputTensor's, at every level
# Both pages' tables: InputTensor's types (OutputTensor: INDEX_TYPES in both), 1 to 8 dimensions
TABLES = (SupportTable("4_1", ONE_TO_EIGHT, FLOATS + INTEGERS_64 + INTEGERS_32),
          SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32))
# ONNX Runtime's CPU ArgMax and ArgMin (1.32) take these input types alone
ONNX_CPU_TYPES = ("float32", "float16", "int32", "int8", "uint8", "int64")


def parameters(word: str) -> tuple:
    return (Parameter("Axes", "uint_array", None,
                      "The axes along which to reduce, each in [0, InputTensor.DimensionCount - 1].",
                      count="AxisCount"),
            Parameter("AxisDirection", "enum", INCREASING,
                      f"A DML_AXIS_DIRECTION: which index to select when several elements hold the {word} value: "
                      "INCREASING the first, DECREASING the last.",
                      choices=tuple(indices.AXIS_DIRECTIONS), enum_values=dict(indices.AXIS_DIRECTIONS)),
            Parameter("OutputType", "tensor_type", None,
                      "Not a field: OutputTensor's data type, INT64, INT32, UINT64 or UINT32 (INT64 where a case "
                      "leaves it unset; the pages give no default).",
                      choices=INDEX_TYPES, unset=output_dtype, tensors=("OutputTensor",)))


def onnx_route(op_type: str):
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        axes = params["Axes"]
        if len(axes) != 1:
            raise NotReachable(f"{op_type} reduces one axis; Axes {list(axes)} reduces {len(axes)} together")
        if dtype not in ONNX_CPU_TYPES:
            raise NotReachable(f"ONNX Runtime's CPU {op_type} has no tensor({dtype}) input")
        if output_dtype(dtype, params.get("OutputType")) != "int64":
            raise NotReachable(f"{op_type} writes tensor(int64) alone (OutputType {params['OutputType']} would need a "
                               "Cast, another operator, which ONNX Runtime's DirectML provider refuses after it)")
        return OnnxNode(op_type, 13, attributes={"axis": int(axes[0]), "keepdims": 1,
                                                 "select_last_index": int(params["AxisDirection"] == DECREASING)},
                        output_type="int64", alone=True)
    return to_onnx


def arg_spec(name: str, word: str, extreme, op_type: str, summary: str) -> OperatorSpec:
    """word: "minimum" or "maximum"; extreme: np.min or np.max; op_type: ONNX's ArgMin or ArgMax."""
    struct = f"DML_{name}_OPERATOR_DESC"
    return OperatorSpec(
        name=name, struct=struct,
        formula=f"OutputTensor[o] = the index, counted over Axes, of the {word}-valued element of the slice of "
                f"InputTensor at o along Axes (the first of equal ones for INCREASING, the last for DECREASING); "
                "OutputTensor.Sizes = InputTensor.Sizes with each axis in Axes of size 1",
        summary=summary,
        parameters=parameters(word),
        introduced="3_0",
        tables=TABLES,
        in_place=False,
        constraints="InputTensor and OutputTensor must have the same DimensionCount. OutputTensor.Sizes must match "
                    "InputTensor.Sizes except for the axes in Axes, which must be 1. OutputTensor is INT64, INT32, "
                    "UINT64 or UINT32.",
        tolerance_ulp={},  # an index: exact, or one of the set the page allows (conformance/judge/indices.py)
        onnx_route=f"{op_type} (opset 13), one axis, keepdims=1, select_last_index=1 for DECREASING, OutputType "
                   "INT64 (ONNX writes no other index type); several axes together are not reachable",
        to_onnx=onnx_route(op_type),
        source=page(struct),
        family=REDUCTION,
        output_dtype=output_dtype,
        outputs=(Output("OutputTensor", allowed=lambda inputs, params: indices.reduction_allowed(inputs, params,
                                                                                                extreme)),),
        integers=lambda params, dtype: None,  # an index, not integer arithmetic on the input
        notes=(f"The index counts over the reduced axes together, row-major in the tensor's own axis order (the "
               f"page's example: Axes {{0, 1}} of a 3x3 input gives 7 for the element at [2, 1]). Where Axes is not "
               f"ascending the page does not say which order counts: the judge accepts either.",
               f"NaN: the page is silent. The oracle leaves NaN out (Direct3D's min and max return the non-NaN "
               f"operand); the judge accepts, for a slice holding NaN, the {word} of its other values (by "
               f"AxisDirection) or any of its NaNs. -0 and +0 are equal values (a tie).",
               "OutputType is no field: OutputTensor's DataType, chosen by the case (ids OutputType=int64); "
               "INT64 where a case leaves it unset (the pages give no default; ONNX's ArgMax and ArgMin write INT64 "
               "alone, so only INT64 cases reach ONNX Runtime). The pages' examples are UINT32 cases.",
               "The pages do not say what an empty Axes (AxisCount 0) would mean, nor a reduced axis of size 0 "
               "(a slice with no element has no index): the harness refuses both at load, and an axis named "
               "twice. No case has an empty dimension that is not reduced.",
               "The pages' tables give OutputTensor INT64, INT32, UINT64 and UINT32 at both levels (4_1, 3_0); "
               "both are transcribed."),
    )
