from conformance.specs.element_wise_logical_and import logical

SPEC = logical("ELEMENT_WISE_LOGICAL_XOR", "(!!a) != (!!b)", "Xor", lambda a, b: a != b)
