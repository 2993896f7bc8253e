"""The shapes of DirectML's matrix products (GEMM, MATRIX_MULTIPLY_INTEGER and its kin): BatchCount *
ChannelCount independent {M,K} x {K,N} = {M,N} products over the last two dimensions, the leading
ones (BatchCount, ChannelCount) the same in every tensor (the pages give C and the output the same
Sizes; a broadcast batch is zero strides in DirectML, not smaller Sizes)."""
from oracle.gemm import TRANSPOSE


def operands(a_shape, b_shape, params) -> tuple:
    """(batch, M, K of A, K of B, N) of TransA(A) x TransB(B)."""
    m, ka = (a_shape[-1], a_shape[-2]) if params.get("TransA") == TRANSPOSE else (a_shape[-2], a_shape[-1])
    kb, n = (b_shape[-1], b_shape[-2]) if params.get("TransB") == TRANSPOSE else (b_shape[-2], b_shape[-1])
    return tuple(a_shape[:-2]), m, ka, kb, n


def output_shapes(input_shapes, params) -> tuple:
    batch, m, _, _, n = operands(input_shapes[0], input_shapes[1], params)
    return (batch + (m, n),)


def shape_check(input_shapes, params, names=("A", "B")) -> str | None:
    """A and B (names: the page's short names of the two matrices) of one dimension count, at least 2,
    one batch, one K; the other inputs (C) checked by the spec."""
    a, b = input_shapes[0], input_shapes[1]
    if len(a) < 2 or len(a) != len(b):
        return f"{names[0]} {list(a)} and {names[1]} {list(b)}: one DimensionCount, at least 2 (the last two M, K " \
               "and K, N)"
    batch, m, ka, kb, n = operands(a, b, params)
    if batch != tuple(b[:-2]):
        return f"{names[0]} {list(a)} and {names[1]} {list(b)}: the leading (BatchCount, ChannelCount) sizes must be " \
               "the same"
    if ka != kb:
        return f"{names[0]} {list(a)} and {names[1]} {list(b)}: K {ka} and {kb} differ (after TransA, TransB)"
    if 0 in (m, ka, n):
        return f"M {m}, K {ka}, N {n}: a product of empty matrices"
    return None


def k_of(a_shape, params) -> int:
    """K, the number of products per output element."""
    return int(a_shape[-2] if params.get("TransA") == TRANSPOSE else a_shape[-1])
