"""DML_RESAMPLE3, nearest neighbour with Antialiased FALSE: RESAMPLE2's mapping and RoundingDirection
(the page's first part, read; its text on Antialiased was not)."""
from oracle import resample2

OPERATOR = "RESAMPLE3"
DEFAULTS = {**resample2.DEFAULTS, "Antialiased": 0}
READS_BITS = True


def reference(x, dtype, nan_rule="d3d", Antialiased=0, **fields):
    if Antialiased:
        raise ValueError("RESAMPLE3: Antialiased TRUE is not transcribed")
    return resample2.reference(x, dtype, nan_rule, **fields)
