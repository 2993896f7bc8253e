"""What the GATHER pages share: the index tensor, the type a case chooses for it, DirectML's
right-aligned dimensions (every tensor of one DimensionCount, leading ones padding or cropped), and
the route to ONNX's nodes, which take the meaningful dimensions alone."""
import numpy as np

from conformance.specs.base import FLOATS, INTEGERS_32, INTEGERS_64, Input, NotReachable, Parameter, SupportTable

INDEX_TYPES = ("uint32", "int32", "uint64", "int64")  # the 3_0 tables' IndicesTensor types
INPUT_AND_INDICES = (Input("InputTensor", broadcast=False, aliases_output=False),
                     Input("IndicesTensor", role="indices", broadcast=False, aliases_output=False,
                           dtype=lambda dtype: "uint32"))
INDICES_TYPE = Parameter("IndicesType", "tensor_type", None,
                         "No field: IndicesTensor's data type (UINT32 where the case gives none; INT32, UINT64 "
                         "and INT64 from DML_FEATURE_LEVEL_3_0, negative indices only in a signed type).",
                         choices=INDEX_TYPES, unset=lambda dtype: "uint32", tensors=("IndicesTensor",))
ALL_DATA_4_1 = ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32
DATA_3_0 = FLOATS + INTEGERS_32


def index_tables(first_level: str) -> tuple:
    """The tables GATHER's, SCATTER's and ONE_HOT's pages share: 1 to 8 dimensions and every type from
    4_1, the 8 to 32-bit types from 3_0, those at 4 dimensions from 2_1, FLOAT32/16 at 4 from first_level."""
    return (SupportTable("4_1", tuple(range(1, 9)), ALL_DATA_4_1),
            SupportTable("3_0", tuple(range(1, 9)), DATA_3_0),
            SupportTable("2_1", (4,), DATA_3_0),
            SupportTable(first_level, (4,), FLOATS))
NEGATIVE = ("From DML_FEATURE_LEVEL_3_0 an index of a signed type may be negative: it counts from the end "
            "of the dimension it addresses (-1 the last element).")


def index_type_level(params: dict) -> str | None:
    """The 1_0 and 2_1 tables allow UINT32 indices alone; the others come with 3_0."""
    return "3_0" if params.get("IndicesType") not in (None, "uint32") else None


def onnx_index_type(params: dict, allowed=("int32", "int64")) -> None:
    """ONNX's index inputs are signed: a case of unsigned indices is not reachable."""
    chosen = params.get("IndicesType") or "uint32"
    if chosen not in allowed:
        raise NotReachable(f"ONNX takes {' or '.join(t.upper() for t in allowed)} indices, not {chosen.upper()}")


def aligned(sizes, count: int) -> tuple:
    """Sizes right-aligned to count dimensions: leading ones padded, or leading ones cropped."""
    sizes = tuple(int(n) for n in sizes)
    return (1,) * (count - len(sizes)) + sizes if len(sizes) <= count else sizes[len(sizes) - count:]


def crop_problem(sizes, count: int, what: str) -> str | None:
    """Why sizes cannot be right-aligned to count dimensions (a cropped one is not 1), or None."""
    extra = tuple(sizes)[:max(len(sizes) - count, 0)]
    if any(n != 1 for n in extra):
        return (f"{what} {list(sizes)} has {len(sizes)} relevant dimensions; only leading ones may be cropped "
                f"to the output's DimensionCount {count}")
    return None


def leading_ones_problem(sizes, meaningful: int, name: str) -> str | None:
    """The dimensions before the meaningful ones must be 1 (the page: irrelevant leading ones)."""
    if any(n != 1 for n in tuple(sizes)[:len(sizes) - meaningful]):
        return f"{name} {list(sizes)}: the dimensions before the last {meaningful} must be 1"
    return None


def unaligned(output_index, relevant: int) -> tuple:
    """An output index (one array per output dimension) as an index into the relevant dimensions:
    leading padding dropped, cropped leading ones put back as 0."""
    index = tuple(np.asarray(o) for o in output_index)
    if relevant <= len(index):
        return index[len(index) - relevant:]
    zero = np.zeros_like(index[0])
    return (zero,) * (relevant - len(index)) + index


def wrapped(index, size):
    """A negative index counted from the end of a dimension of size elements."""
    index = np.asarray(index).astype(np.int64)
    return np.where(index < 0, index + size, index)


__all__ = ["INDEX_TYPES", "INPUT_AND_INDICES", "INDICES_TYPE", "ALL_DATA_4_1", "DATA_3_0", "NEGATIVE",
           "index_type_level", "onnx_index_type", "aligned", "crop_problem", "leading_ones_problem", "unaligned",
           "wrapped"]
