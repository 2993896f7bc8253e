from conformance.specs.element_wise_logical_and import logical

SPEC = logical("ELEMENT_WISE_LOGICAL_OR", "a || b", "Or", lambda a, b: a or b)
