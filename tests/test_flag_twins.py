"""scripts/flag_twins.py: the twin of each ExecutionFlags NONE case with ALLOW_HALF_PRECISION_COMPUTATION,
on the same inputs, and how many ULP its outputs lie apart."""
import sys
from pathlib import Path

import numpy as np

from conformance.caseset.caseload import load_paths
from conformance.specs.base import ALLOW_HALF_PRECISION, EXECUTION_FLAGS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import flag_twins  # noqa: E402


def test_ulp_apart_counts_across_zero_and_says_what_it_cannot_measure():
    for dtype in (np.float16, np.float32):
        a = np.array([1.0, -0.0, np.nan, -2.0], dtype)
        b = a.copy()
        assert flag_twins.ulp_apart(a, b) == 0  # NaN beside NaN, -0 beside -0
        b[1] = np.nextafter(dtype(0), dtype(-1))  # -0 to the smallest negative denormal: one step
        assert flag_twins.ulp_apart(a, b) == 1
        b[3] = np.nextafter(np.nextafter(dtype(-2), dtype(-3)), dtype(-3))
        assert flag_twins.ulp_apart(a, b) == 2
        b[1] = np.nextafter(dtype(0), dtype(1))  # across zero: -0 and +0 are one point
        assert flag_twins.ulp_apart(np.array([-np.nextafter(dtype(0), dtype(1))], dtype), b[1:2]) == 2
        b[2] = 1.0
        assert flag_twins.ulp_apart(a, b) == -1  # a NaN beside a number
    assert flag_twins.ulp_apart(np.array([3, 1], np.uint32), np.array([3, 1], np.uint32)) == 0
    assert flag_twins.ulp_apart(np.array([3, 1], np.uint32), np.array([3, 2], np.uint32)) == -1


def test_twins_differ_in_the_flag_alone():
    cases = load_paths([ROOT / "cases" / "gemm.yaml"])
    pairs = flag_twins.twins(cases)
    assert pairs and all(case.params[EXECUTION_FLAGS] == flag_twins.NONE for case, _ in pairs)
    assert {case.dtype for case, _ in pairs} == {"float16", "float32"}
    for case, flagged in pairs:
        assert flagged.params == {**case.params, EXECUTION_FLAGS: ALLOW_HALF_PRECISION}
        assert flagged.id != case.id and flagged.shape == case.shape


def test_on_the_cpu_provider_every_twin_is_the_same(capsys):
    """The CPU provider runs a case whatever its flags: every pair it runs bitwise the same, which it
    is only if both went with the same inputs (a twin's own id would seed others). Those ONNX cannot
    express, a fused activation, are not run."""
    assert flag_twins.main([str(ROOT / "cases" / "gemm.yaml"), "--backend", "cpu"]) == 0
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines() if line.startswith("| GEMM")]
    assert len(rows) == 2, rows
    for _, _, same, differ, not_run, *_ in rows:
        assert int(same) > int(not_run) and int(differ) == 0, rows
