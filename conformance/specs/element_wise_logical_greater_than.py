from conformance.specs.element_wise_logical_equals import TABLES_FROM_1_0, comparison

SPEC = comparison("ELEMENT_WISE_LOGICAL_GREATER_THAN", ">", lambda a, b: a > b, "Greater", 13, "1_0",
                  TABLES_FROM_1_0)
