"""What DEPTH_TO_SPACE, DEPTH_TO_SPACE1, SPACE_TO_DEPTH and SPACE_TO_DEPTH1 share: BlockSize and
Order, their pages' support tables, the shape rules and checks, the source of each output element
(written from the DML_DEPTH_SPACE_ORDER page's layouts as index arithmetic, apart from the oracle's
reshapes) and the ONNX route (DepthToSpace, SpaceToDepth)."""
import struct

import numpy as np

from conformance.specs.base import ALL_TYPES, FLOATS, INTEGERS_32, NotReachable, OnnxNode, Parameter, SupportTable
from oracle.depth_space import ORDERS

# Every page's table: 4-D only. The first versions: FLOAT32 and FLOAT16 at 1_0, the 8 to 32-bit integers
# from 2_1, FLOAT64 and the 64-bit integers from 5_0; the 1 versions were introduced at 2_1.
TABLE_5_0 = SupportTable("5_0", (4,), ("float64",) + ALL_TYPES)
TABLE_2_1 = SupportTable("2_1", (4,), FLOATS + INTEGERS_32)
TABLES = (TABLE_5_0, TABLE_2_1, SupportTable("1_0", (4,), FLOATS))
TABLES_1 = (TABLE_5_0, TABLE_2_1)

BLOCK_SIZE = Parameter("BlockSize", "uint", None, "The width and height of the blocks that are moved "
                       "(the page gives no default: a case gives it; at least 1).")
ORDER = Parameter("Order", "enum", ORDERS[0],
                  "A DML_DEPTH_SPACE_ORDER: DEPTH_COLUMN_ROW reads the depth as (BlockHeight, BlockWidth, "
                  "Channels), COLUMN_ROW_DEPTH as (Channels, BlockHeight, BlockWidth). The page gives no "
                  "typical value; the harness's default is DEPTH_COLUMN_ROW, the first version's.",
                  choices=ORDERS, enum_values={name: value for value, name in enumerate(ORDERS)})
SAME_TYPE = "InputTensor and OutputTensor must have the same DataType."
NOTES = ("Both orders from the DML_DEPTH_SPACE_ORDER page (DirectML.h: DEPTH_COLUMN_ROW 0, COLUMN_ROW_DEPTH 1).",
         "The pages do not say that BlockSize must be at least 1, nor that the sizes it divides must be "
         "multiples of it; the output sizes they give (a division) need both, so a case that breaks either "
         "is refused at load.")


def depth_to_space_shapes(input_shapes, params) -> tuple:
    """{N, C / (BlockSize * BlockSize), H * BlockSize, W * BlockSize}."""
    (n, c, h, w), b = input_shapes[0], params["BlockSize"]
    return ((n, c // (b * b), h * b, w * b),)


def space_to_depth_shapes(input_shapes, params) -> tuple:
    """{N, C * BlockSize * BlockSize, H / BlockSize, W / BlockSize}."""
    (n, c, h, w), b = input_shapes[0], params["BlockSize"]
    return ((n, c * b * b, h // b, w // b),)


def _block_problem(shape, params) -> str | None:
    block = params.get("BlockSize")
    if block is None:
        return "BlockSize is required"
    if block < 1:
        return f"BlockSize {block} must be at least 1"
    if len(shape) != 4:
        return f"InputTensor has {len(shape)} dimensions; the page's are {{N, C, H, W}}: 4"
    return None


def depth_to_space_check(input_shapes, params) -> str | None:
    shape = input_shapes[0]
    problem = _block_problem(shape, params)
    if problem is None and shape[1] % (params["BlockSize"] ** 2):
        block = params["BlockSize"]
        problem = (f"InputTensor's channels {shape[1]} are not a multiple of BlockSize * BlockSize "
                   f"{block * block}")
    return problem


def space_to_depth_check(input_shapes, params) -> str | None:
    shape = input_shapes[0]
    problem = _block_problem(shape, params)
    if problem is None and (shape[2] % params["BlockSize"] or shape[3] % params["BlockSize"]):
        problem = f"InputTensor's height {shape[2]} and width {shape[3]} must be multiples of BlockSize {params['BlockSize']}"
    return problem


def _depth_index(channel, block_row, block_column, channels, block, order):
    """Where (channel, block row, block column) sits in the flattened depth dimension."""
    if order == ORDERS[0]:  # (BlockHeight, BlockWidth, Channels)
        return (block_row * block + block_column) * channels + channel
    return (channel * block + block_row) * block + block_column  # (Channels, BlockHeight, BlockWidth)


def depth_to_space_source(output_index, inputs, params) -> tuple:
    """Output [n, c, y, x] is copied from input [n, d, y / BlockSize, x / BlockSize], d the depth of
    (c, y mod BlockSize, x mod BlockSize) in Order (the first versions: DEPTH_COLUMN_ROW)."""
    n, c, y, x = (np.asarray(i) for i in output_index)
    block, depth = params["BlockSize"], np.shape(inputs[0])[1]
    channel = _depth_index(c, y % block, x % block, depth // (block * block), block, params.get("Order", ORDERS[0]))
    return np.zeros(np.shape(c), dtype=np.intp), (n, channel, y // block, x // block)


def space_to_depth_source(output_index, inputs, params) -> tuple:
    """Output [n, d, y, x] is copied from input [n, c, y * BlockSize + i, x * BlockSize + j], (c, i, j)
    the parts of the depth d in Order (the first versions: DEPTH_COLUMN_ROW)."""
    n, d, y, x = (np.asarray(i) for i in output_index)
    block, channels = params["BlockSize"], np.shape(inputs[0])[1]
    if params.get("Order", ORDERS[0]) == ORDERS[0]:
        channel, block_row, block_column = d % channels, d // (channels * block), d // channels % block
    else:
        channel, block_row, block_column = d // (block * block), d // block % block, d % block
    return np.zeros(np.shape(d), dtype=np.intp), (n, channel, y * block + block_row, x * block + block_column)


# ONNX's mode names for the two orders: DCR is DEPTH_COLUMN_ROW, CRD COLUMN_ROW_DEPTH
ONNX_MODES = {ORDERS[0]: "DCR", ORDERS[1]: "CRD"}


def depth_to_space_onnx(dtype: str, params: dict) -> OnnxNode:
    # Alone: a shared graph's (1,) placeholder is refused by a node that takes 4-D tensors only
    mode = ONNX_MODES[params.get("Order", ORDERS[0])]
    return OnnxNode("DepthToSpace", 13, attributes={"blocksize": int(params["BlockSize"]), "mode": mode}, alone=True)


def space_to_depth_onnx(dtype: str, params: dict) -> OnnxNode:
    if params.get("Order", ORDERS[0]) != ORDERS[0]:
        raise NotReachable("ONNX's SpaceToDepth has no mode: its depth is (BlockHeight, BlockWidth, Channels) "
                           "only, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW")
    return OnnxNode("SpaceToDepth", 13, attributes={"blocksize": int(params["BlockSize"])}, alone=True)


def _nan(bits: int, dtype: str) -> float:
    """A NaN of these bits (in dtype) as a Python float that converts to them: float64 bits as they are,
    float32 bits moved to float64's top (the conversion keeps the payload; it quiets a signalling NaN)."""
    if dtype == "float32":
        sign, payload = bits >> 31, bits & 0x3FFFFF
        bits = sign << 63 | 0x7FF8 << 48 | payload << 29
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def nan_payloads(dtype: str, params: dict) -> list:
    """NaNs a copy must keep bit for bit: a negative one, quiet ones with payloads, and for float64 a
    signalling one (float16's are every bit pattern of the exhaustive cases)."""
    if dtype == "float64":
        return [_nan(b, dtype) for b in (0xFFF8000000000000, 0x7FF8000000012345, 0x7FF0000000000001)]
    if dtype == "float32":
        return [_nan(b, dtype) for b in (0xFFC00000, 0x7FC12345, 0xFFC00001)]
    return []


def copies(params, dtype):
    """A copy: no arithmetic on integers to state (the registry's Python-int check does not apply)."""
    return None
