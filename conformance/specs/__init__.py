"""The registry of operator specs, by DirectML name: every module of this package with a SPEC."""
import difflib
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


def _key(name) -> str:
    return str(name).upper().removeprefix("DML_").removesuffix("_OPERATOR_DESC")


def get(name: str) -> OperatorSpec:
    key = _key(name)
    if key not in SPECS:
        raise KeyError(unknown(name))
    return SPECS[key]


def unknown(name) -> str:
    """One line for a name no spec has: the closest names (those containing it, then the most alike),
    not all of them."""
    key = _key(name)
    close = [n for n in SPECS if key and key in n][:3]
    close += [n for n in difflib.get_close_matches(key, SPECS, n=3) if n not in close][:3 - len(close)]
    listed = ", ".join(close[:-1]) + " or " + close[-1] if len(close) > 1 else "".join(close)
    hint = f"did you mean {listed}?" if close else "no known operator is close"
    return f"unknown operator {name!r}; {hint} (`conformance specs` describes all {len(SPECS)})"


__all__ = ["SPECS", "get", "unknown", "NotReachable", "OperatorSpec"]
