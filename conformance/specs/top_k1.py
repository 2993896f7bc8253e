from dataclasses import replace

from conformance.specs import top_k
from conformance.specs.base import Parameter, page

SPEC = replace(
    top_k.SPEC,
    name="TOP_K1",
    struct="DML_TOP_K1_OPERATOR_DESC",
    formula="the K largest (AxisDirection DECREASING, largest first) or smallest (INCREASING, smallest first) "
            "elements of each sequence along Axis, equal values by ascending index either way: "
            "OutputValueTensor their values, OutputIndexTensor their indices in the sequence",
    summary="Selects the largest or smallest K elements from each sequence along an axis of the InputTensor, "
            "and returns the values and indices of those elements in the OutputValueTensor and OutputIndexTensor.",
    parameters=(top_k.AXIS, top_k.K,
                Parameter("AxisDirection", "enum", top_k.DECREASING,
                          "DML_AXIS_DIRECTION_INCREASING: the smallest K in increasing order; "
                          "DML_AXIS_DIRECTION_DECREASING: the largest K in decreasing order (TOP_K).",
                          choices=tuple(top_k.AXIS_DIRECTIONS), enum_values=dict(top_k.AXIS_DIRECTIONS)),
                top_k.INDEX_TYPE),
    introduced="2_1",
    tables=top_k.TABLES_FROM_2_1,
    onnx_route="TopK (opset 11, largest=1 for DECREASING or 0 for INCREASING, sorted=1) with K as an int64 "
               "initializer; its int64 indices read as OutputIndexTensor's type",
    source=page("DML_TOP_K1_OPERATOR_DESC"),
    notes=top_k.NOTES + ("The page's support tables were read whole (5_0, 3_1, 2_1).",),
)
