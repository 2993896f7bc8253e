"""ULP distance edge cases and the comparator's verdicts."""
import numpy as np
import pytest

from conformance.judge.compare import compare, describe
from conformance.judge.ulp import fractional_ulp_error, ulp_distance


def d(a, b, dtype):
    return int(ulp_distance(np.array([a], dtype), np.array([b], dtype))[0])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
class TestUlpDistance:
    def test_signed_zeros_are_zero_apart(self, dtype):
        assert d(0.0, -0.0, dtype) == 0

    def test_sign_crossing_through_the_subnormals(self, dtype):
        tiny = np.finfo(dtype).smallest_subnormal
        assert d(-tiny, tiny, dtype) == 2
        assert d(-tiny, 0.0, dtype) == 1

    def test_subnormal_to_smallest_normal(self, dtype):
        f = np.finfo(dtype)
        largest_subnormal = np.nextafter(np.array(f.smallest_normal, dtype), np.array(0, dtype))
        assert d(largest_subnormal, f.smallest_normal, dtype) == 1

    def test_infinity_is_the_value_after_the_largest_finite(self, dtype):
        assert d(np.finfo(dtype).max, np.inf, dtype) == 1
        assert d(-np.finfo(dtype).max, -np.inf, dtype) == 1

    def test_the_distance_never_wraps(self, dtype):
        biggest = np.finfo(dtype).max
        steps = {"float32": 0x7F7FFFFF, "float16": 0x7BFF}[dtype]
        assert d(-biggest, biggest, dtype) == 2 * steps
        assert d(-np.inf, np.inf, dtype) == 2 * (steps + 1)

    def test_one_step_at_one(self, dtype):
        one = np.array(1.0, dtype)
        assert d(one, np.nextafter(one, np.array(2.0, dtype)), dtype) == 1


def test_integer_distance_is_the_difference_without_overflow():
    assert d(-128, 127, "int8") == 255
    assert d(0, 2**64 - 1, "uint64") == 2**63 - 1  # saturates at the largest int64
    assert d(-2**63, 2**63 - 1, "int64") == 2**63 - 1


def test_fractional_ulp_is_measured_against_the_unrounded_reference():
    reference = np.array([1.0 + 2**-24], np.float64)  # half a float32 ULP above 1
    assert fractional_ulp_error(reference, np.array([1.0], np.float32), "float32").tolist() == [-0.5]
    subnormal_ref = np.array([1.5 * 2**-149], np.float64)
    assert fractional_ulp_error(subnormal_ref, np.array([2**-149], np.float32), "float32").tolist() == [-0.5]


def arrays(*values, dtype="float32"):
    return np.array(values, dtype=dtype)


class TestCompare:
    def test_any_nan_passes_where_nan_is_expected(self):
        other_nan = np.array([0x7FC00001], np.uint32).view(np.float32)
        result = compare(arrays(0.0), arrays(np.nan), other_nan, tolerance=0)
        assert result.passed

    def test_nan_where_a_number_is_due_is_a_nan_mismatch(self):
        result = compare(arrays(1.0, 2.0), arrays(1.0, 2.0), arrays(np.nan, 2.0), tolerance=100)
        assert not result.passed and result.nan_mismatches == 1 and result.worst[0]["ulp"] == "nan"

    def test_a_number_where_nan_is_due_is_a_nan_mismatch(self):
        result = compare(arrays(1.0), arrays(np.nan), arrays(3.0), tolerance=100)
        assert result.mismatches == 1 and result.nan_mismatches == 1

    def test_tolerance_is_inclusive(self):
        one = np.float32(1.0)
        off = one
        for _ in range(3):
            off = np.nextafter(off, np.float32(2))
        assert compare(arrays(0), arrays(one), arrays(off), tolerance=3).passed
        failing = compare(arrays(0), arrays(one), arrays(off), tolerance=2)
        assert failing.mismatches == 1 and failing.max_ulp == 3

    def test_flushed_subnormal_output_is_accepted_and_counted(self):
        tiny = np.finfo(np.float32).smallest_subnormal
        result = compare(arrays(1.0), arrays(tiny), arrays(0.0), tolerance=0)
        assert result.passed and result.flushed == 1

    def test_flushing_can_be_forbidden(self):
        tiny = np.finfo(np.float32).smallest_subnormal
        result = compare(arrays(1.0), arrays(tiny), arrays(0.0), tolerance=0, flush_allowed=False)
        assert not result.passed and result.flushed == 0

    def test_subnormal_input_read_as_zero_gives_f_of_zero(self):
        tiny = np.finfo(np.float32).smallest_subnormal
        # f(x) = x + 1 flushed on input: f(+0) = 1 is acceptable for input tiny.
        result = compare(arrays(tiny), arrays(1.0), arrays(1.0), tolerance=0, zero_results=(1.0, 1.0))
        assert result.passed
        wrong = compare(arrays(tiny), arrays(5.0), arrays(1.0), tolerance=0, zero_results=(2.0, 2.0))
        assert not wrong.passed

    def test_a_zero_where_a_normal_is_due_is_not_flushing(self):
        normal = np.finfo(np.float32).smallest_normal
        result = compare(arrays(1.0), arrays(normal), arrays(0.0), tolerance=0)
        assert not result.passed and result.flushed == 0

    def test_worst_elements_name_index_input_expected_actual(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        actual = x.copy()
        actual[1, 2] = 100.0
        actual[0, 1] = np.nan
        result = compare(x, x, actual, tolerance=0)
        assert result.mismatches == 2
        assert result.worst[0]["index"] == [0, 1] and result.worst[0]["ulp"] == "nan"
        assert result.worst[1] == {"index": [1, 2], "input": 5.0, "expected": 5.0, "actual": 100.0,
                                   "ulp": result.worst[1]["ulp"],
                                   "bits": {"input": "0x40a00000", "expected": "0x40a00000", "actual": "0x42c80000"}}
        message = describe(result, 0)
        assert "Mismatched elements: 2 / 6" in message and "at (1, 2): input 5.0, expected 5.0, actual 100.0" in message

    def test_shape_and_type_mismatches_are_reported_as_such(self):
        x = arrays(1.0, 2.0)
        assert "shape" in compare(x, x, arrays(1.0), tolerance=0).problem
        assert "data type" in compare(x, x, x.astype(np.float64), tolerance=0).problem

    def test_integers_compare_exactly(self):
        x = np.array([1, 2, 3], np.int16)
        result = compare(x, x, np.array([1, 2, 4], np.int16), tolerance=0)
        assert result.mismatches == 1 and result.max_ulp == 1
