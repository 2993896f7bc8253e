"""DML_ROI_ALIGN: oracle/roi_aligning.py with ROI_ALIGN1's offsets fixed at 0.5 and -0.5 and the regions not
aligned to corners (the ROI_ALIGN1 page: "the same behavior as DML_ROI_ALIGN_OPERATOR_DESC")."""
from oracle.roi_aligning import ALIGN_DEFAULTS, DEFAULTS, TYPE_FIELDS, align, output_dtype  # noqa: F401

OPERATOR = "ROI_ALIGN"
OWN_SHAPES = True


def reference(x, dtype: str, nan_rule="d3d", **fields):
    return align(x, {**DEFAULTS, **fields, **ALIGN_DEFAULTS})
