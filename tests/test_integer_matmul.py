"""MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT and QUANTIZED_LINEAR_MATRIX_MULTIPLY: their
oracles against hand-worked products, every case through the oracle and ONNX Runtime's CPU provider, and
faults caught: zero points ignored, an integer sum off by one, ties rounded away from zero, float16 sums
without the half-precision permission, Bias ignored."""
import dataclasses

import numpy as np

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import load_paths
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter

OPERATORS = ("MATRIX_MULTIPLY_INTEGER", "MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "QUANTIZED_LINEAR_MATRIX_MULTIPLY")
FLAG = "ALLOW_HALF_PRECISION_COMPUTATION"
CASES = load_paths([f"cases/{op.lower()}.yaml" for op in OPERATORS])


def cases_of(op, *words):
    return [c for c in CASES if c.op == op and all(w in c.id for w in words)]


def judged(case, device) -> int:
    """The number of output elements the judge finds wrong when a device computes `device(inputs)`."""
    x = case.make_input()
    result = compare_case(case, x, device(x))
    return result.d3d["failed"] if result.d3d else result.mismatches


def test_the_oracles_compute_the_dequantized_products():
    a = np.array([[1, 2], [3, 4]], np.uint8)
    b = np.array([[5, 6], [7, 8]], np.int8)
    a_zero, b_zero = np.array([[1], [2]], np.uint8), np.array([[0, 1]], np.int8)  # per row of A, per column of B
    # (A - AZeroPoint) = [[0, 1], [1, 2]], (B - BZeroPoint) = [[5, 5], [7, 7]]
    assert oracle.evaluate("MATRIX_MULTIPLY_INTEGER", (a, a_zero, b, b_zero), "uint8",
                           BType="int8").tolist() == [[7, 7], [19, 19]]
    scale = np.array([[0.5]], np.float32)
    bias = np.array([[1, 2], [3, 4]], np.float32)
    got = oracle.evaluate("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", (a, scale, a_zero, b.astype(np.uint8), 2 * scale,
                                                               b_zero.astype(np.uint8), bias), "uint8")
    assert got.tolist() == [[4.5, 5.5], [12.5, 13.5]] and got.dtype == np.float32  # 0.5 * 1 * S + Bias
    ties = np.array([[1], [3], [5], [255]], np.uint8)
    ones = np.ones((1, 1), np.uint8)
    zero = np.zeros((1, 1), np.uint8)
    got = oracle.evaluate("QUANTIZED_LINEAR_MATRIX_MULTIPLY", (ties, np.ones((1, 1), np.float32), zero, ones,
                                                               np.ones((1, 1), np.float32), zero,
                                                               np.full((1, 1), 2.0, np.float32), zero), "uint8",
                          OutputType="int8")
    assert got.ravel().tolist() == [0, 2, 2, 127], "0.5, 1.5, 2.5 to even; 127.5 saturated to INT8's 127"


def test_every_case_passes_through_the_oracle_and_the_cpu_provider():
    for name in ("python:oracle:evaluate", "cpu"):
        records = runner.run(CASES, backends.create(name, announce=lambda m: None), "6_2", ResultsWriter(None)).records
        by_status = {s: [r["id"] for r in records if r["status"] == s] for s in statuses.ALL}
        assert not by_status[statuses.FAIL] and not by_status[statuses.ERROR], \
            (name, by_status[statuses.FAIL][:3], by_status[statuses.ERROR][:3])
        least = len(CASES) if name.startswith("python") else 45
        assert len(by_status[statuses.PASS]) >= least, (name, len(by_status[statuses.PASS]))


def test_zero_points_ignored_or_one_element_off_by_one_are_caught():
    case = cases_of("MATRIX_MULTIPLY_INTEGER", "rank2[A=4x6,AZeroPoint=4x1")[0]
    ignored = lambda x: np.matmul(x[0].astype(np.int32), x[2].astype(np.int32))  # noqa: E731
    assert judged(case, ignored) > 6, "A x B without the zero points"

    def off_by_one(x):
        out = oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())
        out.flat[5] += 1
        return out
    assert judged(case, off_by_one) == 1
    assert judged(case, lambda x: oracle.evaluate(case.op, x, case.dtype, **case.oracle_params())) == 0


def test_ties_rounded_away_from_zero_are_caught_only_where_there_are_ties():
    def away(case):
        def device(x):
            a, a_scale, a_zero, b, b_scale, b_zero, scale, zero = x
            total = np.matmul(a.astype(np.int64) - a_zero, b.astype(np.int64) - b_zero) * a_scale * b_scale / scale
            rounded = np.sign(total) * np.floor(np.abs(total) + 0.5) + zero
            info = np.iinfo(case.params.get("OutputType") or case.dtype)
            return np.clip(rounded, info.min, info.max).astype(info.dtype)
        return device
    for case in cases_of("QUANTIZED_LINEAR_MATRIX_MULTIPLY", "ties-and-saturation"):
        assert judged(case, away(case)) > 0, case.id
    for case in cases_of("QUANTIZED_LINEAR_MATRIX_MULTIPLY", "rank2[A=5x8"):
        assert judged(case, away(case)) == 0, case.id


def _dequantized_gemm(dtype):
    """A device that dequantizes A and B in dtype, then sums their products in dtype left to right."""
    def device(x):
        a, a_scale, a_zero, b, b_scale, b_zero = x[:6]
        bias = x[6] if len(x) > 6 else np.zeros((), a_scale.dtype)
        left = ((a.astype(np.float64) - a_zero).astype(dtype) * a_scale.astype(dtype)).astype(dtype)
        right = ((b.astype(np.float64) - b_zero).astype(dtype) * b_scale.astype(dtype)).astype(dtype)
        total = np.zeros(left.shape[:-1] + right.shape[-1:], dtype)
        for k in range(left.shape[-1]):
            total = (total + (left[..., :, k, None] * right[..., k, None, :]).astype(dtype)).astype(dtype)
        return (total + bias.astype(dtype)).astype(bias.dtype)
    return device


def test_a_float32_gemm_of_the_dequantized_matrices_passes_and_float16_sums_need_the_permission():
    """The page's reading as ONNX Runtime's: dequantize, then a float GEMM (K = 4096 products of 255 * 254 lose
    their low bits in float32: inside). float16 outputs summed in half: outside unless the flag allows it."""
    for case in cases_of("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "A=1x4096", "OutputType=float32,ExecutionFlags=NONE"):
        assert judged(case, _dequantized_gemm(np.float32)) == 0, case.id
    flagged = 0
    for case in cases_of("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "uniform-scales", "OutputType=float16", "8"):
        wrong = judged(case, _dequantized_gemm(np.float16))
        allowed = dataclasses.replace(case, params={**case.params, "ExecutionFlags": FLAG})
        assert judged(allowed, _dequantized_gemm(np.float16)) == 0, case.id
        flagged += wrong > 0
    assert flagged >= 4, f"float16 sums without {FLAG} caught in only {flagged} cases"


def test_bias_ignored_is_caught():
    for case in cases_of("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "fixed-scales"):
        def without_bias(x):
            return (oracle.reference(case.op, x, case.dtype, **case.oracle_params()) - x[-1]).astype(np.float32)
        assert judged(case, without_bias) == 2, case.id
