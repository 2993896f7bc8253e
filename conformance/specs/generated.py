"""What the operators of no input tensor share (FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX,
DIAGONAL_MATRIX1: the GENERATOR family): OutputTensor's sizes as a no-field parameter the loader fills with
the case's shape, ValueDataType and the DML_SCALAR_UNION fields it types, and the judge's sources (every
element a constant the page fills: source_index's which -1)."""
import numpy as np

from conformance.specs.base import FLOATS, INTEGERS_32, INTEGERS_64, Parameter
from conformance.specs.shapes import OUTPUT_SIZES, generated_check

ALL_TYPES = ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32
TYPES_4_0 = FLOATS + INTEGERS_32  # the 2_1 and 4_0 tables: no 64-bit type
OUTPUT_SIZES_FIELD = Parameter(OUTPUT_SIZES, "uint_array", None,
                               "Not a field: OutputTensor's sizes, the case's shape (a case file's shapes:).",
                               sizes_of="OutputTensor")
VALUE_DATA_TYPE = Parameter("ValueDataType", "data_type", None,
                            "The data type of the value fields, which must match OutputTensor.DataType (unset: "
                            "the tensor's type).", unset=lambda dtype: dtype)


def scalar(name: str, description: str) -> Parameter:
    """A DML_SCALAR_UNION field typed by ValueDataType (unset: 0)."""
    return Parameter(name, "scalar", None, description + " Interpreted as ValueDataType (unset: 0).",
                     typed_by="ValueDataType", unset=lambda dtype: 0)


def scalars_check(*names):
    """The shape check of a spec whose scalar fields `names` are of ValueDataType: OutputTensor's sizes
    given, ValueDataType the output's (the loader sets it so where unset), each value one of that type."""
    def check(input_shapes, params) -> str | None:
        problem = generated_check(input_shapes, params)
        if problem:
            return problem
        dtype = np.dtype(params["ValueDataType"])
        for name in names:
            value = params.get(name)
            if value is None or dtype.kind == "f":
                continue
            info = np.iinfo(dtype)
            if not float(value).is_integer() or not info.min <= int(value) <= info.max:
                return f"{name} {value!r} is not a {dtype.name} value (ValueDataType {dtype.name})"
        return None
    return check


def all_filled(output_index, inputs, params) -> tuple:
    """source_index of an operator of no input: every element is a constant the page fills (which -1)."""
    which = np.full(np.shape(output_index[0]), -1, dtype=np.intp)
    return which, tuple(np.asarray(o) for o in output_index)


def no_integer_formula(params, dtype):
    """OperatorSpec.integers: no function of an input element to state (there is no input)."""
    return None
