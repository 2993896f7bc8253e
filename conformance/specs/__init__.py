"""The registry of operator specs, by DirectML name: every module of this package with a SPEC."""
import importlib
import pkgutil

from conformance.specs.base import NotReachable, OperatorSpec


def _discover() -> dict:
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        spec = getattr(module, "SPEC", None)
        if isinstance(spec, OperatorSpec):
            if spec.name in found:
                raise ImportError(f"specs: {spec.name} is defined twice (last in {module.__name__})")
            found[spec.name] = spec
    return found


SPECS = _discover()


def get(name: str) -> OperatorSpec:
    key = name.upper().removeprefix("DML_").removesuffix("_OPERATOR_DESC")
    if key not in SPECS:
        raise KeyError(f"unknown operator {name!r}; known: {', '.join(SPECS)}")
    return SPECS[key]


__all__ = ["SPECS", "get", "NotReachable", "OperatorSpec"]
