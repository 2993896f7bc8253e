from conformance.specs.element_wise_bit_shift_left import shift

SPEC = shift("ELEMENT_WISE_BIT_SHIFT_RIGHT", ">>", "RIGHT")
