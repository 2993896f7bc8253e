"""GEMM's oracle and its sound bound (issue 26): simulated float32 devices summing in the orders a
device may choose pass; the faults the issue names (TransA ignored, TF32-like products, float16
accumulation without the half-precision permission, a term dropped) are caught."""
import numpy as np
import pytest

import oracle
from conformance import specs
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.specs.base import ABSENT, computed_fields

GEMM = specs.get("GEMM")
TRANSPOSE = "DML_MATRIX_TRANSFORM_TRANSPOSE"
FLAG = "ALLOW_HALF_PRECISION_COMPUTATION"


def params(**given) -> dict:
    return {**GEMM.defaults(), **given}


def verdict(inputs, fields, dtype, actual):
    """The d3d verdict's count of elements outside the interval, and the largest fraction of the bound."""
    fields = params(**fields)
    computed = computed_fields(fields)
    expected = oracle.evaluate("GEMM", inputs, dtype, **computed)
    reference = oracle.reference("GEMM", inputs, dtype, **computed)
    shapes = tuple(np.shape(v) for v in inputs)
    result = compare_accumulated(GEMM, inputs, fields, dtype, expected, reference, actual,
                                 GEMM.ulp_tolerance(shapes, fields, dtype))
    return result.d3d["failed"], result.d3d["bound_fraction"]


def test_oracle_computes_the_pages_formula_with_transposes_alpha_beta_and_c():
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.array([[5, 6], [7, 8]], np.float32)
    c = np.ones((2, 2), np.float32)
    got = oracle.reference("GEMM", (a, b, c), "float32", TransA=TRANSPOSE, Alpha=2.0, Beta=0.5)
    # A^T B = [[26, 30], [38, 44]]; 2 * that + 0.5
    assert got.tolist() == [[52.5, 60.5], [76.5, 88.5]]
    got = oracle.reference("GEMM", (a, b), "float32", TransB=TRANSPOSE, CTensor=ABSENT, Beta=7.0)
    assert got.tolist() == [[17.0, 23.0], [39.0, 53.0]], "C absent: 0 and Beta ignored"
    got = oracle.reference("GEMM", (a, b, -100 * c), "float32", FusedActivation={"Type": "ACTIVATION_RELU"})
    assert got.tolist() == [[0.0, 0.0], [0.0, 0.0]], "RELU(A B - 100): every product sum is below 100"


_BELOW_FLOAT32 = np.uint64((1 << 29) - 1)  # the float64 fraction bits a float32 lacks


def _to_float32(x64, truncate: bool):
    """float64 -> float32, rounded to nearest, or toward zero (Direct3D lets float32 arithmetic truncate;
    the bits cut off exactly where the values are float32's normal numbers, as here)."""
    if not truncate:
        return x64.astype(np.float32)
    return (np.ascontiguousarray(x64, np.float64).view(np.uint64) & ~_BELOW_FLOAT32).view(np.float64).astype(np.float32)


def _term(a, b, k):
    """The k-th product of every output (exact in float64 for float32 or float16 inputs)."""
    return a[..., :, k, None].astype(np.float64) * b[..., k, None, :].astype(np.float64)


def _sequential(a, b, fused: bool, truncate: bool, ks=None):
    """Left to right in float32, each add (a fused mad: product and add rounded once) rounded."""
    total = None
    for k in ks if ks is not None else range(a.shape[-1]):
        product = _term(a, b, k)
        product = product if fused else _to_float32(product, truncate).astype(np.float64)
        total = _to_float32(product if total is None else total + product, truncate).astype(np.float64)
    return total.astype(np.float32)


def _pairwise(a, b, truncate: bool, lo=0, hi=None):
    """Halves summed recursively, each product and add rounded to float32."""
    hi = a.shape[-1] if hi is None else hi
    if hi - lo == 1:
        return _to_float32(_term(a, b, lo), truncate)
    mid = (lo + hi) // 2
    return _to_float32(_pairwise(a, b, truncate, lo, mid).astype(np.float64) + _pairwise(a, b, truncate, mid, hi),
                       truncate)


def _blocked(a, b, block: int, fused: bool):
    """Sequential sums of blocks of `block` products, then the blocks' sums added sequentially."""
    partial = [_sequential(a, b, fused, False, range(s, s + block)).astype(np.float64)
               for s in range(0, a.shape[-1], block)]
    total = partial[0].astype(np.float32)
    for p in partial[1:]:
        total = (total.astype(np.float64) + p).astype(np.float32)
    return total


def test_simulated_float32_devices_in_every_order_pass_on_over_100000_outputs():
    """25 batches of 64x256 by 256x64 (102,400 outputs), A B summed in each order, then Alpha * S +
    Beta * C in float32 (or Alpha folded into A first): every output within the bound, and one
    (truncated) near it."""
    rng = np.random.default_rng(26)
    a = rng.uniform(-1, 1, (25, 64, 256)).astype(np.float32)
    b = rng.uniform(-1, 1, (25, 256, 64)).astype(np.float32)
    c = rng.uniform(-1, 1, (25, 64, 64)).astype(np.float32)
    a[:, :, :128] *= 1000  # wide range within one sum
    # One output at the bound: 1, then terms of 0.999 ULP of 1, each lost by a truncating add
    a[0, 0, 0], a[0, 0, 1:], b[0, :, 0], c[0, 0, 0] = 1.0, np.float32(0.999 * 2.0 ** -23), 1.0, 0.0
    alpha, beta = np.float32(0.3), np.float32(-2.0)
    sums = {"sequential": _sequential(a, b, False, False), "sequential-fused": _sequential(a, b, True, False),
            "sequential-truncated": _sequential(a, b, False, True), "pairwise": _pairwise(a, b, False),
            "pairwise-truncated": _pairwise(a, b, True),
            **{f"blocked-{n}": _blocked(a, b, n, n != 64) for n in (32, 64, 256)}}
    outputs = {order: (alpha * s).astype(np.float32) + (beta * c).astype(np.float32) for order, s in sums.items()}
    folded = _sequential((alpha * a).astype(np.float32), b, True, False)
    outputs["alpha-folded-fused"] = folded + (beta * c).astype(np.float32)
    fields = params(Alpha=float(alpha), Beta=float(beta))
    allowed = interval(GEMM, (a, b, c), fields, "float32")  # what compare_accumulated judges by, once for all
    exact = oracle.reference("GEMM", (a, b, c), "float32", **computed_fields(fields))
    worst = {}
    for order, output in outputs.items():
        got = output.astype(np.float64)
        outside = ~(allowed.num & (got >= allowed.lo) & (got <= allowed.hi))
        assert not outside.any(), f"{order}: {outside.sum()} of {got.size} outputs outside the bound"
        worst[order] = float(np.max(np.abs(got - exact) / np.maximum(allowed.hi - exact, exact - allowed.lo)))
    assert worst["sequential-truncated"] > 0.9, f"no device came near the bound ({worst}): it is not exercised"
    assert verdict((a[:2], b[:2], c[:2]), fields, "float32", outputs["pairwise"][:2])[0] == 0, "the judge's verdict"


def test_float16_with_float32_accumulation_passes_without_the_flag_and_float16_sums_need_it():
    rng = np.random.default_rng(3)
    a = rng.uniform(0, 1, (2, 1024)).astype(np.float16)
    b = rng.uniform(0, 1, (1024, 3)).astype(np.float16)
    in_float32 = _sequential(a, b, True, False).astype(np.float16)
    total = np.zeros((2, 3), np.float16)
    for k in range(1024):  # products and adds in float16
        total = (total + _term(a, b, k).astype(np.float16)).astype(np.float16)
    fields = {"CTensor": ABSENT}
    assert verdict((a, b), fields, "float16", in_float32)[0] == 0, "float32 accumulation is always allowed"
    failed, fraction = verdict((a, b), fields, "float16", total)
    assert failed > 0, f"float16 accumulation without {FLAG} passed (bound fraction {fraction})"
    assert verdict((a, b), {**fields, "ExecutionFlags": FLAG}, "float16", total)[0] == 0, \
        f"float16 accumulation with {FLAG} failed"


def test_transa_ignored_is_caught():
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(-2, 2, (6, 6)).astype(np.float32) for _ in range(2))
    ignored = (a.astype(np.float64) @ b).astype(np.float32)  # A, not A^T
    failed, _ = verdict((a, b), {"TransA": TRANSPOSE, "CTensor": ABSENT}, "float32", ignored)
    assert failed > 30, f"TransA ignored: only {failed} of 36 outputs outside the bound"
    honest = (a.T.astype(np.float64) @ b).astype(np.float32)
    assert verdict((a, b), {"TransA": TRANSPOSE, "CTensor": ABSENT}, "float32", honest)[0] == 0


def test_tf32_like_inputs_are_caught_at_k_4096_where_their_rounding_errors_line_up():
    """TF32 rounds each input to a 10-bit mantissa (2^-11 relative): per product about 2^-10 against the
    bound's gamma(4096) = 2^-11 per |a b|. Random inputs' errors cancel and stay inside; inputs just
    above TF32's halfway points all round up and land outside."""
    def tf32(x):
        bits = x.astype(np.float32).view(np.uint32)
        return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)  # nearest, ties away

    k = 4096
    a = np.full((2, k), 1 + 2.0 ** -11 + 2.0 ** -23, np.float32)
    b = np.full((k, 3), 1 + 2.0 ** -11 + 2.0 ** -23, np.float32)
    faulty = (tf32(a).astype(np.float64) @ tf32(b)).astype(np.float32)
    failed, fraction = verdict((a, b), {"CTensor": ABSENT}, "float32", faulty)
    assert failed == 6, f"TF32 inputs: {failed} of 6 outputs outside the bound (bound fraction {fraction})"
    honest = _sequential(a, b, False, True)
    assert verdict((a, b), {"CTensor": ABSENT}, "float32", honest)[0] == 0


def test_one_term_dropped_is_caught():
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (8, 256)).astype(np.float32)
    b = rng.uniform(-1, 1, (256, 8)).astype(np.float32)
    dropped = (a[:, :-1].astype(np.float64) @ b[:-1]).astype(np.float32)
    failed, _ = verdict((a, b), {"CTensor": ABSENT}, "float32", dropped)
    assert failed > 48, f"the last product dropped: only {failed} of 64 outputs outside the bound"


@pytest.mark.parametrize("shapes,problem", [
    (((2, 3), (4, 5), (2, 5)), "K 3 and 4 differ"),
    (((2, 3), (3, 5), (2, 4)), "the same Sizes"),
    (((1, 2, 3), (2, 3, 5), (2, 2, 5)), "leading"),
])
def test_shapes_the_page_refuses_are_refused(shapes, problem):
    assert problem in GEMM.shape_problem(shapes, params())


def test_wrong_counts_of_ulp_follow_webnn():
    shapes = ((4, 7), (7, 3), (4, 3))
    assert GEMM.ulp_tolerance(shapes, params(), "float32") == 2 * 7 + 1
    assert GEMM.ulp_tolerance(shapes, params(Alpha=0.5, Beta=2.0), "float32") == 2 * 7 + 3
    assert GEMM.ulp_tolerance(shapes[:2], params(CTensor=ABSENT, Beta=2.0), "float32") == 2 * 7
    assert GEMM.ulp_tolerance(((7, 4), (7, 3), (4, 3)), params(TransA=TRANSPOSE, Beta=0.0), "float32") == 2 * 7


def test_an_infinity_times_a_flushed_denormal_may_be_nan_and_nothing_else_may():
    """Direct3D lets float32 flush a denormal input: -inf * 1e-40 is then -inf * 0, NaN. The H100 gives that
    (docs/gpu/issue26/); with a normal factor instead, NaN is outside."""
    a = np.array([[-np.inf, 1.0]], np.float32)
    flushed = np.array([[np.float32(1e-40)], [2.0]], np.float32)
    normal = np.array([[1e-3], [2.0]], np.float32)
    fields = {"CTensor": ABSENT}
    nan = np.array([[np.nan]], np.float32)
    assert verdict((a, flushed), fields, "float32", nan)[0] == 0
    assert verdict((a, flushed), fields, "float32", np.array([[-np.inf]], np.float32))[0] == 0
    assert verdict((a, normal), fields, "float32", nan)[0] == 1
