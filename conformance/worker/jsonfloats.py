"""JSON that carries NaN and the infinities: JSON has no such numbers, so each is written as the
string "NaN", "Infinity" or "-Infinity" (the proto3 JSON mapping's names, and JavaScript's String(x))
and read back as the float. Results files, the workers' frames and saved cases all go through here,
so that a case file's `.nan` or `-.inf` runs and every reader and report sees the number again.

A string field whose whole value is one of these three names reads back as a float: no field of a
results record or an operator's parameters is such a string."""
import json
import math

NAMES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def dumps(value, **options) -> str:
    """json.dumps, strict (allow_nan=False), with non-finite floats (numpy's too) as their names."""
    return encode(json.JSONEncoder(allow_nan=False, **options), value)


def encode(encoder: json.JSONEncoder, value) -> str:
    """encoder.encode(value) by a strict encoder (one kept by a caller that writes many lines), with
    non-finite floats as their names."""
    try:
        return encoder.encode(value)
    except ValueError:  # the rare record with a non-finite number: walked once, then written
        return encoder.encode(named(value))


def loads(text):
    """json.loads, with the three names turned back into floats; text without them is not walked."""
    value = json.loads(text)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return numbers(value) if carries_names(text) else value


def carries_names(text: str) -> bool:
    """Whether JSON text may hold one of the names (a cheap test before walking what it decoded)."""
    return '"NaN"' in text or 'Infinity"' in text


def named(value):
    """value with every non-finite float (numpy's too) replaced by its name, for a strict encoder."""
    if isinstance(value, dict):
        return {key: named(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [named(item) for item in value]
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # a numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def numbers(value):
    """The inverse of named: each of the three names, wherever it stands, back to its float."""
    if isinstance(value, dict):
        return {key: numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [numbers(item) for item in value]
    if isinstance(value, str) and value in NAMES:
        return NAMES[value]
    return value
