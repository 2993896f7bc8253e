"""MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT and QUANTIZED_LINEAR_MATRIX_MULTIPLY: their
oracles against hand-worked products, every case through the oracle and ONNX Runtime's CPU provider, and
faults caught: zero points ignored, an integer sum off by one, ties rounded away from zero, float16 sums
without the half-precision permission, Bias ignored."""
import dataclasses

import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_paths
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


# -- zero points and scales of fewer dimensions than A (issue 26: the tables' own dimension counts per level) --------

MMI = specs.get("MATRIX_MULTIPLY_INTEGER")


def own_shape(case, name) -> tuple:
    """The input's own shape; () where the case leaves it absent."""
    return next((i.shape for i in case.inputs if i.name == name), ())


def fewer_dimensions(case) -> list:
    """The scales and zero points of the case with fewer dimensions than its A."""
    rank = len(own_shape(case, "A"))
    return [i.name for i in case.inputs if i.name not in ("A", "B", "Bias") and len(i.shape) < rank]


def test_a_1d_b_zero_point_is_per_column_in_the_oracle_as_worked_by_hand():
    """{N} against B's last axis, summed here element by element (no broadcasting)."""
    chosen = [c for c in cases_of("MATRIX_MULTIPLY_INTEGER") if len(own_shape(c, "BZeroPoint")) == 1
              and own_shape(c, "BZeroPoint")[0] > 1]
    assert {len(own_shape(c, "A")) for c in chosen} == {2, 3}, [c.id for c in chosen]
    for case in chosen:
        a, a_zero, b, b_zero = (np.asarray(v, np.int64) for v in case.make_input())
        a3, b3 = a.reshape(-1, *a.shape[-2:]), b.reshape(-1, *b.shape[-2:])
        a_zero = np.broadcast_to(a_zero.reshape(-1, 1) if a_zero.size > 1 else a_zero.reshape(1, 1), a3.shape[1:])
        want = [[[sum((a3[p, m, k] - a_zero[m, k]) * (b3[p, k, n] - b_zero[n]) for k in range(a3.shape[2]))
                  for n in range(b3.shape[2])] for m in range(a3.shape[1])] for p in range(a3.shape[0])]
        got = oracle.evaluate(case.op, case.make_input(), case.dtype, **case.oracle_params())
        assert got.reshape(len(want), *a3.shape[1:2], b3.shape[2]).tolist() == want, \
            f"{case.id}: expected the hand-worked per-column product {want}, came {got.tolist()}"


def test_the_tables_give_a_1d_b_zero_point_5_2_and_fewer_dimensions_otherwise_4_0():
    for case in cases_of("MATRIX_MULTIPLY_INTEGER"):
        all_4d = len(own_shape(case, "A")) == 4 and not fewer_dimensions(case)
        want = "5_2" if len(own_shape(case, "BZeroPoint")) == 1 else "2_1" if all_4d else "4_0"
        assert case.required_level == want, f"{case.id}: expected level {want}, came {case.required_level}"
    assert {c.required_level for c in cases_of("MATRIX_MULTIPLY_INTEGER") if fewer_dimensions(c)} == {"4_0", "5_2"}
    assert MMI.required_level("int8", 1, {}, "BZeroPoint") == "5_2"
    assert MMI.required_level("uint8", 2, {}, "BZeroPoint") == MMI.required_level("int8", 1, {}, "AZeroPoint") == "4_0"
    assert MMI.required_level("int8", 4, {}, "BZeroPoint") == "2_1" and MMI.required_level("int8", 5, {}, "A") is None


def test_each_operator_cases_fewer_dimensions_per_tensor_and_per_row_or_column_in_both_types():
    for op in OPERATORS:
        seen = {(c.dtype, len(own_shape(c, name)), int(np.prod(own_shape(c, name))) > 1)
                for c in cases_of(op) for name in fewer_dimensions(c)}
        want = {(d, r, per) for d in ("int8", "uint8") for r in (1, 2, 3) for per in (False, True)}
        assert seen >= want, f"{op}: expected (type, rank, per row or column) {sorted(want - seen)} cased"


def test_dml_direct_describes_a_zero_point_with_the_dimension_count_and_sizes_the_case_gives():
    from conformance.dmldirect import layout
    from conformance.dmldirect.describe import OperatorDescription
    chosen = [c for c in CASES if fewer_dimensions(c)]
    assert {c.op for c in chosen} == set(OPERATORS)
    for case in chosen:
        request = layout.request(case.op, case.dtype, case.shape, case.params, False, case.inputs, (),
                                 case.outputs[0])
        described = OperatorDescription.from_case(request).inputs
        for given, tensor in zip(case.inputs, described):
            sizes = list(tensor.sizes)[:tensor.buffer.DimensionCount]
            assert tensor.buffer.DimensionCount == len(given.shape) and sizes == list(given.shape), \
                (f"{case.id}: expected {given.name} of DimensionCount {len(given.shape)}, Sizes {list(given.shape)}; "
                 f"came {tensor.buffer.DimensionCount}, {sizes}")


@pytest.mark.parametrize("op, shapes, fields, refusal", [
    ("MATRIX_MULTIPLY_INTEGER", "{A: [2, 3], AZeroPoint: [1, 1], B: [3, 4], BZeroPoint: [1, 1, 1, 1, 4]}", "",
     "never allows 5 dimensions in BZeroPoint"),
    ("MATRIX_MULTIPLY_INTEGER", "{A: [2, 3], AZeroPoint: [2], B: [3, 4], BZeroPoint: [4]}", "",
     r"a 1-D AZeroPoint is \[1\] \(per tensor\); the page does not say which dimension"),
    ("MATRIX_MULTIPLY_INTEGER", "{A: [2, 3], AZeroPoint: [1, 1], B: [3, 4], BZeroPoint: [1, 1, 4]}", "",
     r"BZeroPoint \[1, 1, 4\]: more dimensions than the output \[2, 4\]"),
    ("MATRIX_MULTIPLY_INTEGER", "{A: [2, 3], AZeroPoint: [1, 1], B: [3, 4], BZeroPoint: [2]}", "",
     r"BZeroPoint \[2\]: one element \[1\], or one per column of B \[4\]"),
    ("QUANTIZED_LINEAR_MATRIX_MULTIPLY", "{A: [2, 3], AScale: [1], AZeroPoint: [1], B: [3, 4], BScale: [1, 4], "
     "BZeroPoint: [4], OutputScale: [1], OutputZeroPoint: [1]}", "",
     r"must have the same DimensionCount: AScale \[1\], AZeroPoint \[1\], BScale \[1, 4\]"),
    ("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "{A: [2, 3], AScale: [1, 1], AZeroPoint: [1], B: [3, 4], BScale: [4], "
     "BZeroPoint: [4]}", "\n    params: {BiasTensor: absent}",
     r"must have the same DimensionCount: AScale \[1, 1\], AZeroPoint \[1\]"),
])
def test_a_shape_the_tables_or_the_page_forbid_is_refused_at_load_naming_file_and_line(tmp_path, op, shapes, fields,
                                                                                         refusal):
    path = tmp_path / "zero_points.yaml"
    path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [int8]\n    shapes: [{shapes}]{fields}\n"
                    "    inputs: [{kind: uniform, low: -128, high: 127}]\n")
    with pytest.raises(CaseFileError, match=rf"zero_points.yaml:4: .*{refusal}") as error:
        load_paths([str(path)])
    assert len(str(error.value).strip().splitlines()) <= 2, str(error.value)
