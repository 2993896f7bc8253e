import numpy as np

from conformance.specs import conversion
from conformance.specs.base import ONE_TO_EIGHT, NotReachable, OnnxNode, OperatorSpec, Output, SupportTable, page
from conformance.specs.families import GENERATOR
from conformance.specs.generated import (OUTPUT_SIZES_FIELD, TYPES_4_0, VALUE_DATA_TYPE, no_integer_formula, scalar,
                                         scalars_check)
from conformance.specs.shapes import OUTPUT_SIZES
from oracle.generated import union_value

TYPES_5_0 = ("float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
# ONNX Runtime's CPU Range kernel's types
RANGE_TYPES = ("float32", "float64", "int16", "int32", "int64")


def sequence_bounds(inputs, params) -> tuple:
    """(lo, hi) of each float element: the least and greatest of the page's accumulation (Value += Delta,
    rounded in the output type at each step) and of ValueStart + i * ValueDelta as Direct3D computes it
    apart for each element (the product and the sum each rounded in the type, or fused and rounded once);
    a FLOAT16 one may also be computed in FLOAT32 and stored as Direct3D converts a float to a narrower one
    (to nearest even or toward zero: conformance/specs/conversion.py). An integer one: exact."""
    dtype = np.dtype(params["ValueDataType"])
    sizes = tuple(params[OUTPUT_SIZES])
    count = int(np.prod(sizes, dtype=np.int64))
    if dtype.kind != "f" or count == 0:
        return None, None
    start = union_value(params.get("ValueStart"), dtype.name, "ValueStart")
    delta = union_value(params.get("ValueDelta"), dtype.name, "ValueDelta")
    i = np.arange(count, dtype=np.float64)
    models = []
    with np.errstate(all="ignore"):
        for inner in {dtype, np.dtype(np.float32)}:  # the type computed in
            s, d = inner.type(start), inner.type(delta)
            steps = np.full(count, d, dtype=inner)
            steps[0] = s
            computed = [np.add.accumulate(steps, dtype=inner),  # the page's pseudocode
                        (s + (i * np.float64(d)).astype(inner)).astype(inner),  # product, then sum, each rounded
                        (np.float64(s) + i * np.float64(d)).astype(inner)]  # fused: rounded once
            for value in computed:  # stored in the output type: Direct3D's float-to-float rule (nearest or toward 0)
                lo, hi = conversion.accepted(value, dtype.name)[:2] if inner != dtype else (value, value)
                models += [np.asarray(lo).astype(dtype), np.asarray(hi).astype(dtype)]
        models = np.stack(models)
    return models.min(axis=0).reshape(sizes), models.max(axis=0).reshape(sizes)


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """Range(start, limit, delta) for a 1-D output: limit half a step past the last element, so that
    ceil((limit - start) / delta) counts the elements as ONNX Runtime computes it."""
    sizes = params[OUTPUT_SIZES]
    if len(sizes) != 1:
        raise NotReachable("Range makes a 1-D tensor: a sequence of more dimensions is not reachable")
    if dtype not in RANGE_TYPES:
        raise NotReachable(f"ONNX Runtime's CPU Range has no {dtype} kernel")
    count = sizes[0]
    start = union_value(params.get("ValueStart"), dtype, "ValueStart")
    delta = union_value(params.get("ValueDelta"), dtype, "ValueDelta")
    target = np.dtype(dtype)
    if target.kind == "f":
        with np.errstate(all="ignore"):
            limit = target.type(np.float64(start) + (count - 0.5) * np.float64(delta))
            counted = np.ceil(np.float64(target.type(limit - start)) / np.float64(delta)) if delta else None
        if not np.isfinite(limit) or counted != count:
            raise NotReachable(f"Range cannot count {count} elements from {start} by {delta} in {dtype}")
    else:
        limit = int(start) + count * int(delta)
        info = np.iinfo(target)
        if delta == 0 or not info.min <= limit <= info.max:
            raise NotReachable(f"Range's limit {limit} is no {dtype} value (or the delta is 0)")
        limit = target.type(limit)
    return OnnxNode("Range", 11, constant_inputs=tuple(np.array(v, dtype=dtype) for v in (start, limit, delta)),
                    alone=True)


SPEC = OperatorSpec(
    name="FILL_VALUE_SEQUENCE",
    struct="DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC",
    formula="for each coordinate of OutputTensor in order: OutputTensor[coordinate] = Value; Value += ValueDelta "
            "(from Value = ValueStart; of ValueDataType)",
    summary="Fills a tensor with a sequence.",
    parameters=(VALUE_DATA_TYPE,
                scalar("ValueStart", "The initial value to fill the first element in the output, with ValueDataType "
                       "determining how to interpret the field."),
                scalar("ValueDelta", "A step to add to the value for each element written, with ValueDataType "
                       "determining how to interpret the field."),
                OUTPUT_SIZES_FIELD),
    introduced="2_1",
    tables=(SupportTable("5_0", ONE_TO_EIGHT, TYPES_5_0),
            SupportTable("4_0", ONE_TO_EIGHT, TYPES_4_0),
            SupportTable("2_1", (4,), TYPES_4_0)),
    in_place=False,
    constraints="ValueDataType must match OutputTensor.DataType. OutputTensor may have any size.",
    tolerance_ulp={"float32": 0, "float16": 0},  # within sequence_bounds
    onnx_route="Range (opset 11) with start, limit and delta as scalar initializers, 1-D only",
    to_onnx=to_onnx,
    source=page("DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC"),
    family=GENERATOR,
    inputs=(),
    outputs=(Output("OutputTensor", bounds=sequence_bounds),),
    shape_check=scalars_check("ValueStart", "ValueDelta"),
    integers=no_integer_formula,
    notes=("Integers: ValueStart + i * ValueDelta wrapped to the type, exact (accumulation and multiplication agree "
           "modulo 2^bits). A negative step of an unsigned type is written as its value modulo 2^bits (the page's "
           "example 2, ValueDelta = -2 in UINT8: 254).",
           "Floats: the page's pseudocode accumulates (Value += Delta, rounded at each step); a device computing "
           "each element apart computes ValueStart + i * ValueDelta. Each element is judged within the least and "
           "greatest of both (and, for FLOAT16, of both computed in FLOAT32 and converted to nearest or toward zero, as "
           "Direct3D allows): sequence_bounds.",
           "The page gives no defaults: unset, ValueStart and ValueDelta are 0.",
           "The tables are the page's (MicrosoftDocs/sdk-api, ns-directml-dml_fill_value_sequence_operator_desc.md): "
           "5_0, 4_0 and 2_1; FLOAT64 is in none of them."),
)
