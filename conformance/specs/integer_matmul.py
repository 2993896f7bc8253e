"""What MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT and QUANTIZED_LINEAR_MATRIX_MULTIPLY
share: their inputs named by the page (A and B with a scale and _Maybenull_ zero point each, per
tensor, per row of A or per column of B), their shapes, the exact integer sum S = sum over k of
(A - AZeroPoint)(B - BZeroPoint) as a Dot step of no rounding (count 0: the judge adds no error), and
the sum of the dequantized matrices' products as a float GEMM computes it."""
import numpy as np

from conformance.specs import matmul
from conformance.specs.accumulation import Dot
from conformance.specs.base import Input, optional_tensor
from oracle.integer_matmul import bound, integer_product

QUANTIZED = ("int8", "uint8")
FLOAT32 = lambda dtype: "float32"  # noqa: E731
ZERO_POINT = "_Maybenull_: absent, the zero point is 0."


def zero_point(name: str, dtype=None) -> Input:
    return Input(name, role="zero_point", broadcast=False, aliases_output=False, dtype=dtype, optional=True)


def scale(name: str, dtype=FLOAT32) -> Input:
    return Input(name, role="scale", broadcast=False, aliases_output=False, dtype=dtype)


def matrix(name: str, dtype=None) -> Input:
    return Input(name, broadcast=False, aliases_output=False, dtype=dtype)


def zero_point_presence(names) -> tuple:
    return tuple(optional_tensor(name, ZERO_POINT) for name in names)


def named(spec, values, params) -> dict:
    """The case's inputs (or their shapes), in the page's order without the absent ones, by short name."""
    return {t.short: v for t, v in zip(spec.input_tensors(params), values)}


def presence(spec, params) -> dict:
    """Each optional input's presence by short name (oracle/integer_matmul.bound reads it)."""
    absent = spec.absent_tensors(params)
    return {i.short: ("absent" if i.name in absent else "present") for i in spec.inputs if i.optional}


def shape_check(spec, input_shapes, params, per_row: tuple, per_column: tuple, like_output: tuple = (),
                same_rank: tuple = ()) -> str | None:
    """A and B as matmul's; each per-row tensor (per_row: short names) {[1], .., 1 or M, 1}, each per-column one
    {[1], .., 1, 1 or N}, of the output's DimensionCount or fewer (the bracketed leading ones left out; the
    tables say how few); each like_output one the output's Sizes; the same_rank ones of one DimensionCount."""
    shapes = named(spec, input_shapes, params)
    problem = matmul.shape_check((shapes["A"], shapes["B"]), {})
    if problem:
        return problem
    out = matmul.output_shapes((shapes["A"], shapes["B"]), {})[0]
    m, n = out[-2], out[-1]
    for name in per_row + per_column:
        if name not in shapes:
            continue
        rank = len(shapes[name])
        what = "row of A" if name in per_row else "column of B"
        if rank > len(out):
            return f"{name} {list(shapes[name])}: more dimensions than the output {list(out)}"
        if name in per_row and rank == 1:
            if tuple(shapes[name]) != (1,):
                # { [1], [1], Count, [1] }: a 1-D one could be {Count} (per row) or, read as DirectML aligns
                # Sizes from the last, per column; the page does not say which
                return (f"{name} {list(shapes[name])}: a 1-D {name} is [1] (per tensor); the page does not say "
                        f"which dimension a 1-D one of more elements keeps: give {[m, 1]} for one per row")
            continue
        per = (1,) * (rank - 2) + (m, 1) if name in per_row else (1,) * (rank - 1) + (n,)
        if tuple(shapes[name]) not in ((1,) * rank, per):
            return f"{name} {list(shapes[name])}: one element {[1] * rank}, or one per {what} {list(per)}"
    given = [name for name in same_rank if name in shapes]
    if len({len(shapes[name]) for name in given}) > 1:
        return ("must have the same DimensionCount: " +
                ", ".join(f"{name} {list(shapes[name])}" for name in given))
    for name in like_output:
        if name in shapes and tuple(shapes[name]) != out:
            return f"{name} {list(shapes[name])}: must have the output's Sizes {list(out)}"
    return None


def output_shapes(spec, input_shapes, params) -> tuple:
    shapes = named(spec, input_shapes, params)
    return matmul.output_shapes((shapes["A"], shapes["B"]), {})


def exact_sum(spec):
    """S, the integer sum of (A - AZeroPoint)(B - BZeroPoint), exact: a Dot of count 0."""
    def values(inputs, params):
        given = bound(inputs, tuple(i.short for i in spec.inputs), presence(spec, params))
        return integer_product(given["A"], given["AZeroPoint"], given["B"], given["BZeroPoint"]).astype(np.float64)

    def magnitude(inputs, params):
        given = bound(inputs, tuple(i.short for i in spec.inputs), presence(spec, params))
        differences = [np.abs(np.asarray(given[m], np.int64) - np.asarray(given[m + "ZeroPoint"], np.int64))
                       for m in ("A", "B")]
        return integer_product(differences[0], 0, differences[1], 0).astype(np.float64)
    return Dot("S", values, magnitude, lambda inputs, params: 0)


# A dequantized factor (A - AZeroPoint) * AScale in float: the difference converted to float (exact below 2^24,
# rounded for 32-bit integers) and scaled, two roundings per factor, two factors per product
DEQUANTIZING_ROUNDINGS = 4


def dequantized_sum(spec):
    """S = sum over k of (A - AZeroPoint) * AScale * (B - BZeroPoint) * BScale as a float GEMM of the dequantized
    matrices computes it in any order: a Dot of K + DEQUANTIZING_ROUNDINGS roundings per product (Higham's
    gamma(n) with each factor's own roundings; the scales applied after an integer or float sum lie inside)."""
    def given(inputs, params):
        return bound(inputs, tuple(i.short for i in spec.inputs), presence(spec, params))

    def scales(values):
        return np.asarray(values["AScale"], np.float64) * np.asarray(values["BScale"], np.float64)

    def values(inputs, params):
        g = given(inputs, params)
        return integer_product(g["A"], g["AZeroPoint"], g["B"], g["BZeroPoint"]).astype(np.float64) * scales(g)

    def magnitude(inputs, params):
        g = given(inputs, params)
        differences = [np.abs(np.asarray(g[m], np.int64) - np.asarray(g[m + "ZeroPoint"], np.int64))
                       for m in ("A", "B")]
        return integer_product(differences[0], 0, differences[1], 0).astype(np.float64) * np.abs(scales(g))

    def count(inputs, params):
        return int(np.shape(given(inputs, params)["A"])[-1]) + DEQUANTIZING_ROUNDINGS
    return Dot("S", values, magnitude, count)
