"""DirectML's fused activations: the activations an operator's FusedActivation field may hold, and
that field's value in cases.

The page "Using fused operators to improve performance" (SOURCE) lists the activations that may be
fused and says that the fused activation's InputTensor and OutputTensor must be NULL, and that
fused activations "produce the same result" as the activation layer they replace.

A case file writes the field as null (no activation), an activation's name (ACTIVATION_RELU: its
fields at their defaults) or {Type: ACTIVATION_LEAKY_RELU, Alpha: 0.1}. Cases hold it normalised:
None or {"Type": name, every field of that activation's description}.
"""
from conformance.specs.primitives import X

SOURCE = "https://learn.microsoft.com/windows/ai/directml/dml-fused-activations"
FUSABLE = ("ACTIVATION_ELU", "ACTIVATION_HARD_SIGMOID", "ACTIVATION_IDENTITY", "ACTIVATION_LEAKY_RELU",
           "ACTIVATION_LINEAR", "ACTIVATION_PARAMETRIC_SOFTPLUS", "ACTIVATION_RELU", "ACTIVATION_SCALED_ELU",
           "ACTIVATION_SCALED_TANH", "ACTIVATION_SIGMOID", "ACTIVATION_SOFTPLUS", "ACTIVATION_SOFTSIGN",
           "ACTIVATION_TANH", "ACTIVATION_THRESHOLDED_RELU", "ACTIVATION_SHRINK", "ACTIVATION_CELU")


def _spec(name: str):
    from conformance import specs  # the registry imports this module while it discovers specs
    return specs.get(name)


def problem(value) -> str | None:
    """What is wrong with a case file's FusedActivation value (None: nothing)."""
    if value is None:
        return None
    given = {"Type": value} if isinstance(value, str) else value
    if not isinstance(given, dict) or given.get("Type") not in FUSABLE:
        return f"null, or one of {', '.join(FUSABLE)}, or {{Type: one of them, its fields}}"
    spec = _spec(given["Type"])
    fields = {p.name for p in spec.parameters}
    unknown = sorted(set(given) - fields - {"Type"})  # the schema holds each field to a number
    if unknown:
        return f"{given['Type']} fields ({', '.join(sorted(fields)) or 'none'}), not {unknown[0]!r}"
    return None


def normalise(value) -> dict | None:
    """A valid case file value -> None or {"Type": name, every field (the activation's defaults filled)}."""
    if value is None:
        return None
    given = {"Type": value} if isinstance(value, str) else dict(value)
    return {"Type": given["Type"], **_spec(given["Type"]).defaults(),
            **{k: v for k, v in given.items() if k != "Type"}}


def split(value) -> tuple:
    """A normalised value -> (the activation's OperatorSpec, its fields)."""
    return _spec(value["Type"]), {k: v for k, v in value.items() if k != "Type"}


def formula(value, params_float32: dict):
    """The activation's d3d formula in X (its input); IDENTITY, the one fusable activation without
    one (it is exact), is X itself."""
    spec, _ = split(value)
    if spec.d3d is None:
        if spec.name != "ACTIVATION_IDENTITY":
            raise ValueError(f"{spec.name} has no d3d formula to fuse")
        return X
    return spec.d3d(params_float32)


def label(value, fmt) -> str:
    """In a case id: LEAKY_RELU[Alpha=0.01] (fmt formats a number as case ids do)."""
    _, fields = split(value)
    inner = ",".join(f"{k}={fmt(v)}" for k, v in fields.items())
    return value["Type"].removeprefix("ACTIVATION_") + (f"[{inner}]" if inner else "")
