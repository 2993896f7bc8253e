from conformance.specs.element_wise_bit_and import bitwise

SPEC = bitwise("ELEMENT_WISE_BIT_XOR", "^", "BitwiseXor", lambda a, b: a ^ b)
