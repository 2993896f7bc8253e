"""List-valued fields (Parameter.kind in base.ARRAY_KINDS: Axes, Strides, Sizes, Offsets, Padding...)
in a case file, in a case and in its id.

A case file writes one array value as {array: [1, 2]}: a bare list already means "a grid of cases"
(`Axes: [{array: [1]}, {array: [1, 2]}]` is two cases). A case holds the list itself ([1, 2]); its
count field (Parameter.count) is the list's length and is never written. The id spells it without
spaces, Axes=[1,2], which -k takes as one word."""
from conformance.specs.base import ARRAY_KINDS

KEY = "array"  # the case file's spelling: {array: [...]}


def problem(parameter, value) -> str | None:
    """What a case file's value of an array field must be, if this one is not that (None: it is)."""
    element = ARRAY_KINDS[parameter.kind]
    what = {"uint": "integers >= 0", "int": "integers", "float": "numbers"}[element]
    wanted = f"{{{KEY}: [...]}} of {what} (a bare list is a grid of cases)"
    if not isinstance(value, dict) or set(value) != {KEY} or not isinstance(value[KEY], list):
        return wanted
    for item in value[KEY]:
        number = isinstance(item, (int, float)) and not isinstance(item, bool)
        if not number or element != "float" and not (float(item).is_integer() and (element == "int" or item >= 0)):
            return wanted
    return None


def value(parameter, given) -> list:
    """The case's value of an array field from the case file's {array: [...]}."""
    element = ARRAY_KINDS[parameter.kind]
    return [float(v) if element == "float" else int(v) for v in given[KEY]]


def count_problems(spec, params: dict) -> list:
    """Arrays that share one count field (SLICE's Offsets, Sizes and Strides: DimensionCount) must have
    one length: one line each where they do not."""
    lengths = {}
    for p in spec.parameters:
        if p.array and p.count and params.get(p.name) is not None:
            lengths.setdefault(p.count, []).append((p.name, len(params[p.name])))
    return [f"{', '.join(n for n, _ in named)} share {count} and must have one length, not "
            f"{', '.join(str(k) for _, k in named)}" for count, named in lengths.items()
            if len({k for _, k in named}) > 1]


def implied(spec, name: str) -> str | None:
    """The array field whose length a count field is (None: name is no count field of spec)."""
    return next((p.name for p in spec.parameters if p.array and p.count == name), None)


def label(items, fmt) -> str:
    """An array value in a case id: [1,2], no spaces."""
    return "[" + ",".join(fmt(v) for v in items) + "]"
