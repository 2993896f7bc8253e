"""QUANTIZE_LINEAR and DEQUANTIZE_LINEAR: the ONNX route's one-element scale, and the second tensor
type a case names (OutputType: DEQUANTIZE's FLOAT16 scale and output, QUANTIZE's INT8 zero point and
output) through the oracle, the d3d judge, dml-direct's description and ONNX Runtime."""
import numpy as np

import oracle
from conformance import backends, specs, statuses
from conformance.run import runner
from conformance.caseset.caseload import load_paths
from conformance.dmldirect import layout
from conformance.backends.onnx_models import node_for
from conformance.run.results import ResultsWriter
from conformance.caseset.selection import select

QUANTIZERS = [c for c in load_paths() if c.op in ("ELEMENT_WISE_QUANTIZE_LINEAR", "ELEMENT_WISE_DEQUANTIZE_LINEAR")]


def run(name, chosen, model="d3d"):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None), model=model).records


def test_a_one_element_rank1_case_runs_per_tensor_through_onnx_runtime():
    """ONNX Runtime takes a one-element 1-D scale as per tensor and refused block_size 1 there."""
    alone = select(QUANTIZERS, "rank1[1] and not OutputType and not ELEMENT_WISE_QUANTIZE_LINEAR/int32")
    assert len(alone) == 3
    for case in alone:
        assert "block_size" not in node_for(specs.get(case.op), case).attributes
    longer = select(QUANTIZERS, "rank1[11] and not OutputType")[0]
    assert node_for(specs.get(longer.op), longer).attributes == {"axis": 0, "block_size": 1}
    chosen = select(QUANTIZERS, "(rank1[1] or rank1[11]) and not int32 and not uint32")
    assert len(chosen) >= 6
    assert {r["status"] for r in run("cpu", chosen)} == {statuses.PASS}


def test_output_type_types_the_scale_or_zero_point_and_the_output():
    (half,) = select(QUANTIZERS, "DEQUANTIZE_LINEAR/uint8/rank4[2x3x4x5]/OutputType=float16 and not broadcast")
    assert [i.dtype for i in half.inputs] == ["uint8", "float16", "uint8"] and half.required_level == "6_0"
    assert oracle.evaluate(half.op, half.make_input(), half.dtype, **half.params).dtype == np.float16
    request = layout.request(half.op, half.dtype, half.shape, half.params, False, half.inputs)
    assert request["output_dtype"] == "float16" and [i["dtype"] for i in request["inputs"]][1] == "float16"
    assert [name for name, _ in request["desc"]["fields"]] == ["InputTensor", "ScaleTensor", "ZeroPointTensor",
                                                               "OutputTensor"] and request["params"] == {}
    plain = select(QUANTIZERS, "DEQUANTIZE_LINEAR/uint8/rank4[2x3x4x5]/defaults/Input=uniform[0,100]")[0]
    assert plain.params["OutputType"] == "float32" and plain.required_level == "1_0"
    (signed,) = select(QUANTIZERS, "QUANTIZE_LINEAR/float32/rank4[2x3x4x5]/OutputType=int8 and not broadcast")
    assert [i.dtype for i in signed.inputs] == ["float32", "float32", "int8"] and signed.required_level == "2_1"
    assert select(QUANTIZERS, "QUANTIZE_LINEAR/float32/rank3[2x3x4]/OutputType=int8")[0].required_level == "3_0"
    y = oracle.evaluate(signed.op, signed.make_input(), signed.dtype, **signed.params)
    assert y.dtype == np.int8 and y.min() < 0


def test_the_second_type_runs_through_onnx_runtime_and_a_device_ignoring_it_fails():
    chosen = select(QUANTIZERS, "OutputType and not broadcast and not int32 and not uint32 and not int16 "
                                "and not uint16")
    assert len(chosen) >= 10
    assert {r["status"] for r in run("cpu", chosen)} == {statuses.PASS}
    signed = select(chosen, "ELEMENT_WISE_QUANTIZE_LINEAR and OutputType=int8")
    assert len(signed) >= 6
    assert {r["status"] for r in run("python:faults:ignores_output_type", signed)} == {statuses.FAIL}


def test_a_float16_output_is_judged_by_the_formula_in_float16():
    """Computed in float32 and stored toward zero (what DirectML does on lavapipe): inside the d3d
    intervals, not at 0 ULP; at FLOAT32 output nothing changes."""
    chosen = select(QUANTIZERS, "DEQUANTIZE_LINEAR and OutputType=float16 and uniform")
    records = run("python:faults:stored_toward_zero", chosen)
    assert {r["status"] for r in records} == {statuses.PASS}
    assert any(r["verdicts"]["ulp"] == statuses.FAIL for r in records)
