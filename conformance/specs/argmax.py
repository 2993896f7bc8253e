import numpy as np

from conformance.specs.arg_reduction import arg_spec

SPEC = arg_spec("ARGMAX", "maximum", np.max, "ArgMax",
                "Outputs the indices of the maximum-valued elements within one or more dimensions of the input "
                "tensor (argmax({3,2,1,2,3}) = 0 INCREASING, 4 DECREASING).")
