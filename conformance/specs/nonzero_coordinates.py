import numpy as np

from conformance.specs.base import (FLOATS, INTEGERS_32, ONE_TO_EIGHT, OnnxNode, OperatorSpec, Output, Parameter,
                                    SupportTable, page)
from conformance.specs.families import INDEX

COUNT, COORDINATES = "OutputCountTensor", "OutputCoordinatesTensor"
TYPES = FLOATS + INTEGERS_32
COORDINATE_SIZES = Parameter(
    "OutputCoordinatesSizes", "uint_array", None,
    "No field: OutputCoordinatesTensor's sizes, { [1], ..., M, N }: M the InputTensor's element count, N from its "
    "effective rank up to its DimensionCount; unset: max(2, DimensionCount) dimensions, N = DimensionCount.",
    sizes_of=COORDINATES)


def effective_rank(shape) -> int:
    """The DimensionCount excluding leading dimensions of size 1 ({1,2,3,4}: 3; {1,1,1,1}: 0)."""
    leading = next((d for d, n in enumerate(shape) if n != 1), len(shape))
    return len(shape) - leading


def coordinate_sizes(input_shape, params) -> tuple:
    chosen = params.get("OutputCoordinatesSizes")
    if chosen is not None:
        return tuple(chosen)
    rank = len(input_shape)
    return (1,) * (max(rank, 2) - 2) + (int(np.prod(input_shape, dtype=np.int64)), rank)


def coordinates_level(params) -> str | None:
    """An OutputCoordinatesTensor of other than 4 or 5 dimensions needs 4_0 (the 3_0 table: 4 to 5)."""
    chosen = params.get("OutputCoordinatesSizes")
    return "4_0" if chosen is not None and len(chosen) not in (4, 5) else None


def output_shapes(input_shapes, params) -> tuple:
    """OutputCountTensor: the input's DimensionCount of ones; OutputCoordinatesTensor: { [1], ..., M, N }."""
    return (1,) * len(input_shapes[0]), coordinate_sizes(input_shapes[0], params)


def shape_check(input_shapes, params) -> str | None:
    shape = input_shapes[0]
    sizes, elements = coordinate_sizes(shape, params), int(np.prod(shape, dtype=np.int64))
    if elements == 0:
        return "InputTensor has no element: OutputCoordinatesTensor's M would be 0 (not tested)"
    if not 2 <= len(sizes) <= 8:
        return f"OutputCoordinatesSizes {list(sizes)}: OutputCoordinatesTensor has 2 to 8 dimensions"
    if any(n != 1 for n in sizes[:-2]) or sizes[-2] != elements:
        return (f"OutputCoordinatesSizes {list(sizes)} must be {{[1], ..., M, N}} with M = {elements}, the "
                "InputTensor's element count")
    if not effective_rank(shape) <= sizes[-1] <= len(shape):
        return (f"OutputCoordinatesSizes' N {sizes[-1]} must be from the InputTensor's effective rank "
                f"{effective_rank(shape)} up to its DimensionCount {len(shape)}")
    return None


def coordinates(x: np.ndarray, n: int) -> np.ndarray:
    """The last n coordinates of each non-zero element (NaN is not zero, -0 is), by ascending element index."""
    return np.argwhere(np.asarray(x) != 0)[:, x.ndim - n:] if n else np.zeros((np.count_nonzero(x), 0), np.int64)


def count_allowed(inputs, params) -> np.ndarray:
    """OutputCountTensor: the one count of non-zero elements, among 0 ... M."""
    x = np.asarray(inputs[0])
    allowed = np.zeros((1,) * x.ndim + (x.size + 1,), dtype=bool)
    allowed[..., np.count_nonzero(x)] = True
    return allowed


def coordinates_allowed(inputs, params) -> np.ndarray:
    """OutputCoordinatesTensor: in row m < count, the coordinate of the m-th non-zero element in each column;
    the rows beyond are undefined (rows_undefined), here any coordinate."""
    x = np.asarray(inputs[0])
    sizes = coordinate_sizes(x.shape, params)
    found = coordinates(x, sizes[-1])
    allowed = np.ones((x.size, sizes[-1], max(x.shape)), dtype=bool)
    allowed[:len(found)] = False
    rows, columns = np.indices(found.shape)
    allowed[rows, columns, found] = True
    return allowed.reshape(sizes + (max(x.shape),))


def rows_undefined(inputs, params) -> np.ndarray:
    """The rows of OutputCoordinatesTensor from OutputCount on: "undefined once this operator completes"."""
    x = np.asarray(inputs[0])
    sizes = coordinate_sizes(x.shape, params)
    rows = np.arange(x.size) >= np.count_nonzero(x)
    return np.broadcast_to(rows[:, None], (x.size, sizes[-1])).reshape(sizes)


def from_onnx(output, input_shapes, params) -> tuple:
    """NonZero's int64 [DimensionCount, count] as DirectML's two UINT32 tensors: the count, and the coordinates
    one row each (the last N columns), the rows beyond the count (undefined) zero."""
    output = np.asarray(output)
    sizes = coordinate_sizes(input_shapes[0], params)
    rows = np.zeros((sizes[-2], sizes[-1]), dtype=np.uint32)
    found = output.T[:, output.shape[0] - sizes[-1]:]
    rows[:len(found)] = found
    return np.full((1,) * len(input_shapes[0]), output.shape[1], dtype=np.uint32), rows.reshape(sizes)


SPEC = OperatorSpec(
    name="NONZERO_COORDINATES",
    struct="DML_NONZERO_COORDINATES_OPERATOR_DESC",
    formula="OutputCount = the number of elements x != 0 (-0.0 is zero); OutputCoordinates[m, :] = the last N "
            "coordinates of the m-th such element by ascending element index, for m < OutputCount; rows from "
            "OutputCount on undefined",
    summary="Computes the N-dimensional coordinates of all non-zero elements of the input tensor, and their count.",
    outputs=(Output(COUNT, dtype=lambda dtype: "uint32", allowed=count_allowed, slice_of_input=False),
             Output(COORDINATES, dtype=lambda dtype: "uint32", allowed=coordinates_allowed, slice_of_input=False,
                    undefined=rows_undefined)),
    parameters=(COORDINATE_SIZES,),
    introduced="3_0",
    tables=(SupportTable("4_0", ONE_TO_EIGHT, TYPES),
            SupportTable("3_0", (4, 5), TYPES)),
    in_place=False,
    constraints="OutputCountTensor is UINT32 and its Sizes are all 1; OutputCoordinatesTensor is UINT32 of Sizes "
                "{ [1], ..., M, N }, M the InputTensor's element count, N from its effective rank up to its "
                "DimensionCount. Dimension counts: 4 to 5 (3_0); InputTensor and OutputCountTensor 1 to 8, "
                "OutputCoordinatesTensor 2 to 8 (4_0).",
    tolerance_ulp={},  # counts and coordinates: exact
    onnx_route="NonZero (opset 13): its int64 [DimensionCount, count] read as DirectML's count and, transposed, "
               "its coordinate rows (the last N columns, the rows beyond the count zero)",
    to_onnx=lambda dtype, params: OnnxNode("NonZero", 13, output_type="int64", alone=True),
    source=page("DML_NONZERO_COORDINATES_OPERATOR_DESC"),
    family=INDEX,
    parameter_level=coordinates_level,
    output_shapes_rule=output_shapes,
    shape_check=shape_check,
    from_onnx=from_onnx,
    integers=lambda params, dtype: None,  # no arithmetic on the values: a comparison with zero
    notes=("Tables transcribed from the page (MicrosoftDocs/sdk-api): 3_0 and 4_0.",
           "OutputCoordinatesSizes is no field of the struct: OutputCoordinatesTensor's sizes, chosen by the case.",
           "The page leaves the dimension counts of the output tensors to the tables: here OutputCountTensor has "
           "the input's, OutputCoordinatesTensor max(2, the input's) unless a case gives its sizes.",
           "Where N exceeds the effective rank, the page's example writes the last N coordinates (a leading "
           "dimension of size 1 gives 0).",
           "The rows of OutputCoordinatesTensor from OutputCount on are undefined: not judged.",
           "The page says nothing of float32 subnormals (non-zero values): the oracle counts them."),
)
