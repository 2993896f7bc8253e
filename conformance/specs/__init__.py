"""The registry of operator specs, by DirectML name."""
from conformance.specs import (activation_celu, activation_scaled_elu, element_wise_clip,
                               element_wise_constant_pow)
from conformance.specs.base import NotReachable, OperatorSpec

SPECS = {module.SPEC.name: module.SPEC for module in
         (activation_celu, activation_scaled_elu, element_wise_clip, element_wise_constant_pow)}


def get(name: str) -> OperatorSpec:
    key = name.upper().removeprefix("DML_").removesuffix("_OPERATOR_DESC")
    if key not in SPECS:
        raise KeyError(f"unknown operator {name!r}; known: {', '.join(SPECS)}")
    return SPECS[key]


__all__ = ["SPECS", "get", "NotReachable", "OperatorSpec"]
