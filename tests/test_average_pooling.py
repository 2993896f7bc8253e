"""AVERAGE_POOLING, AVERAGE_POOLING1, LP_POOLING, LP_POOLING1 and QUANTIZED_LINEAR_AVERAGE_POOLING: the oracle
against hand-computed windows, every case through the oracle (inside its own bound) and ONNX Runtime's CPU
provider, and the judge's window sums sound (issue 26): simulated devices summing each window every legal way
(tests/accumulation_devices.py) pass on over 10^6 counted outputs of uniform, cancelling, wide and denormal data,
and every order in exact rational arithmetic lands inside; while an average that counts the padding when told
not to, float16 summed in half without the permission, and a quantized average that forgets a zero point, fail."""
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import oracle
from accumulation_devices import devices, rounded, store, sum_rows
from exact_orders import every_order, round_fraction, sampled_orders
from soundness_tally import Tally
from conformance import backends, statuses
from conformance.caseset.caseload import load_file
from conformance.judge.accumulated import compare_accumulated, interval
from conformance.judge.bounded import compare_bounded
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs import get
from oracle.windows import taps

CASES = Path(__file__).resolve().parent.parent / "cases"
OPERATORS = ("AVERAGE_POOLING", "AVERAGE_POOLING1", "LP_POOLING", "LP_POOLING1", "QUANTIZED_LINEAR_AVERAGE_POOLING")
QUANTIZED = "QUANTIZED_LINEAR_AVERAGE_POOLING"
PADDED = {"Strides": [1, 1], "WindowSize": [3, 3], "StartPadding": [1, 1], "EndPadding": [1, 1]}


def windows_of(x, params):
    """Each output's window taps as rows (padding as 0 terms), and the outputs' shape."""
    index, valid = taps(x.shape, params)
    terms = np.where(valid, x.astype(np.float64)[index], 0.0)
    return terms.reshape(-1, terms.shape[-1]), valid.shape[:-1], valid.reshape(-1, valid.shape[-1]).sum(axis=1)


def averaged(x, params, order="sequential", precision="float32", rounding="nearest", flush=False, divisor=None):
    """A simulated device: each window summed in precision by order, divided in float32, stored."""
    rows, shape, inside = windows_of(x, params)
    total = sum_rows(rows, order, precision, rounding, flush=flush)
    if divisor is None:
        divisor = np.prod(params["WindowSize"]) if params["IncludePadding"] else inside
    return store(rounded(total / divisor, "float32", rounding), x.dtype, rounding).reshape(shape)


def outside(op, x, params, actual):
    """How many output elements lie outside the judge's d3d interval."""
    dtype = x.dtype.name
    exact = oracle.reference(op, x, dtype, **params)
    result = compare_accumulated(get(op), (x,), params, dtype, oracle.evaluate(op, x, dtype, **params), exact,
                                 np.asarray(actual, dtype=dtype), ulp_tolerance=0)
    return result.d3d["failed"]


def test_the_oracle_is_hand_computed_windows():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    fields = {"Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [1, 1], "EndPadding": [0, 0]}
    counted = oracle.evaluate("AVERAGE_POOLING", x, "float32", **fields, IncludePadding=1)
    inside = oracle.evaluate("AVERAGE_POOLING", x, "float32", **fields, IncludePadding=0)
    assert counted[0, 0].tolist() == [[0.25, 0.75, 1.25], [1.25, 3.0, 4.0], [2.75, 6.0, 7.0]]
    assert inside[0, 0].tolist() == [[1.0, 1.5, 2.5], [2.5, 3.0, 4.0], [5.5, 6.0, 7.0]]
    row = np.array([1, 2, 3, 4, 5], dtype=np.float32).reshape(1, 1, 1, 5)
    dilated = {"Strides": [1, 1], "WindowSize": [1, 2], "StartPadding": [0, 0], "EndPadding": [0, 0],
               "Dilations": [1, 3]}
    assert oracle.evaluate("AVERAGE_POOLING1", row, "float32", **dilated, IncludePadding=0).tolist() == \
        [[[[2.5, 3.5]]]]
    pair = np.array([-3, 4], dtype=np.float32).reshape(1, 1, 1, 2)
    whole = {"Strides": [1, 1], "WindowSize": [1, 2], "StartPadding": [0, 0], "EndPadding": [0, 0]}
    assert [oracle.evaluate("LP_POOLING", pair, "float32", **whole, P=p)[0, 0, 0, 0] for p in (1, 2)] == [7, 5]
    assert oracle.reference("LP_POOLING1", pair, "float32", **whole, Dilations=[1, 1], P=3)[0, 0, 0, 0] == \
        pytest.approx(91 ** (1 / 3), rel=1e-15)


def run(name, chosen):
    return {r["id"]: r for r in runner.run(chosen, backends.create(name, announce=lambda m: None), "6_2",
                                           ResultsWriter(None)).records}


def test_every_case_passes_through_the_oracle_and_the_cpu_provider():
    chosen = [c for op in OPERATORS for c in load_file(CASES / f"{op.lower()}.yaml")]
    assert {r["status"] for r in run("python:oracle:evaluate", chosen).values()} == {statuses.PASS}
    records = run("cpu", chosen)
    counts = {s: sum(r["status"] == s for r in records.values()) for s in statuses.ALL}
    # not reachable: ExecutionFlags other than NONE (the provider compiles with its own)
    assert counts[statuses.FAIL] == 0 and counts[statuses.PASS] >= 170, counts


# -- sound: simulated devices, every legal order, rounding, fusion and flush, counted (issue 26) ----------------------

HALF = "ALLOW_HALF_PRECISION_COMPUTATION"
TALLY = Tally("pooling")
# (label, operator, fields, input shape): small windows overlapping with the padding counted or not, dilated,
# and disjoint windows of 64 and 289 terms (the blocked orders' blocks; their rows can be made to cancel)
POOLS = (
    ("average 3x3", "AVERAGE_POOLING", {**PADDED, "IncludePadding": 0}, (1, 4, 30, 30)),
    ("average 3x3 padding counted", "AVERAGE_POOLING", {**PADDED, "IncludePadding": 1}, (1, 4, 30, 30)),
    ("average1 dilated", "AVERAGE_POOLING1", {**PADDED, "Dilations": [2, 2], "StartPadding": [2, 2],
                                              "EndPadding": [2, 2], "IncludePadding": 0}, (1, 4, 30, 30)),
    ("average 8x8", "AVERAGE_POOLING", {"Strides": [8, 8], "WindowSize": [8, 8], "StartPadding": [0, 0],
                                        "EndPadding": [0, 0], "IncludePadding": 1}, (1, 8, 32, 64)),
    ("average 17x17", "AVERAGE_POOLING", {"Strides": [17, 17], "WindowSize": [17, 17], "StartPadding": [0, 0],
                                          "EndPadding": [0, 0], "IncludePadding": 0}, (1, 4, 34, 68)),
    ("lp P=2", "LP_POOLING", {**PADDED, "P": 2}, (1, 4, 30, 30)),
    ("lp1 P=1 dilated", "LP_POOLING1", {**PADDED, "Dilations": [1, 2], "StartPadding": [1, 2],
                                        "EndPadding": [1, 2], "P": 1}, (1, 4, 30, 30)),
    ("lp P=3 8x8", "LP_POOLING", {"Strides": [8, 8], "WindowSize": [8, 8], "StartPadding": [0, 0],
                                  "EndPadding": [0, 0], "P": 3}, (1, 4, 32, 64)),
)
KINDS = ("uniform", "cancel", "wide", "tiny")


def pool_data(rng, kind, shape, params, dtype):
    """uniform in [-1, 1] with a NaN, an infinity and both infinities in a few windows; cancel (disjoint windows):
    terms up to 1000, each window's last the negated sum of the others (its exact sum near 0), overlapping
    windows: terms up to 1000; wide: magnitudes 2^-60 to 2^60 (float16 2^-20 to 2^12); tiny: the denormal range
    (float32 2^-149 to 2^-120, float16 2^-24 to 2^-10); signs random."""
    if kind == "uniform":
        x = rng.uniform(-1, 1, shape)
        x[0, 0, 5, 5], x[0, 1, 7, 7], x[0, 2, 9, 9] = np.nan, np.inf, -np.inf
        x[0, 3, 11, 11], x[0, 3, 11, 12] = np.inf, -np.inf
    elif kind == "cancel":
        x = rng.uniform(-1000, 1000, shape).astype(dtype).astype(np.float64)
        k = params["WindowSize"]
        if params["Strides"] == k and not any(params["StartPadding"]):  # disjoint windows tiling the input
            blocks = x.reshape(shape[0], shape[1], shape[2] // k[0], k[0], shape[3] // k[1], k[1])
            blocks[:, :, :, -1, :, -1] = 0
            blocks[:, :, :, -1, :, -1] = -blocks.sum(axis=(3, 5))
            x = blocks.reshape(shape)
    else:
        low, high = {("wide", "float32"): (-60, 60), ("wide", "float16"): (-20, 12), ("tiny", "float32"): (-149, -120),
                     ("tiny", "float16"): (-24, -10)}[kind, dtype]
        x = rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(low, high, shape))
    return x.astype(dtype)


def pooled(op, x, params, order, rounding, fused, flush, precision="float32", scaled=False):
    """A simulated device's pooling (float64 values of precision): each window's terms summed by sum_rows, then
    AVERAGE's division (a divide to nearest; a multiply by the rounded reciprocal when truncating) or, scaled,
    each tap times 1/size before the sum (IncludePadding); LP's |x|^P multiplied out (P = 2: the pair of factors,
    which a mad may fuse) and its root, sqrt or pow, rounded once."""
    r = lambda v: rounded(v, precision, rounding, flush)  # noqa: E731
    rows, shape, inside = windows_of(x, params)
    with np.errstate(all="ignore"):
        if op.startswith("LP"):
            p = int(params["P"])
            m = np.abs(rows)
            terms = (m, m) if p == 2 else m if p == 1 else r(r(m * m) * m)
            s = sum_rows(terms, order, precision, rounding, fused, flush)
            out = s if p == 1 else r(np.sqrt(s)) if p == 2 else r(s ** float(np.float32(1 / p)))
        elif scaled:
            size = float(np.prod(params["WindowSize"]))
            out = sum_rows(r(rows * float(np.float32(1 / size))), order, precision, rounding, False, flush)
        else:
            s = sum_rows(rows, order, precision, rounding, False, flush)
            n = float(np.prod(params["WindowSize"])) if params.get("IncludePadding") else inside
            out = r(s / n) if rounding == "nearest" else r(s * r(1.0 / n))
    return out.reshape(shape)


def pool_devices(op, params, precision):
    """(order, rounding, fused, flush, scaled) of every device simulated."""
    chosen = devices(precision, fused_too=op.startswith("LP") and int(params["P"]) == 2)
    return [(*c, scaled) for c in chosen for scaled in ((False, True) if params.get("IncludePadding") else (False,))]


@pytest.mark.parametrize("label, op, params, shape", POOLS, ids=[p[0] for p in POOLS])
def test_float32_devices_inside(label, op, params, shape):
    """Every simulated float32 device (order x rounding x fused x flush, and the scaled taps) inside every
    output's interval, on each kind of data."""
    rng = np.random.default_rng(26)
    for kind in KINDS:
        x = pool_data(rng, kind, shape, params, "float32")
        allowed = interval(get(op), (x,), params, "float32")
        exact = oracle.reference(op, x, "float32", **params)
        for device in pool_devices(op, params, "float32"):
            values = pooled(op, x.astype(np.float64), params, *device[:4], scaled=device[4])
            TALLY.judge(label, allowed, values, (kind, *device), exact, key=f"{op.split('_')[0].lower()} {kind}")


@pytest.mark.parametrize("label, op, params, shape", POOLS[::2], ids=[p[0] for p in POOLS[::2]])
def test_float16_devices_inside(label, op, params, shape):
    """float16 data summed in float32 and stored either way: inside with and without the flag; summed in float16:
    inside with ALLOW_HALF_PRECISION_COMPUTATION."""
    rng = np.random.default_rng(27)
    for kind in KINDS:
        x = pool_data(rng, kind, shape, params, "float16")
        plain = interval(get(op), (x,), params, "float16")
        half = interval(get(op), (x,), {**params, "ExecutionFlags": HALF}, "float16")
        x64 = x.astype(np.float64)
        for device in pool_devices(op, params, "float32")[::3]:
            computed = pooled(op, x64, params, *device[:4], scaled=device[4])
            for stored in ("nearest", "zero"):
                values = store(computed, "float16", stored).astype(np.float64)
                TALLY.judge(label + " float16", plain, values, ("float32", kind, *device, "stored", stored))
                TALLY.judge(label + " float16", half, values, ("float32", kind, *device, HALF), count=False)
        for device in pool_devices(op, params, "float16"):
            TALLY.judge(label + " float16 in half", half, pooled(op, x64, params, *device[:4], "float16", scaled=device[4]),
                        ("float16", kind, *device, HALF))


# -- independent: exact rational arithmetic, every or sampled order ------------------------------------------------

def rational_image(rng, kind, shape):
    """uniform in [-1, 1]; cancel: +-1000 alternating, plus up to 1 (a 2x2 window's sum near 0 from large terms);
    tiny: the float32 denormal border (2^-125 times [-3, 3]), where flushing matters."""
    if kind == "uniform":
        return rng.uniform(-1, 1, shape).astype(np.float32)
    if kind == "cancel":
        signs = (-1.0) ** np.add.outer(np.arange(shape[2]), np.arange(shape[3]))
        return (1000 * signs + rng.uniform(-1, 1, shape)).astype(np.float32)
    return (rng.uniform(-3, 3, shape) * 2.0 ** -125).astype(np.float32)


RATIONAL_POOLS = (
    ("AVERAGE_POOLING", {"Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [1, 1], "EndPadding": [1, 1],
                         "IncludePadding": 0}, (1, 1, 4, 4)),
    ("AVERAGE_POOLING", {"Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [1, 1], "EndPadding": [1, 1],
                         "IncludePadding": 1}, (1, 1, 4, 4)),
    ("AVERAGE_POOLING", {**PADDED, "IncludePadding": 0}, (1, 1, 4, 4)),
    ("AVERAGE_POOLING", {**PADDED, "IncludePadding": 1}, (1, 1, 4, 4)),
    ("LP_POOLING", {"Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [1, 1], "EndPadding": [1, 1], "P": 2},
     (1, 1, 4, 4)),
    ("LP_POOLING", {**PADDED, "P": 2}, (1, 1, 4, 4)),
)


def test_every_order_exactly_rounded_inside():
    """AVERAGE (the padding counted or not) and LP with P = 2 over windows of 1 to 9 taps, in exact rational
    arithmetic with each operation rounded once (to nearest or toward zero; float32 denormals flushed or kept):
    every binary tree of a window of at most 5 terms, 30 random trees beyond; the terms divided (AVERAGE), or each
    tap times 1/size first (padding counted), or squared (rounded, or exact as a mad adds it) and the root taken
    (LP); the division's and sqrt's possible values are the ends of their Direct3D intervals
    (conformance/judge/intervals.py). Every result, and the exact rational one, inside the judge's interval."""
    from conformance.judge.intervals import interval as elementwise
    from conformance.specs.primitives import X, sqrt
    rng, sample = np.random.default_rng(12), random.Random(12)
    judged = 0

    def ends(formula, value):
        """The ends of the Direct3D interval of formula at value (a float32)."""
        got = elementwise(formula, np.array([float(value)]), "float32")
        return float(got.lo[0]), float(got.hi[0])

    for op, params, shape in RATIONAL_POOLS:
        lp, counted = op.startswith("LP"), bool(params.get("IncludePadding"))
        size = int(np.prod(params["WindowSize"]))
        for kind in ("uniform", "cancel", "tiny"):
            x = rational_image(rng, kind, shape)
            allowed = interval(get(op), (x,), params, "float32")
            index, valid = taps(x.shape, params)
            for at in np.ndindex(valid.shape[:-1]):
                lo, hi = float(allowed.lo[at]), float(allowed.hi[at])
                leaves = [Fraction(float(x[tuple(i[at][k] for i in index)])) for k in np.flatnonzero(valid[at])]
                n = len(leaves)
                exact = sum(v * v for v in leaves) if lp else sum(leaves) / (size if counted else n)
                if lp:
                    assert lo * lo <= exact <= hi * hi and lo >= 0, f"{op} {params} at {at}: exact root outside"
                else:
                    assert lo <= exact <= hi, f"{op} {params} at {at}: exact {float(exact)!r} outside [{lo!r}, {hi!r}]"
                for rounding, flush in [(r, f) for r in ("nearest", "zero") for f in (False, True)]:
                    def r(v):
                        return round_fraction(v, "float32", rounding, flush)
                    terms = [r(v) for v in leaves]  # a flushing device flushes its operands
                    ways = []  # (the leaves of a tree, the formula after the sum, its divisor)
                    if lp:
                        ways += [([r(v * v) for v in terms], sqrt(X)), ([v * v for v in terms], sqrt(X))]
                    else:
                        ways.append((terms, X / float(size if counted else n)))
                        if counted:
                            ways.append(([r(v * r(Fraction(1, size))) for v in terms], None))
                    for tree_leaves, after in ways:
                        def combine(a, b):
                            return r(a + b)
                        sums = every_order(tree_leaves, combine) if n <= 5 else \
                            sampled_orders(tree_leaves, combine, sample, 30)
                        if n == 1:
                            sums = {r(tree_leaves[0])}
                        for total in sums:
                            got = (float(total),) * 2 if after is None else ends(after, total)
                            assert lo <= got[0] and got[1] <= hi, \
                                (f"{op} {params} {kind} at {at} ({rounding}, flush={flush}): a device's sum "
                                 f"{float(total)!r} gave [{got[0]!r}, {got[1]!r}], expected within [{lo!r}, {hi!r}] "
                                 f"(exact {float(exact)!r})")
                    judged += 1
    print(f"pooling: {judged} outputs x roundings checked in exact rationals")
    assert judged >= 400


def test_a_million_outputs_judged_and_the_bound_reached():
    """The soundness tests above judged at least 10^6 outputs of the pooling family (run with them); the line
    printed gives the count and the largest fraction of each bound a device reached."""
    if len(TALLY.checked) < len(POOLS):
        pytest.skip("run with the soundness tests of this file")
    TALLY.report()


def test_counting_the_padding_when_told_not_to_is_caught_and_the_other_way_round():
    x = np.random.default_rng(1).uniform(1, 2, (1, 2, 6, 6)).astype(np.float32)
    inside, counted = {**PADDED, "IncludePadding": 0}, {**PADDED, "IncludePadding": 1}
    assert outside("AVERAGE_POOLING", x, inside, averaged(x, inside)) == 0
    assert outside("AVERAGE_POOLING", x, counted, averaged(x, counted)) == 0
    edges = 2 * (6 * 6 - 4 * 4)  # the outputs whose window reaches into the padding
    assert outside("AVERAGE_POOLING", x, inside, averaged(x, inside, divisor=9)) == edges
    assert outside("AVERAGE_POOLING", x, counted, averaged(x, counted, divisor=windows_of(x, counted)[2])) == edges
    cancelling = np.random.default_rng(5).uniform(-1000, 1000, x.shape).astype(np.float32)
    rows, shape, _ = windows_of(cancelling, counted)
    for order in ("sequential", "pairwise"):  # each tap times 1/9 in float32, then summed
        scaled = sum_rows(rounded(rows * np.float64(np.float32(1 / 9)), "float32"), order).astype(np.float32)
        assert outside("AVERAGE_POOLING", cancelling, counted, scaled.reshape(shape)) == 0, order
    dilated = {**inside, "Dilations": [2, 2], "StartPadding": [2, 2], "EndPadding": [2, 2]}
    assert outside("AVERAGE_POOLING1", x, dilated, averaged(x, dilated)) == 0
    assert outside("AVERAGE_POOLING1", x, dilated, averaged(x, dilated, divisor=9)) > 0


def test_float16_summed_in_half_over_a_32x32_window_is_caught_without_the_permission():
    x = np.random.default_rng(2).uniform(3, 4, (1, 8, 32, 32)).astype(np.float16)
    params = {"Strides": [1, 1], "WindowSize": [32, 32], "StartPadding": [0, 0], "EndPadding": [0, 0],
              "IncludePadding": 0}
    in_half = averaged(x, params, "sequential", "float16")  # partial sums past 2048 lose a unit an add
    assert outside("AVERAGE_POOLING", x, params, averaged(x, params, "sequential", "float32")) == 0
    assert outside("AVERAGE_POOLING", x, params, in_half) == 8
    allowed = {**params, "ExecutionFlags": "ALLOW_HALF_PRECISION_COMPUTATION"}
    assert outside("AVERAGE_POOLING", x, allowed, in_half) == 0
    assert outside("AVERAGE_POOLING", x, allowed, averaged(x, params, "pairwise", "float16")) == 0


def test_the_quantized_oracle_dequantizes_averages_and_rounds_ties_to_even():
    x = np.array([[10, 20], [30, 41]], dtype=np.uint8).reshape(1, 1, 2, 2)
    ones = (1, 1, 1, 1)
    scales = (np.full(ones, 0.5, np.float32), np.full(ones, 10, np.uint8), np.full(ones, 0.25, np.float32),
              np.full(ones, 3, np.uint8))
    fields = {"Strides": [1, 1], "WindowSize": [2, 2], "StartPadding": [0, 0], "EndPadding": [0, 0],
              "Dilations": [1, 1], "IncludePadding": 0}
    # (0 + 5 + 10 + 15.5) / 4 = 7.625; / 0.25 = 30.5, a tie: 30 (even), + 3
    assert oracle.evaluate(QUANTIZED, (x, *scales), "uint8", **fields).tolist() == [[[[33]]]]


def test_a_quantized_average_is_judged_by_its_bounds_exact_sums_pass_and_a_forgotten_zero_point_fails():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, (1, 4, 9, 9)).astype(np.uint8)
    per_channel = (1, 4, 1, 1)
    scale, zero = rng.uniform(0.01, 0.5, per_channel).astype(np.float32), rng.integers(0, 100, per_channel)
    out_scale, out_zero = rng.uniform(0.01, 0.5, per_channel).astype(np.float32), rng.integers(0, 100, per_channel)
    inputs = (x, scale, zero.astype(np.uint8), out_scale, out_zero.astype(np.uint8))
    params = {**PADDED, "Dilations": [1, 1], "IncludePadding": 0}
    lo, hi = get(QUANTIZED).outputs[0].bounds(inputs, params)
    expected = oracle.evaluate(QUANTIZED, inputs, "uint8", **params)

    def device(zero_point, count_padding=False):
        """Exact integer window sums of x - zero_point, then the scales in float32, rounded, shifted."""
        sums = windows_of(x.astype(np.int64) - zero_point, params)
        total = sums[0].sum(axis=1).reshape(sums[1])
        count = 9 if count_padding else sums[2].reshape(sums[1])
        value = np.float32(total) * scale / np.float32(count) / out_scale
        return np.clip(np.rint(value) + out_zero, 0, 255).astype(np.uint8)

    def failed(actual):
        return compare_bounded(x, expected, actual, lo, hi).mismatches

    assert failed(device(zero)) == 0
    assert failed(device(0)) > expected.size // 2
    assert failed(device(zero, count_padding=True)) >= 4 * (9 * 9 - 7 * 7) // 2


def test_dml_direct_describes_the_quantized_pooling_output_as_output_tensor_not_output_scale_tensor():
    """OutputScaleTensor and OutputZeroPointTensor are inputs named Output...: the description's one output
    is OutputTensor (the worker once took the first tensor named Output..., which DirectML refused)."""
    import json

    from conformance.dmldirect import layout
    from conformance.dmldirect.describe import OperatorDescription
    chosen = [c for c in load_file(CASES / "quantized_linear_average_pooling.yaml")
              if "5x5" in c.id or "ZeroPointTensor=absent" in c.id][:2]
    for case in chosen:
        request = layout.request(case.op, case.dtype, case.shape, case.params, False, case.inputs, (),
                                 case.outputs[0], case.outputs)
        description = OperatorDescription.from_case(json.loads(json.dumps(request)))
        assert tuple(description.output.shape) == tuple(case.outputs[0]), (description.output.shape, case.outputs)
        assert [t.shape for t in description.inputs] == [tuple(i.shape) for i in case.inputs]
        assert len(description.output_slots) == 1 and len(description.input_slots) == 5, \
            (description.input_slots, description.output_slots)
        assert description.input_slots.count(True) == len(case.inputs)


def test_lp_pooling_without_the_absolute_value_is_caught_and_float32_pow_devices_pass():
    x = np.random.default_rng(4).uniform(-10, 10, (1, 3, 8, 8)).astype(np.float32)
    for p in (1, 3):
        params = {**PADDED, "P": p}
        rows, shape, _ = windows_of(x, params)
        magnitude = np.abs(rows).astype(np.float32)
        powered = np.power(magnitude, np.float32(p), dtype=np.float32)  # pow: exp2(p * log2|x|) in float32
        for order in ("sequential", "pairwise"):
            total = sum_rows(powered, order).astype(np.float32)
            got = np.power(total, np.float32(1.0 / p), dtype=np.float32).reshape(shape)
            assert outside("LP_POOLING", x, params, got) == 0, (p, order)
        signed = sum_rows(np.power(rows, p), "sequential").astype(np.float32)  # the page's X^P taken literally
        with np.errstate(invalid="ignore"):
            literal = np.power(signed, np.float32(1.0 / p), dtype=np.float32).reshape(shape)
        assert outside("LP_POOLING", x, params, literal) > x.size // 2, p
