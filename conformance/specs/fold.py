import numpy as np

from conformance.specs.base import (ALL_TYPES, NotReachable, OnnxNode, OperatorSpec, Output, Parameter,
                                    SupportTable, page)
from conformance.specs.families import WINDOW
from conformance.specs.unfold import FIELDS
from oracle import windows
from oracle.fold import overlaps
from oracle.unfold import window

OUTPUT_SIZES = Parameter("OutputSizes", "uint_array", None,
                         "No field: OutputTensor's spatial sizes (the page's OutputSize), which the page leaves to "
                         "the caller; required.", sizes_of="OutputTensor")
# The most a sum of small integers may reach and stay exact in every order (2^(mantissa bits + 1))
EXACT_SUMS = {"float16": 2 ** 11, "float32": 2 ** 24}


def output_shapes(input_shapes, params) -> tuple:
    n, rows, _ = input_shapes[0]
    return ((n, rows // int(np.prod(params["WindowSizes"])), *params["OutputSizes"]),)


def shape_check(input_shapes, params) -> str | None:
    shape, sizes = input_shapes[0], params.get("OutputSizes")
    if sizes is None:
        return "OutputSizes is required: OutputTensor's spatial sizes, which the page leaves to the caller"
    if len(shape) != 3:
        return f"InputTensor {list(shape)} must be 3-D: (N, C x prod(WindowSizes), BlockCount)"
    problem = windows.problem((1, 1, *sizes), window(params), empty_windows=True)
    if problem:
        return problem
    k = int(np.prod(params["WindowSizes"]))
    if shape[1] % k:
        return f"InputTensor.Sizes[1] {shape[1]} is not C x prod(WindowSizes) {k}"
    blocks = windows.output_sizes((1, 1, *sizes), window(params))[2:]
    if int(np.prod(blocks)) != shape[2]:
        return (f"BlockCount {shape[2]} (InputTensor.Sizes[2]) must be the product of BlocksPerDimension "
                f"{list(blocks)} = {int(np.prod(blocks))} for OutputSizes {list(sizes)}")
    return None


def values_check(name: str, values, input_shapes, params) -> str | None:
    """A float sum's rounding depends on its order, which the page leaves open: the cases' float values are
    integers whose every partial sum is exact in the type (|x| x the most overlapping positions)."""
    if values is None:
        return ("InputTensor's values are the case file's ({kind: values}): small integers, so that every sum "
                "is exact in any order")
    kind = str(values.dtype)
    if kind not in EXACT_SUMS:
        return None
    most = int(overlaps(params["OutputSizes"], params).max())
    wide = np.asarray(values, dtype=np.float64)
    if not np.all(wide == np.round(wide)):
        return f"{kind} values {sorted(set(wide[wide != np.round(wide)].tolist()))[:3]} are not integers"
    if np.abs(wide).max(initial=0) * most > EXACT_SUMS[kind]:
        return (f"{kind} values up to {np.abs(wide).max():g} over {most} overlapping positions could sum past "
                f"{EXACT_SUMS[kind]}, where the order of the sum would change its rounding")
    return None


def to_onnx(dtype: str, params: dict) -> OnnxNode:
    """ONNX's Col2Im (opset 18) is no route: ONNX Runtime's DirectML provider computes it wrongly and
    corrupts the outputs of other operators run after it in the same process, and its CPU provider
    misplaces dilated windows (docs/findings/issue25-window.md). col2im_node is the node it was."""
    raise NotReachable("ONNX Runtime's Col2Im: its DirectML provider sums wrongly and corrupts other operators' "
                       "outputs in the same process (docs/findings/issue25-window.md)")


def col2im_node(dtype: str, params: dict) -> OnnxNode:
    """ONNX's Col2Im (opset 18): image_shape and block_shape as inputs, pads as [starts..., ends...]."""
    if dtype not in ("float32", "float16"):
        raise NotReachable(f"ONNX Runtime's Col2Im takes FLOAT32 and FLOAT16, not {dtype.upper()}")
    if any(d != 1 for d in params["Dilations"]):  # docs/findings/issue25-window.md
        raise NotReachable("ONNX Runtime's Col2Im misplaces some dilated windows (docs/findings/issue25-window.md)")
    return OnnxNode("Col2Im", 18, attributes={"dilations": list(params["Dilations"]),
                                              "strides": list(params["Strides"]),
                                              "pads": [*params["StartPadding"], *params["EndPadding"]]},
                    constant_inputs=(np.asarray(params["OutputSizes"], np.int64),
                                     np.asarray(params["WindowSizes"], np.int64)))


SPEC = OperatorSpec(
    name="FOLD",
    struct="DML_FOLD_OPERATOR_DESC",
    formula="OutputTensor[n, c, p] = sum over (k, b) of InputTensor[n, c * prod(WindowSizes) + k, b] where window "
            "position k of block b is p (padding positions add nothing); BlockCount = prod(BlocksPerDimension), "
            "BlocksPerDimension[d] = (OutputSize[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * "
            "(WindowSizes[d] - 1) - 1) / Strides[d] + 1",
    summary="Combines an array of patches formed from a sliding window into a large containing tensor "
            "(col2im): overlapping values are summed.",
    parameters=(*FIELDS, OUTPUT_SIZES),
    introduced="6_4",
    # The page's table gives 3 to 8 dimensions for both tensors and leaves the data types blank: every type
    # DirectML has. InputTensor is 3-D by the page's own text and examples, so the table's ranks are OutputTensor's:
    # the cases' OutputSizes give 3- to 8-D outputs (the ranks here are InputTensor's, which a case's rank names)
    tables=(SupportTable("6_4", (3,), ALL_TYPES),),
    in_place=False,
    constraints="The page: InputTensor and OutputTensor must have the same DimensionCount (InputTensor is 3-D, "
                "(N, C x prod(WindowSizes), BlockCount), by the page's text and examples); DimensionCount (the "
                "spatial dimensions) <= 6; BlockCount = prod(BlocksPerDimension).",
    tolerance_ulp={"float32": 0, "float16": 0},  # sums of small integers: exact in every order
    onnx_route="none: ONNX Runtime's Col2Im (opset 18) computes wrongly on its DirectML provider and corrupts other "
               "operators' outputs; col2im_node keeps the node for a probe",
    to_onnx=to_onnx,
    source=page("DML_FOLD_OPERATOR_DESC").replace("win32/api/directml", "ai/directml/api"),
    family=WINDOW,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    values_check=values_check,
    outputs=(Output("OutputTensor", bounds=lambda inputs, params: (None, None)),),
    integers=lambda params, dtype: None,
    notes=("The page's tensor support table leaves the data types blank: the cases try every DirectML type.",
           "The page does not say in which order overlapping values are summed: the float cases' values are "
           "small integers whose every partial sum is exact (values_check), so that every order gives one "
           "value; the sound accumulation bound for other values is issue 26's.",
           "The page's table gives 3 to 8 dimensions for InputTensor and OutputTensor, its text a 3-D InputTensor "
           "(N, C x prod(WindowSizes), BlockCount): the cases' inputs are 3-D and their outputs 3- to 8-D.",
           "ONNX Runtime 1.32.0's Col2Im sums some dilated folds (1-D of 2 channels, 6-D) into other places than "
           "DirectML and the oracle (which agree): those cases are not reached.",
           "Introduced in DirectML 1.15.1 (DML_FEATURE_LEVEL_6_4)."),
)
