"""DML_ELEMENT_WISE_ADD1: f(a, b) = FusedActivation(a + b).

The sum is ELEMENT_WISE_ADD's, rounded to the tensor type (FLOAT32 or FLOAT16), as the unfused ADD
layer's output tensor holds it; the activation is its own oracle module applied to that tensor, and
the caller rounds its result once more. DirectML's fused-activation page says fused activations
"produce the same result" as the separate layers, so the pair of layers is the reference.
FusedActivation: None, or {"Type": "ACTIVATION_...", its fields} (conformance/specs/fused.py).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_ADD1"
DEFAULTS = {"FusedActivation": None}


def reference(x, dtype: str, nan_rule="d3d", FusedActivation=None) -> np.ndarray:
    import oracle  # this package: its registry imports this module while it discovers operators
    total = oracle.evaluate("ELEMENT_WISE_ADD", x, dtype)
    if FusedActivation is None:
        return total.astype(np.float64)
    fields = {k: v for k, v in FusedActivation.items() if k != "Type"}
    return oracle.reference(FusedActivation["Type"], total, dtype, nan_rule=nan_rule, **fields)
