from dataclasses import replace

from conformance.specs import gather_nd
from conformance.specs.base import Parameter, SupportTable, page
from conformance.specs.gathering import DATA_3_0, INDICES_TYPE

SPEC = replace(
    gather_nd.SPEC,
    name="GATHER_ND1",
    struct="DML_GATHER_ND1_OPERATOR_DESC",
    formula="output[batch, ...] = input[batch, indices[batch, ...], ...]: the first BatchDimensionCount "
            "meaningful dimensions of every tensor are independent batches; OutputTensor.Sizes = {IndicesTensor's "
            "meaningful sizes but the last, InputTensor's sizes after the batch and the dimensions a tuple "
            "addresses}, right-aligned",
    parameters=gather_nd.FIELDS + (
        Parameter("BatchDimensionCount", "uint", 0, "The number of dimensions within each tensor that are "
                  "independent batches, in [0, InputTensor.DimensionCount) and [0, IndicesTensor.DimensionCount); "
                  "0: a single batch."),
        INDICES_TYPE),
    introduced="3_0",
    tables=(SupportTable("3_0", tuple(range(1, 9)), DATA_3_0),),
    constraints=gather_nd.CONSTRAINTS.replace("UINT32 (2_1); ", "") + " The batch sizes of IndicesTensor are "
                "InputTensor's.",
    onnx_route="GatherND (opset 13, batch_dims = BatchDimensionCount) on each tensor's meaningful dimensions; "
               "INT64 indices alone (ONNX's GatherND takes no other)",
    source=page("DML_GATHER_ND1_OPERATOR_DESC"),
    notes=(gather_nd.SIZES_NOTE,
           "The batch dimensions are the first BatchDimensionCount of the meaningful ones (the page's example: "
           "Sizes {1,3,4,5,6,7}, IndicesDimensionCount 5, BatchDimensionCount 2: batches {3,4}).",
           "The page gives one table (3_0): a later one (64-bit data) was not read.",
           "The page says nothing of out-of-range indices: no case has one.",
           "IndicesType is no field of the struct: IndicesTensor's data type, chosen by the case."),
)
