"""CAST: every input type to every output type its tables allow (the case's OutputType), judged by
Direct3D's conversion rules (conformance/specs/conversion.py): the oracle against hand-worked
conversions, every case through the oracle, ONNX Runtime's CPU provider, dml-direct and dml-wine, the
cases ONNX cannot express reported as not reachable, bad cases refused at load, and injected faults."""
from fractions import Fraction
from pathlib import Path

import numpy as np

import oracle
from conformance import backends, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.judge import fast
from conformance.run import runner
from conformance.run.results import ResultsWriter
from conformance.specs.conversion import accepted

CAST = [c for c in load_paths() if c.op == "CAST"]
# float32 bit patterns (streamed: not in the default run): every binade to FLOAT16, NaN payloads
SWEEPS = load_paths([str(Path(__file__).parent.parent / "sweeps" / "float32_bit_patterns" / "cast.yaml")])
SIXTY_FOUR = ("float64", "int64", "uint64")


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def cast(values, source, target):
    return oracle.evaluate("CAST", np.array(values, dtype=source), source, OutputType=target).tolist()


def test_the_oracle_truncates_floats_toward_zero_and_clamps_them():
    """ftoi and ftou: toward zero, NaN gives 0, beyond the range the type's limit (the page has no examples)."""
    values = [2.7, -2.7, np.nan, 300.0, -1e10, np.inf, -np.inf, -0.5]
    assert cast(values, "float32", "int8") == [2, -2, 0, 127, -128, 127, -128, 0]
    assert cast(values, "float32", "uint8") == [2, 0, 0, 255, 0, 255, 0, 0]
    assert cast(values, "float64", "int32") == [2, -2, 0, 300, -2**31, 2**31 - 1, -2**31, 0]
    assert cast([1e30, -1e30, 2.0**63], "float64", "uint64") == [2**64 - 1, 0, 2**63]


def test_the_oracle_clamps_integers_and_rounds_them_to_nearest_even():
    assert cast([-300, 300, -1, 2**31 - 1], "int32", "uint8") == [0, 255, 0, 255]
    assert cast([2**32 - 1, 5], "uint32", "int16") == [32767, 5]
    assert cast([-2**63, 2**63 - 1], "int64", "uint64") == [0, 2**63 - 1]
    assert cast([2**24 + 1, 2**24 + 3, -(2**24 + 1)], "int32", "float32") == [2.0**24, 2.0**24 + 4, -2.0**24]
    assert cast([65519, 65520, 2048 + 1], "int32", "float16") == [65504.0, np.inf, 2048.0]
    assert cast([65519.0, 65520.0, 1 + 2**-11], "float32", "float16") == [65504.0, np.inf, 1.0]


def _nearest_even(value: int, dtype: str) -> float:
    """value rounded to nearest even in dtype, by exact rationals (no float on the way)."""
    info = np.finfo(dtype)
    if value == 0:
        return 0.0
    magnitude, exponent = Fraction(abs(value)), int(info.minexp)
    while Fraction(2) ** (exponent + 1) <= magnitude:
        exponent += 1
    ulp = Fraction(2) ** (exponent - info.nmant)
    steps, rest = divmod(magnitude, ulp)
    steps += 1 if rest > ulp / 2 or (rest == ulp / 2 and steps % 2) else 0
    result = float(steps * ulp)
    return float(np.copysign(np.inf if result > float(info.max) else result, value))


def test_64_bit_integers_reach_floats_rounded_once():
    """No double rounding through float64: every 64-bit value to FLOAT32 and FLOAT16 as exact rationals round."""
    rng = np.random.default_rng(25)
    for source in ("int64", "uint64"):
        info = np.iinfo(source)
        values = [int(info.min), int(info.max), 2**53 + 1, 2**62 + 2**38 + 1, 2**24 + 1, 65519, 65520]
        values += [int(v) for v in rng.integers(info.min, info.max, size=200, dtype=source)]
        values = [v for v in values if info.min <= v <= info.max]
        for target in ("float32", "float16"):
            assert cast(values, source, target) == [_nearest_even(v, target) for v in values], (source, target)


def test_the_accepted_set_is_either_rounding_and_any_value_where_no_rule_says():
    lo, hi, num, nan = accepted(np.array([1 + 3 * 2.0**-12, 70000.0, -70000.0, np.nan], np.float32), "float16")
    assert lo[:3].tolist() == [1.0, 65504.0, -np.inf] and hi[:3].tolist() == [1 + 2.0**-10, np.inf, -65504.0]
    assert nan.tolist() == [False, False, False, True] and not num[3]
    lo, hi, _, _ = accepted(np.array([np.nan, 1e30, 2.5], np.float64), "int64")
    assert lo.tolist() == [-2**63, -2**63, 2] and hi.tolist() == [2**63 - 1, 2**63 - 1, 2]
    lo, hi, _, _ = accepted(np.array([-300, 300, 7], np.int32), "uint8")  # clamp 0, or the bits clamped: 255
    assert lo.tolist() == [0, 255, 7] and hi.tolist() == [255, 255, 7]
    lo, hi, _, _ = accepted(np.array([2**53 + 1], np.int64), "float64")  # itof: either neighbour
    assert (lo.tolist(), hi.tolist()) == ([2.0**53], [2.0**53 + 2])


def test_every_case_passes_through_the_oracle_and_the_cpu_provider_or_is_not_reachable():
    assert 250 <= len(CAST) <= 280 and len(SWEEPS) == 8
    records = run("python:oracle:evaluate", CAST + SWEEPS)
    assert {r["status"] for r in records} == {statuses.PASS}
    records = run("cpu", CAST)
    by_status = {s: [r for r in records if r["status"] == s] for s in {r["status"] for r in records}}
    assert set(by_status) == {statuses.PASS, statuses.NOT_REACHABLE}
    assert len(by_status[statuses.PASS]) > 150
    for record in by_status[statuses.NOT_REACHABLE]:
        assert "ONNX's Cast" in record["message"], record["message"]
    unreachable = {r["id"] for r in by_status[statuses.NOT_REACHABLE]}
    assert "CAST/float32/rank1/OutputType=int8/specials" in unreachable  # NaN to INT8: ONNX leaves it undefined
    assert "CAST/int16/rank1/OutputType=uint8/integer_extremes" in unreachable  # no 16-bit Clip in ONNX Runtime
    # A Clip before the Cast makes ONNX Runtime clamp as Direct3D does
    assert "CAST/int32/rank1/OutputType=uint8/integer_extremes" not in unreachable


def test_the_accelerated_paths_take_a_case_only_where_the_output_keeps_the_input_type():
    large = select(CAST, "CAST/float16/rank1/OutputType=float32/exhaustive_float16")
    assert len(large) == 1 and large[0].elements == 65536
    assert not fast.elementwise(large[0])
    same = select(CAST, "CAST/float16/rank3[2x3x7]/OutputType=float16/uniform[0,120]")[0]
    assert fast.elementwise(same)


def test_a_case_naming_a_type_the_page_lacks_is_refused_at_load(tmp_path):
    path = tmp_path / "cast.yaml"
    path.write_text("operator: CAST\ngroups:\n  - dtypes: [float32]\n    shapes: [[4]]\n"
                    "    params:\n      OutputType: bfloat16\n    inputs: [{kind: uniform}]\n")
    try:
        load_file(path)
    except CaseFileError as error:
        assert f"{path}:" in str(error) and "OutputType" in str(error) and "one of float64" in str(error), str(error)
    else:
        raise AssertionError("OutputType bfloat16 was accepted")


def _failed(records) -> set:
    return {r["id"] for r in records if r["status"] == statuses.FAIL}


def test_a_float_rounded_to_nearest_instead_of_truncated_is_caught():
    records = run("python:faults_cast:float_to_integer_rounded_to_nearest", CAST)
    failed = _failed(records)
    assert "CAST/float32/rank3[2x3x7]/OutputType=int32/uniform[0,120]" in failed
    assert not any("/OutputType=float" in i for i in failed)  # float targets untouched
    record = next(r for r in records if r["id"] == "CAST/float16/rank1/OutputType=int8/specials")
    worst = record["d3d"]["worst"][0]
    assert worst["lo"] == worst["hi"] == int(np.trunc(float(worst["input"]))) != worst["actual"]


def test_float32_to_float16_by_truncated_mantissa_is_caught_and_toward_zero_is_not():
    failed = _failed(run("python:faults_cast:float16_by_truncated_mantissa", CAST + SWEEPS))
    assert failed == {"CAST/float32/rank1/OutputType=float16/specials",  # subnormal float16 results lost
                      "CAST/float32/rank1/OutputType=float16/sweep[-6.25e-05,6.25e-05,4097]",                      "CAST/float32/rank1/OutputType=float16/exhaustive_float32[0x00000000,0x100000000,step=65537]",
                      "CAST/float32/rank1/OutputType=float16/nan-payloads"}  # NaN turned infinity
    # Rounding toward zero is what Direct3D's rules say: the d3d judge accepts it, the ULP figure shows it
    records = run("python:faults_cast:float16_toward_zero", CAST)
    assert {r["status"] for r in records} == {statuses.PASS}
    toward_zero = next(r for r in records if r["id"] == "CAST/float32/rank3[2x3x7]/OutputType=float16/uniform[0,120]")
    assert toward_zero["verdicts"] == {"d3d": "pass", "ulp": "fail"}


def test_an_unsigned_target_wrapping_where_the_rules_clamp_is_caught():
    records = run("python:faults_cast:unsigned_target_wraps", CAST)
    failed = _failed(records)
    assert "CAST/int32/rank1/OutputType=uint8/integer_extremes" in failed
    assert "CAST/float32/rank4[2x1x3x4]/OutputType=uint16/uniform[-100,100]" in failed
    assert not any("/OutputType=int" in i or "/OutputType=float" in i for i in failed)


def test_every_case_through_dml_direct_passes_but_directml_refuses_64_bit_casts_here():
    """The real DirectML.dll (Wine lane on lavapipe): every case without a 64-bit type passes; DirectML
    compiles no CAST from or to FLOAT64, INT64 or UINT64 here (docs/findings/issue25-cast.md)."""
    from needs import missing
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    records = run("dml-direct", CAST + SWEEPS)
    sixty_four = [r for r in records if r["dtype"] in SIXTY_FOUR or r["params"]["OutputType"] in SIXTY_FOUR]
    others = [r for r in records if r not in sixty_four]
    assert {r["status"] for r in others} == {statuses.PASS}, [r["message"] for r in others if r["status"] != "pass"][:3]
    assert len(others) > 120
    assert all(r["status"] == statuses.UNSUPPORTED_REQUIRED and "E_INVALIDARG" in r["message"]
               for r in sixty_four if r["elements"])


def test_the_smoke_cases_pass_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine: the case file's smoke selection, every case a pass."""
    from needs import missing
    from conformance.backends import dml_wine
    lane, why = dml_wine.find_lane()
    if lane is None:
        missing(f"the dml-wine lane is not provisioned ({why}); provision it with `bash scripts/setup-dml-wine.sh`")
    smoke = [c for c in CAST if c.smoke]
    assert len(smoke) == 6
    records = run("dml-wine", smoke)
    assert {r["status"] for r in records} == {statuses.PASS}, [r.get("message") for r in records][:3]


def test_the_compiled_interval_path_leaves_an_accepted_set_to_the_judge():
    """fused_intervals compiles formulas only: CAST's accepted set comes from judge.bounds on either path."""
    from conformance.judge import fused_intervals
    from conformance.judge.d3d import IntervalJudge
    x = np.array([1 + 3 * 2.0**-12, 70000.0, np.nan, -2.5], np.float32)
    for target in ("float16", "int8"):
        judge = IntervalJudge("CAST", "float32", {"OutputType": target})
        expected = oracle.evaluate("CAST", x, "float32", OutputType=target)
        compiled, plain = fused_intervals.bounds(judge, x, expected), judge.bounds(x, expected)
        for got, wanted in zip(compiled, plain):
            np.testing.assert_array_equal(got, wanted)
