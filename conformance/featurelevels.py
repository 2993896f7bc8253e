"""DirectML feature levels, in order (DML_FEATURE_LEVEL_x_y)."""
from conformance.errors import BadInput

LEVELS = ("1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2",
          "6_0", "6_1", "6_2", "6_3", "6_4")
# ONNX Runtime creates its DirectML device at 5_0 or higher, and 5_0 is the
# highest level any of the seed pages mentions: every documented case is required there.
DEFAULT_LEVEL = "5_0"


def normalise(level: str) -> str:
    text = str(level).upper().replace("DML_FEATURE_LEVEL_", "").replace(".", "_")
    if text not in LEVELS:
        raise BadInput(f"unknown feature level {level!r}; known: {', '.join(LEVELS)}")
    return text


def index(level: str) -> int:
    return LEVELS.index(normalise(level))


def at_least(level: str, minimum: str) -> bool:
    return index(level) >= index(minimum)
