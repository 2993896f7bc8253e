"""Fault injection: wrong devices must get the right status, through the real runner."""
import numpy as np
import pytest

from conformance import backends, statuses
from conformance.backends.ort import OrtBackend
from conformance.caseset.caseload import SHIPPED_CASES, load_paths
from conformance.caseset.selection import select
from conformance.run import runner
from conformance.run.results import ResultsWriter

ALL_CASES = load_paths()


def cases(expression, **load):
    chosen = select(load_paths(**load) if load else ALL_CASES, expression)
    assert chosen, f"no case matches {expression!r}"
    return chosen


def run(backend_or_name, chosen, level="5_0", model="ulp"):
    """These faults are stated in ULP; tests/test_d3d_faults.py injects the d3d model's."""
    backend = backends.create(backend_or_name) if isinstance(backend_or_name, str) else backend_or_name
    return runner.run(chosen, backend, level, ResultsWriter(None), model=model).records


def only(records):
    assert len(records) == 1, [r["id"] for r in records]
    return records[0]


CELU_F32 = "ACTIVATION_CELU/float32/rank4[2x3x4x5]/Alpha=1/uniform"


def test_the_oracle_as_device_passes_every_default_case_at_zero_ulp():
    records = run("python:oracle:evaluate", ALL_CASES)
    assert len(records) == len(ALL_CASES) > 700
    assert {r["status"] for r in records} == {statuses.PASS}
    assert max(r["max_ulp"] for r in records) == 0


def test_a_few_elements_off_by_tolerance_plus_one_fail():
    record = only(run("python:faults:off_by_tolerance_plus_one", cases(CELU_F32)))
    assert record["status"] == statuses.FAIL
    assert record["mismatches"] == 3 and record["max_ulp"] == 19 and record["tolerance"] == 18
    assert len(record["worst"]) == 3 and "Mismatched elements: 3 / 120" in record["message"]


def test_errors_exactly_at_the_tolerance_pass():
    record = only(run("python:faults:off_by_tolerance", cases(CELU_F32)))
    assert record["status"] == statuses.PASS and record["max_ulp"] == 18


SPECIALS = "ACTIVATION_SCALED_ELU/float32/rank1/Alpha=1.6732,Gamma=1.0507/specials"


def test_flushed_denormals_pass_when_allowed_and_are_counted():
    record = only(run("python:faults:flush_denormals", cases(SPECIALS)))
    assert record["status"] == statuses.PASS and record["flushed"] > 0


def test_flushed_denormals_fail_when_forbidden():
    record = only(run("python:faults:flush_denormals", cases(SPECIALS, forbid_flush=True)))
    assert record["status"] == statuses.FAIL and record["flushed"] == 0


def test_swallowed_nan_is_a_nan_mismatch():
    record = only(run("python:faults:swallow_nan", cases(SPECIALS)))
    assert record["status"] == statuses.FAIL and record["nan_mismatches"] >= 1


def test_nan_propagated_through_clip_violates_the_direct3d_rule():
    record = only(run("python:faults:propagate_nan", cases("ELEMENT_WISE_CLIP/float32/rank1/Min=-1.5,Max=2.25/specials")))
    assert record["status"] == statuses.FAIL and record["nan_mismatches"] == 1
    assert record["worst"][0]["input"] == "nan" and record["worst"][0]["expected"] == 2.25


def test_all_zeros_fails():
    record = only(run("python:faults:all_zeros", cases(CELU_F32)))
    assert record["status"] == statuses.FAIL and record["mismatches"] > 100


def test_an_exception_is_an_error_with_its_message():
    record = only(run("python:faults:raises", cases(CELU_F32)))
    assert record["status"] == statuses.ERROR and "DXGI_ERROR_DEVICE_REMOVED" in record["message"]


def test_wrong_output_type_and_shape_fail_with_a_clear_problem():
    assert "data type float64" in only(run("python:faults:wrong_dtype", cases(CELU_F32)))["message"]
    assert "output shape" in only(run("python:faults:wrong_shape", cases(CELU_F32)))["message"]


def test_silent_cpu_fallback_is_caught_through_the_profile():
    # A real ONNX Runtime session on a provider that takes no node: with fallback allowed,
    # ONNX Runtime quietly runs Celu on the CPU; the profile shows it.
    backend = OrtBackend("azure", "AzureExecutionProvider", disable_cpu_fallback=False)
    record = only(run(backend, cases(CELU_F32)))
    assert record["status"] == statuses.CPU_FALLBACK
    assert record["placement"] == {"Celu_0": "CPUExecutionProvider"}


def test_with_fallback_disabled_the_same_provider_reports_unsupported():
    backend = OrtBackend("azure", "AzureExecutionProvider")
    assert only(run(backend, cases(CELU_F32)))["status"] == statuses.UNSUPPORTED_REQUIRED


def test_cpu_backend_proves_every_node_ran_on_the_cpu():
    record = only(run("cpu", cases(CELU_F32)))
    assert record["status"] == statuses.PASS and record["placement"] == {"Celu_0": "CPUExecutionProvider"}


def test_unsupported_is_required_or_not_by_feature_level():
    int16_rank4 = cases("ELEMENT_WISE_CLIP/int16/rank4[2x3x4x5]/Min=-3.7,Max=5.9/")
    # ONNX Runtime's CPU provider has no int16 Clip; 2_1 requires it at rank 4, 1_0 does not.
    assert only(run("cpu", int16_rank4, level="2_1"))["status"] == statuses.UNSUPPORTED_REQUIRED
    assert only(run("cpu", int16_rank4, level="1_0"))["status"] == statuses.UNSUPPORTED


@pytest.mark.parametrize("expression,reason", [
    ("ACTIVATION_CELU/float16/rank4[2x3x4x5]/Alpha=1/uniform", "float32 only"),
    ("ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Scale=2,Bias=-0.5", "ScaleBias"),
    ("ELEMENT_WISE_CONSTANT_POW/float32/rank4[2x3x4x5]/Exponent=2/uniform[0,3]/in-place", "in-place"),
])
def test_what_onnx_runtime_cannot_express_is_not_reachable(expression, reason):
    for record in run("cpu", cases(expression)):
        assert record["status"] == statuses.NOT_REACHABLE and reason in record["message"]


def test_one_session_serves_every_case_of_an_operator_type_and_parameter_set():
    chosen = cases("ACTIVATION_CELU/float32/ and Alpha=0.5/uniform")
    backend = backends.create("cpu")
    records = run(backend, chosen)
    assert len(records) == 8 and {r["status"] for r in records} == {statuses.PASS}
    assert backend.sessions_created == 1


def test_inputs_are_reproducible_from_the_case_seed():
    first, again = cases(CELU_F32)[0], load_paths([SHIPPED_CASES / "activation_celu.yaml"])
    again = [c for c in again if c.id == first.id][0]
    assert first.seed == again.seed and np.array_equal(first.make_input(), again.make_input())
    other_seed = [c for c in load_paths([SHIPPED_CASES / "activation_celu.yaml"], global_seed=1)
                  if c.id == first.id][0]
    assert not np.array_equal(first.make_input(), other_seed.make_input())


def test_a_closed_backend_leaves_no_profile_files_behind():
    import os
    backend = OrtBackend("azure", "AzureExecutionProvider", disable_cpu_fallback=False)  # profiled
    run(backend, cases(CELU_F32))
    folder = backend.profile_dir
    assert folder and os.path.isdir(folder)
    backend.close()
    assert not os.path.exists(folder)
