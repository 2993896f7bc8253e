from conformance.specs.element_wise_bit_and import bitwise

SPEC = bitwise("ELEMENT_WISE_BIT_OR", "|", "BitwiseOr", lambda a, b: a | b)
