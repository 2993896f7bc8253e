import numpy as np

from conformance.specs.base import ONE_TO_EIGHT, OperatorSpec, SupportTable, no_onnx, page
from conformance.specs.element_wise_bit_not import ALL_TYPES, UNSIGNED_32
from oracle import element_wise_bit_count

STRUCT = "DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC"


def integers(params: dict, dtype: str):
    """The set bits of x's two's complement pattern in the type's width."""
    bits = np.iinfo(dtype).bits
    return lambda x: bin(x % (1 << bits)).count("1")


SPEC = OperatorSpec(
    name="ELEMENT_WISE_BIT_COUNT",
    struct=STRUCT,
    formula="f(x) = the number of bits set to 1 in the element's native encoding",
    summary="Bitwise population count of every element, into an integer output tensor.",
    parameters=(),
    introduced="3_0",
    tables=(SupportTable("4_1", ONE_TO_EIGHT, ALL_TYPES),
            SupportTable("3_0", ONE_TO_EIGHT, UNSIGNED_32)),
    in_place=False,
    constraints="InputTensor and OutputTensor must have the same DimensionCount and Sizes; OutputTensor "
                "is UINT32 or UINT8 whatever the input's type.",
    tolerance_ulp={"float64": 0, "float32": 0, "float16": 0},
    onnx_route="not reachable: ONNX has no population count",
    to_onnx=no_onnx("ONNX has no population count operator"),
    source=page(STRUCT),
    notes=("The output may be UINT32 or UINT8 for any input; the harness asks for UINT32 for 32- and "
           "64-bit inputs and UINT8 for 8- and 16-bit ones, so both output types are exercised.",
           "The page: the data type only gives each element's width, so a float's encoding is counted "
           "(FLOAT32 1.0 has 7 bits set, NaN 0x7FC00000 has 9).",
           "The float cases forbid flushing: a bitwise operator must not treat a subnormal as zero.",
           "The page does not allow in-place execution (the output's type may differ)."),
    output_dtype=element_wise_bit_count.output_dtype,
    integers=integers,
)
