from conformance.specs.base import (A_B, ALL_TYPES, FLOATS, INTEGERS_32, ONE_TO_EIGHT, SAME_TYPES_A_B, OperatorSpec,
                                    SupportTable, neighbours, one_node, page)
from conformance.specs.primitives import A, B, minimum

# ELEMENT_WISE_MIN's and ELEMENT_WISE_MAX's pages have the same tables.
MIN_MAX_TABLES = (SupportTable("5_0", ONE_TO_EIGHT, ALL_TYPES),
                  SupportTable("3_0", ONE_TO_EIGHT, FLOATS + INTEGERS_32),
                  SupportTable("2_1", (4,), FLOATS + INTEGERS_32),
                  SupportTable("1_0", (4,), FLOATS))
MIN_MAX_NOTES = ("NaN: Direct3D's min/max return the non-NaN operand (both NaN: NaN); IEEE 754-2019 "
                 "minimum/maximum and ONNX Min/Max propagate NaN instead.",
                 "min(+0, -0) = -0 and max(+0, -0) = +0 (IEEE 754-2019); Direct3D leaves the sign of a "
                 "zero result free, the interval accepts both.",
                 "The page: OutputTensor may alias one of the inputs in place.")


def min_max_specials(dtype: str, params: dict) -> list:
    """Values one step apart around 0 and 1 (which of two close values is chosen), the smallest
    subnormal of each sign (flushed to zero by a float32 device that flushes) and the largest finite."""
    import numpy as np
    if np.dtype(dtype).kind != "f":
        return []
    tiny = float(np.finfo(dtype).smallest_subnormal)
    return neighbours([1.0, -1.0, float(np.finfo(dtype).max)], dtype) + [tiny, -tiny]


SPEC = OperatorSpec(
    name="ELEMENT_WISE_MIN",
    struct="DML_ELEMENT_WISE_MIN_OPERATOR_DESC",
    formula="f(a, b) = min(a, b)",
    summary="Takes the lesser of each pair of corresponding elements of ATensor and BTensor.",
    parameters=(),
    inputs=A_B,
    introduced="1_0",
    tables=MIN_MAX_TABLES,
    in_place=True,
    constraints=SAME_TYPES_A_B,
    tolerance_ulp={"float32": 0, "float16": 0},  # WebNN: min 0 / 0
    onnx_route="Min (opset 13: every type of the page; ONNX Runtime's CPU provider lacks the 8/16-bit integers)",
    to_onnx=one_node("Min", 13),
    d3d=lambda p: minimum(A, B),
    special_values=min_max_specials,
    source=page("DML_ELEMENT_WISE_MIN_OPERATOR_DESC"),
    notes=MIN_MAX_NOTES,
    integers=lambda params, dtype: min,
)
