import numpy as np

from conformance.specs.arg_reduction import arg_spec

SPEC = arg_spec("ARGMIN", "minimum", np.min, "ArgMin",
                "Outputs the indices of the minimum-valued elements within one or more dimensions of the input "
                "tensor (argmin({1,2,3,2,1}) = 0 INCREASING, 4 DECREASING).")
