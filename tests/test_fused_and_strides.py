"""ELEMENT_WISE_ADD1's fused activation (oracle, ONNX route, dml-direct's description) and outputs with
strides of their own (case files, dml-direct's reading), through the real runner."""
import ctypes as C
import struct
from types import SimpleNamespace

import numpy as np
import pytest

import oracle
from conformance import specs, statuses
from conformance.backends import onnx_models
from conformance.run import runner
from conformance.backends.base import OK, Outcome
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.dmldirect import abi, layout
from conformance.dmldirect.describe import SENTINEL, OperatorDescription, read_output
from conformance.caseset.selection import select
from test_several_inputs import run, write

CASES = load_paths()
ADD1 = [c for c in CASES if c.op == "ELEMENT_WISE_ADD1"]


def refused(tmp_path, op, group_lines, pattern):
    """The one problem a case file of one group (shape [2, 3], plus group_lines) is refused with."""
    path = write(tmp_path, f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [[2, 3]]\n"
                           f"{group_lines}    inputs:\n      - {{kind: uniform}}\n")
    with pytest.raises(CaseFileError, match=pattern) as error:
        load_file(path)
    assert len(error.value.problems) == 1 and "\n" not in error.value.problems[0]


def test_the_oracle_is_add_then_the_activations_own_oracle_rounded_per_step():
    a, b = np.array([-0.7495, 3.0, -2.0], np.float16), np.array([-0.75, 0.5, 1.0], np.float16)
    value = {"Type": "ACTIVATION_HARD_SIGMOID", "Alpha": 0.2, "Beta": 0.5}
    total = oracle.evaluate("ELEMENT_WISE_ADD", (a, b), "float16")
    assert total[0] == np.float16(-1.5)  # the sum's tie, to even, before the activation sees it
    assert np.array_equal(oracle.evaluate("ELEMENT_WISE_ADD1", (a, b), "float16", FusedActivation=value),
                          oracle.evaluate("ACTIVATION_HARD_SIGMOID", total, "float16", Alpha=0.2, Beta=0.5))


def test_a_device_ignoring_the_fused_activation_fails():
    chosen = select(ADD1, "FusedActivation= and uniform[-4,4] and not IDENTITY and not LINEAR[Alpha=1,")
    assert len(chosen) >= 40
    records = run("python:faults:ignores_fused_activation", chosen)
    assert {r["status"] for r in records} == {statuses.FAIL}
    assert {r["status"] for r in run("python:oracle:evaluate", chosen)} == {statuses.PASS}


def test_case_files_name_each_activation_and_fill_its_fields():
    case = select(ADD1, "float32/rank4[2x3x4x5]/FusedActivation=HARD_SIGMOID[Alpha=0.5,Beta=0.25]")[0]
    assert case.params["FusedActivation"] == {"Type": "ACTIVATION_HARD_SIGMOID", "Alpha": 0.5, "Beta": 0.25}
    relu = select(ADD1, "float32/rank4[2x3x4x5]/FusedActivation=SCALED_ELU[Alpha=1.6732,Gamma=1.0507]/")[0]
    assert relu.params["FusedActivation"] == {"Type": "ACTIVATION_SCALED_ELU", "Alpha": 1.6732, "Gamma": 1.0507}


@pytest.mark.parametrize("value,wanted", [
    ("ACTIVATION_SOFTMAX", "FusedActivation must be null, or one of ACTIVATION_ELU"),
    ("{Type: ACTIVATION_ELU, Beta: 1}", "FusedActivation must be ACTIVATION_ELU fields \\(Alpha\\), not 'Beta'"),
    ("{Type: ACTIVATION_ELU, Alpha: high}", "FusedActivation.Alpha: 'high' is not of type 'number'"),
])
def test_a_bad_fused_activation_is_refused_naming_the_file_and_line(tmp_path, value, wanted):
    refused(tmp_path, "ELEMENT_WISE_ADD1", f"    params:\n      FusedActivation: {value}\n", f"case.yaml:6: .*{wanted}")


def test_dml_direct_passes_the_activations_description_with_null_tensors():
    case = select(ADD1, "float32/rank4[2x3x4x5]/FusedActivation=LEAKY_RELU[Alpha=0.1]/uniform")[0]
    described = OperatorDescription.from_case(layout.request(case.op, case.dtype, case.shape, case.params))
    assert described.desc.Type == abi.DML_OPERATOR_ELEMENT_WISE_ADD1 and C.sizeof(described.struct) == 32
    pointer = struct.unpack_from("<Q", C.string_at(described.desc.Desc, 32), 24)[0]
    fused = abi.DML_OPERATOR_DESC.from_address(pointer)
    assert fused.Type == abi.DML_OPERATOR_ACTIVATION_LEAKY_RELU
    tensors_and_alpha = C.string_at(fused.Desc, 24)
    assert struct.unpack_from("<QQf", tensors_and_alpha) == (0, 0, float(np.float32(0.1)))
    plain = select(ADD1, "float32/rank4[2x3x4x5]/defaults/uniform[-100,100]")[0]
    none = OperatorDescription.from_case(layout.request(plain.op, plain.dtype, plain.shape, plain.params))
    assert struct.unpack_from("<Q", C.string_at(none.desc.Desc, 32), 24)[0] == 0  # _Maybenull_
    elu = dict(case.params, FusedActivation={"Type": "ACTIVATION_ELU", "Alpha": 0.1})
    assert described.key != OperatorDescription.from_case(layout.request(case.op, case.dtype, case.shape, elu)).key


def test_the_onnx_route_is_add_then_the_activation_at_one_opset():
    from onnx import load_from_string
    spec = specs.get("ELEMENT_WISE_ADD1")
    for value, opset, types in (({"Type": "ACTIVATION_SCALED_TANH", "Alpha": 1.0, "Beta": 0.5}, 7, ["Add", "ScaledTanh"]),
                                ({"Type": "ACTIVATION_IDENTITY"}, 9, ["Add", "Dropout"]),
                                ({"Type": "ACTIVATION_RELU"}, 14, ["Add", "Relu"])):
        case = SimpleNamespace(dtype="float32", params={"FusedActivation": value}, shape=(2, 3), no_input=False)
        node = onnx_models.node_for(spec, case)
        model = load_from_string(onnx_models.single_node_model(node, "float32"))
        assert [n.op_type for n in model.graph.node] == types
        assert model.graph.node[1].input[0] == model.graph.node[0].output[0]
        assert {o.domain: o.version for o in model.opset_import}[""] == opset


def test_the_cpu_provider_runs_add_then_the_activation():
    chosen = select(ADD1, "rank4[2x3x4x5] and (RELU or TANH or ELU[ or LEAKY) and not CELU and not crossed and not in-place")
    records = run("cpu", chosen)
    assert len(records) >= 10 and {r["status"] for r in records} == {statuses.PASS}


# -- outputs with strides of their own ---------------------------------------------------------------

@pytest.mark.parametrize("strides,wanted", [
    ("padd", "must be 'padded' or a list of strides"),
    ("[1, 1]", "strides \\[1, 1\\] put two elements of \\[2, 3\\] at one place"),
    ("[3]", "1 strides for the 2 dimensions of \\[2, 3\\]"),
])
def test_bad_output_strides_are_refused_in_one_line(tmp_path, strides, wanted):
    refused(tmp_path, "ELEMENT_WISE_ABS", f"    output_strides: {strides}\n",
            f"case.yaml:5: groups\\[0\\].output_strides.*{wanted}")


def test_an_in_place_output_cannot_have_strides(tmp_path):
    refused(tmp_path, "ELEMENT_WISE_ABS", "    in_place: true\n    output_strides: padded\n",
            "cannot have strides of its own")


def _device_writes(case, y, into_gap=False):
    """The output's region as a device that honours the strides leaves it (SENTINEL elsewhere)."""
    described = OperatorDescription.from_case(layout.request(case.op, case.dtype, case.shape, case.params,
                                                             False, case.inputs, case.output_strides))
    region = np.full(described.output.total_bytes, SENTINEL, np.uint8)
    flat = region.view(y.dtype) if region.size % y.itemsize == 0 else region[:-(region.size % y.itemsize)].view(y.dtype)
    offsets = sum(np.indices(case.shape)[d] * s for d, s in enumerate(case.output_strides))
    flat[offsets] = y
    if into_gap:
        region[y.itemsize] = 0  # the first gap: padded strides leave one element's room after each
    return region.tobytes(), described


@pytest.mark.parametrize("expression", ["ELEMENT_WISE_ADD/float16/rank8", "ACTIVATION_RELU/float32/rank4",
                                        "ELEMENT_WISE_ABS/float32/rank4[2x3x4x5]/defaults/uniform[-50,50]/output-strides[1,"])
def test_dml_direct_reads_the_output_through_its_strides_and_a_packed_read_is_caught(expression):
    case = select([c for c in CASES if c.output_strides], expression)[0]
    x = case.make_input()
    y = oracle.evaluate(case.op, x, case.dtype, **case.params)
    raw, described = _device_writes(case, y)
    assert list(described.output.strides) == list(case.output_strides)
    assert described.output.total_bytes > y.nbytes or case.output_strides == (1, 2, 6, 24)
    read, stray = read_output(raw, case.dtype, case.shape, case.output_strides)
    assert np.array_equal(read, y, equal_nan=True) and stray.size == 0
    packed, _ = read_output(raw, case.dtype, case.shape, None)  # the fault: the strides ignored
    record = runner.judge(case, x, Outcome(OK, output=packed), "6_0", "fault", 0.0)
    assert record["status"] == statuses.FAIL
    assert runner.judge(case, x, Outcome(OK, output=read), "6_0", "fault", 0.0)["status"] == statuses.PASS


def test_a_write_into_the_gaps_is_reported():
    case = select([c for c in CASES if c.output_strides], "ELEMENT_WISE_ADD1/float32/rank4")[0]
    y = oracle.evaluate(case.op, case.make_input(), case.dtype, **case.params)
    raw, _ = _device_writes(case, y, into_gap=True)
    read, stray = read_output(raw, case.dtype, case.shape, case.output_strides)
    assert np.array_equal(read, y) and list(stray) == [4]


def test_other_routes_run_strided_cases_with_a_packed_output():
    chosen = select([c for c in CASES if c.output_strides], "ELEMENT_WISE_ADD/ or ACTIVATION_RELU")
    assert {r["status"] for r in run("cpu", chosen)} == {statuses.PASS}
    assert all(r["output_strides"] for r in run("python:oracle:evaluate", chosen))
