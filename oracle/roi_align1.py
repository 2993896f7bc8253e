"""DML_ROI_ALIGN1: oracle/roi_aligning.py, its pixel offsets and AlignRegionsToCorners the case's."""
from oracle.roi_aligning import ALIGN_DEFAULTS, DEFAULTS as ALIGN_FIELDS, TYPE_FIELDS, align, output_dtype  # noqa: F401

OPERATOR = "ROI_ALIGN1"
DEFAULTS = {**ALIGN_FIELDS, **ALIGN_DEFAULTS}
OWN_SHAPES = True


def reference(x, dtype: str, nan_rule="d3d", **fields):
    return align(x, {**DEFAULTS, **fields})
