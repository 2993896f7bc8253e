from conformance.specs.element_wise_logical_equals import TABLES_FROM_3_0, comparison

SPEC = comparison("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", ">=", lambda a, b: a >= b, "GreaterOrEqual", 16,
                  "3_0", TABLES_FROM_3_0,
                  ("Not !(a < b): with a NaN operand a >= b is false, as the page's f(a, b) = (a >= b) reads "
                   "under IEEE 754.",))
