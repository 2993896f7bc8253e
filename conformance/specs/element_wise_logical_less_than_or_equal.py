from conformance.specs.element_wise_logical_equals import TABLES_FROM_3_0, comparison

SPEC = comparison("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "<=", lambda a, b: a <= b, "LessOrEqual", 16,
                  "3_0", TABLES_FROM_3_0,
                  ("Not !(a > b): with a NaN operand a <= b is false, as the page's f(a, b) = (a <= b) reads "
                   "under IEEE 754.",
                   "The page states two availabilities (DML_FEATURE_LEVEL_1_0 and 3_0); its tables start at 3_0 "
                   "and DirectML.h adds the operator with 3_0, so 3_0 is taken."))
