import numpy as np

from conformance.specs.base import ONE_TO_EIGHT, OnnxNode, OperatorSpec, SupportTable, page
from conformance.specs.families import GENERATOR
from conformance.specs.generated import (ALL_TYPES, OUTPUT_SIZES_FIELD, TYPES_4_0, VALUE_DATA_TYPE, all_filled,
                                         no_integer_formula, scalar, scalars_check)
from conformance.specs.shapes import OUTPUT_SIZES
from oracle.generated import union_value


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """ConstantOfShape: the output's sizes an int64 initializer, the value a one-element tensor attribute."""
    from onnx import numpy_helper
    value = np.array([union_value(params.get("Value"), dtype)], dtype=dtype)
    # Alone: its shape initializer is the case's own
    return OnnxNode("ConstantOfShape", 9, attributes={"value": numpy_helper.from_array(value)},
                    constant_inputs=(np.array(params[OUTPUT_SIZES], dtype=np.int64),), alone=True)


SPEC = OperatorSpec(
    name="FILL_VALUE_CONSTANT",
    struct="DML_FILL_VALUE_CONSTANT_OPERATOR_DESC",
    formula="OutputTensor[coordinate] = Value for each coordinate (Value of ValueDataType)",
    summary="Fills a tensor with the given constant Value.",
    parameters=(VALUE_DATA_TYPE,
                scalar("Value", "A constant value to fill the output, with ValueDataType determining how to interpret "
                       "the field."),
                OUTPUT_SIZES_FIELD),
    introduced="2_1",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ALL_TYPES),
            SupportTable("4_0", ONE_TO_EIGHT, TYPES_4_0),
            SupportTable("2_1", (4,), TYPES_4_0)),
    in_place=False,
    constraints="ValueDataType must match OutputTensor.DataType. OutputTensor may have any size.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # the value itself: exact
    onnx_route="ConstantOfShape (opset 9) with the sizes as an int64 initializer and the value as its tensor "
               "attribute",
    to_onnx=to_onnx,
    source=page("DML_FILL_VALUE_CONSTANT_OPERATOR_DESC"),
    family=GENERATOR,
    inputs=(),
    shape_check=scalars_check("Value"),
    source_index=all_filled,
    integers=no_integer_formula,
    notes=("The page gives no default Value: unset, it is 0.",
           "The tables are the page's (MicrosoftDocs/sdk-api, ns-directml-dml_fill_value_constant_operator_desc.md): "
           "4_1, 4_0 and 2_1."),
)
