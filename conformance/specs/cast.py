import numpy as np

from conformance import featurelevels
from conformance.specs import conversion
from conformance.specs.base import (FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, NotReachable, OnnxNode,
                                    OperatorSpec, Parameter, SupportTable, page, saturate, same_type)

TYPES = ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32
TABLES = (SupportTable("4_1", ONE_TO_EIGHT, TYPES),
          SupportTable("3_1", ONE_TO_EIGHT, FLOATS + INTEGERS_64 + INTEGERS_32),
          SupportTable("3_0", (4,), FLOATS + INTEGERS_64 + INTEGERS_32),
          SupportTable("1_0", (4,), FLOATS + ("int16", "int8", "uint16", "uint8")))


def output_level(params: dict) -> str | None:
    """The lowest level whose table has the output's type (the tables give InputTensor and
    OutputTensor the same types and dimension counts, so the case's level is the higher of its
    input's and this)."""
    chosen = params.get("OutputType")
    levels = [t.level for t in TABLES if chosen in t.dtypes]
    return min(levels, key=featurelevels.index) if chosen and levels else None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """Cast (opset 19); between integer types, a Clip to the target's range first: ONNX's Cast wraps
    where Direct3D clamps. Cast's saturate attribute concerns float8 targets only, which DirectML lacks."""
    target = params.get("OutputType") or dtype
    cast = OnnxNode("Cast", 19, attributes={"to": _onnx_type(target)}, output_type=target)
    source, wanted = np.dtype(dtype), np.dtype(target)
    if source.kind == "f" or wanted.kind == "f":
        return cast
    low, high = conversion.integer_bounds(source, wanted)
    if (low, high) == (np.iinfo(source).min, np.iinfo(source).max):
        return cast  # the target holds every source value
    if source.itemsize == 2:
        raise NotReachable(f"{source.name.upper()} to {wanted.name.upper()}: ONNX's Cast wraps where Direct3D "
                           "clamps, and ONNX Runtime has no Clip kernel for 16-bit integers")
    return OnnxNode("Clip", 13, constant_inputs=(np.array(low, dtype=source), np.array(high, dtype=source)),
                    then=(cast,))


def onnx_undefined(x, dtype: str, params: dict) -> str | None:
    """ONNX's Cast of a float beyond an integer target's range or of NaN is undefined (ONNX Runtime's
    CPU provider wraps, giving 44 for 300.0 to INT8, or gives INT_MIN): such inputs are not reachable."""
    target = np.dtype(params.get("OutputType") or dtype)
    x = np.asarray(x)
    if x.dtype.kind != "f" or target.kind == "f" or not x.size:
        return None
    info = np.iinfo(target)
    with np.errstate(invalid="ignore"):
        whole = np.trunc(x.astype(np.float64))
    if np.isnan(whole).any() or (whole < float(info.min)).any() or (whole >= float(info.max) + 1.0).any():
        return (f"ONNX's Cast of NaN or of a value beyond {target.name.upper()}'s range is undefined "
                "(ONNX Runtime wraps); DirectML's follows Direct3D's ftoi, ftou and clamp")
    return None


def _onnx_type(dtype: str) -> int:
    from onnx import helper
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def special_values(dtype: str, params: dict) -> list:
    """Where the conversion to the case's OutputType turns: a float input around an integer target's
    limits and at halves (truncation), or around a narrower float's largest value and the midpoint
    above it (rounding, overflow) and its smallest subnormal; an integer input around the limits of
    the target and around 2^24 and 2^53 (the first integers a float rounds)."""
    target, source = np.dtype(params.get("OutputType") or dtype), np.dtype(dtype)
    edges = []
    if target.kind in "iu":
        info = np.iinfo(target)
        edges += [info.min - 1, info.min, info.max, info.max + 1]
        edges += [0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 2.5, -2.5] if source.kind == "f" else []
    elif target.itemsize < source.itemsize or source.kind in "iu":
        f = np.finfo(target)
        biggest = float(f.max)
        step = biggest - float(np.nextafter(f.max, target.type(0)))  # the ULP at the largest value
        edges += [biggest, biggest + step / 2, biggest + step / 4, float(f.smallest_subnormal),
                  float(f.smallest_subnormal) / 2, 1 + float(f.eps) / 2, 1 + float(f.eps) * 3 / 4]
        edges += [-v for v in edges]
        edges += [2 ** 24 + 1, 2 ** 53 + 1, -(2 ** 24 + 1)] if source.kind in "iu" else []
    return [v for v in edges if source.kind == "f" or float(v).is_integer()]


def integers(params: dict, dtype: str):
    """An integer target: the value clamped to its range (Direct3D 3.2.3.9 to 3.2.3.13); a float
    target: None (a rounding, not integer arithmetic)."""
    target = params.get("OutputType") or dtype
    return None if np.dtype(target).kind == "f" else (lambda x: saturate(x, target))


SPEC = OperatorSpec(
    name="CAST",
    struct="DML_CAST_OPERATOR_DESC",
    formula="f(x) = cast(x): each element converted to OutputTensor's DataType",
    summary="Casts each element in the input to the data type of the output tensor, and stores the result "
            "in the corresponding element of the output.",
    parameters=(Parameter("OutputType", "tensor_type", None,
                          "Not a field: OutputTensor's DataType, any of the page's types (unset: the input's own).",
                          choices=TYPES, unset=same_type, tensors=("OutputTensor",)),),
    parameter_level=output_level,
    introduced="1_0",
    tables=TABLES,
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DimensionCount and Sizes (their DataTypes may "
                "differ: any pair of the table's types at its level).",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},  # exactly rounded (WebNN allows 1 ULP to a float target)
    onnx_route="Cast (opset 19); integer to integer: Clip to the target's range, then Cast; a float beyond an "
               "integer target's range, or NaN, is not reachable (ONNX leaves it undefined)",
    to_onnx=to_onnx,
    onnx_undefined=onnx_undefined,
    special_values=special_values,
    accepted=conversion.accepted,
    integers=integers,
    source=page("DML_CAST_OPERATOR_DESC"),
    notes=("The page states no conversion rule: the judge's accepted set is Direct3D's data conversion "
           "(conformance/specs/conversion.py); the oracle gives the exactly rounded value in it.",
           "Float to a narrower float: to nearest even or toward zero (Direct3D 3.2.2 says toward zero, "
           "IEEE and ONNX nearest); toward zero, a value beyond the range gives the largest finite value.",
           "Float to integer: toward zero, NaN to 0, clamped to the range (ftoi, ftou). Float to INT64 or "
           "UINT64 of NaN or beyond the range: no Direct3D rule, any value is accepted.",
           "Integer to float: either neighbour of the exact value (itof: nearest even recommended, not required).",
           "Integer to integer: clamped to the target's range (Direct3D 3.2.3.9 to 3.2.3.13); ONNX's Cast wraps. "
           "Where the sign changes (a negative value to an unsigned type, an unsigned one beyond a signed type's "
           "range) HLSL's cast reinterprets the bits and the store clamps that (DirectML does: "
           "docs/findings/issue25-cast.md): any value between the two readings is accepted.",
           "The page says nothing of in-place execution: no case aliases (the types may differ)."),
)
