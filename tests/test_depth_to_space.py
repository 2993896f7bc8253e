"""DEPTH_TO_SPACE, DEPTH_TO_SPACE1, SPACE_TO_DEPTH and SPACE_TO_DEPTH1 (data movement, exact): the oracle
against the pages' examples, every case exactly through the oracle, ONNX Runtime's CPU provider (what
it cannot take reported as such), dml-direct and dml-wine (the real DirectML.dll under Wine), bad cases
refused at load, and the injected faults (the other order, blocks transposed) caught by source."""
import numpy as np
import pytest

import oracle
from conformance import backends, specs, statuses
from conformance.caseset.caseload import CaseFileError, load_file, load_paths
from conformance.caseset.selection import select
from conformance.judge.entry import compare_case
from conformance.run import runner
from conformance.run.results import ResultsWriter
from oracle.depth_space import ORDERS

OPERATORS = ("DEPTH_TO_SPACE", "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1")
CASES = [c for c in load_paths() if c.op in OPERATORS]
DCR, CRD = ORDERS

# The pages' examples (DEPTH_TO_SPACE1's and SPACE_TO_DEPTH1's, transcribed): the depth tensor
# {1, 8, 2, 3} whose channel k holds 9k + 0 .. 9k + 5, and the space tensor {1, 2, 4, 6} of each order.
DEPTH = np.array([9 * k + i for k in range(8) for i in range(6)], dtype=np.uint32).reshape(1, 8, 2, 3)
SPACE = {
    DCR: [[[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56], [3, 21, 4, 22, 5, 23], [39, 57, 40, 58, 41, 59]],
          [[9, 27, 10, 28, 11, 29], [45, 63, 46, 64, 47, 65], [12, 30, 13, 31, 14, 32], [48, 66, 49, 67, 50, 68]]],
    CRD: [[[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29], [3, 12, 4, 13, 5, 14], [21, 30, 22, 31, 23, 32]],
          [[36, 45, 37, 46, 38, 47], [54, 63, 55, 64, 56, 65], [39, 48, 40, 49, 41, 50], [57, 66, 58, 67, 59, 68]]],
}


def run(name, chosen):
    return runner.run(chosen, backends.create(name), "6_0", ResultsWriter(None)).records


def test_the_oracle_is_the_pages_examples():
    for order, space in SPACE.items():
        space = np.array([space], dtype=np.uint32)
        got = oracle.evaluate("DEPTH_TO_SPACE1", DEPTH, "uint32", BlockSize=2, Order=order)
        assert got.dtype == np.uint32 and got.tolist() == space.tolist(), order
        assert oracle.evaluate("SPACE_TO_DEPTH1", space, "uint32", BlockSize=2, Order=order).tolist() == DEPTH.tolist()
    # The first versions are the DEPTH_COLUMN_ROW examples (their own pages' single example)
    assert oracle.evaluate("DEPTH_TO_SPACE", DEPTH, "uint32", BlockSize=2).tolist() == [SPACE[DCR]]
    assert oracle.evaluate("SPACE_TO_DEPTH", np.array([SPACE[DCR]], np.uint32), "uint32", BlockSize=2).tolist() \
        == DEPTH.tolist()


def test_the_oracle_copies_bits_nan_payloads_included():
    bits = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001] * 2, dtype=np.uint32).reshape(1, 8, 1, 1)
    got = oracle.evaluate("DEPTH_TO_SPACE1", bits.view(np.float32), "float32", BlockSize=2, Order=CRD)
    assert sorted(got.view(np.uint32).reshape(-1).tolist()) == sorted(bits.reshape(-1).tolist())
    big = np.array([2**63 - 1, -2**63, 2**53 + 1, 2**53], dtype=np.int64).reshape(1, 1, 2, 2)
    assert sorted(oracle.evaluate("SPACE_TO_DEPTH", big, "int64", BlockSize=2).reshape(-1).tolist()) \
        == sorted(big.reshape(-1).tolist())


@pytest.mark.parametrize("op", OPERATORS)
def test_the_source_index_is_where_the_oracle_copies_from(op):
    """The spec's source_index (index arithmetic) and the oracle (reshapes of the order's layout) are
    written apart: every output element of a case of distinct values is the input at its source."""
    spec = specs.get(op)
    for shape, block in (((2, 18, 3, 2), 3), ((1, 8, 4, 6), 2), ((1, 16, 4, 8), 4)):
        for order in ORDERS if op.endswith("1") else (None,):
            params = {"BlockSize": block, **({"Order": order} if order else {})}
            if spec.shape_problem([shape], params):
                continue
            x = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
            y = oracle.evaluate(op, x, "int32", **params)
            assert y.shape == spec.output_shapes([shape], params)[0]
            which, source = spec.source_index(tuple(np.indices(y.shape)), (x,), params)
            assert not np.any(which) and np.array_equal(x[source], y), (op, shape, params)


def test_every_case_passes_exactly_through_the_oracle():
    assert {c.op for c in CASES} == set(OPERATORS) and 100 <= min(
        sum(c.op == op for c in CASES) for op in OPERATORS)
    records = run("python:oracle:evaluate", CASES)
    assert {r["status"] for r in records} == {statuses.PASS}
    assert max(r["max_ulp"] for r in records) == 0
    record = next(r for r in records if r["id"] == "SPACE_TO_DEPTH1/float32/rank4[3x5x10x14]/BlockSize=2,"
                                                  f"Order={CRD}/uniform[-1000,1000]")
    assert record["input_shapes"] == [[3, 5, 10, 14]] and record["output_shapes"] == [[3, 20, 5, 7]]
    assert record["elements"] == 3 * 20 * 5 * 7


def test_the_cpu_provider_passes_what_it_takes_and_reports_the_rest():
    """ONNX Runtime's CPU DepthToSpace and SpaceToDepth take some data types only: the others are
    unsupported, SpaceToDepth's missing order is not reachable; none is a pass."""
    records = {r["id"]: r for r in run("cpu", CASES)}
    by_status = {}
    for case_id, record in records.items():
        by_status.setdefault(record["status"], set()).add(case_id)
    assert set(by_status) == {statuses.PASS, statuses.UNSUPPORTED_REQUIRED, statuses.NOT_REACHABLE}
    assert by_status[statuses.NOT_REACHABLE] == {c.id for c in CASES if c.op == "SPACE_TO_DEPTH1"
                                                 and c.params["Order"] == CRD}
    assert max(records[i]["max_ulp"] for i in by_status[statuses.PASS]) == 0
    passed = {(records[i]["id"].split("/")[0], records[i]["id"].split("/")[1]) for i in by_status[statuses.PASS]}
    assert {(op, "float32") for op in OPERATORS} <= passed
    assert any(f"Order={CRD}" in i and i.startswith("DEPTH_TO_SPACE1/") for i in by_status[statuses.PASS])
    assert all("int32" in i or "int64" in i or "int16" in i for i in by_status[statuses.UNSUPPORTED_REQUIRED])


@pytest.mark.parametrize("op, shape, params, said", [
    ("DEPTH_TO_SPACE", "[1, 6, 2, 2]", "BlockSize: 2", "channels 6 are not a multiple of BlockSize * BlockSize 4"),
    ("DEPTH_TO_SPACE1", "[1, 4, 2, 2]", "BlockSize: 0", "BlockSize 0 must be at least 1"),
    ("SPACE_TO_DEPTH", "[1, 1, 4, 6]", "BlockSize: 4", "height 4 and width 6 must be multiples of BlockSize 4"),
    ("SPACE_TO_DEPTH1", "[1, 1, 4, 4]", "Order: DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW", "BlockSize is required"),
    ("DEPTH_TO_SPACE1", "[1, 4, 2, 2]", "{BlockSize: 2, Order: DCR}", "Order must be one of"),
    ("SPACE_TO_DEPTH", "[4, 2, 2]", "BlockSize: 2", "never allows 3 dimensions"),
])
def test_a_bad_case_is_refused_at_load_naming_file_and_line(tmp_path, op, shape, params, said):
    path = tmp_path / "bad.yaml"
    fields = params.strip("{}").split(", ")
    path.write_text(f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [{shape}]\n    params:\n"
                    + "".join(f"      {f}\n" for f in fields) + "    inputs: [{kind: uniform}]\n")
    with pytest.raises(CaseFileError) as raised:
        load_file(path)
    message = str(raised.value)
    assert f"{path}:" in message and said in message and len(message.splitlines()) == 1, message


def _failing(records):
    return {r["id"] for r in records if r["status"] == statuses.FAIL}


def _orders_differ(case):
    """Whether the two orders move anything differently: BlockSize above 1 and several channels of space."""
    block, channels = case.params["BlockSize"], case.outputs[0][1] if case.op.startswith("DEPTH") else case.shape[1]
    return block > 1 and channels > 1


def test_the_other_order_is_caught_naming_output_and_source_index():
    from faults_depth_to_space import the_other_order
    records = run("python:faults_depth_to_space:the_other_order", CASES)
    expected_failures = {c.id for c in CASES if _orders_differ(c) and c.elements and c.generator["kind"] != "integer_extremes"}
    failed = _failing(records)
    assert expected_failures <= failed and failed <= {c.id for c in CASES if _orders_differ(c)}
    assert {r["status"] for r in records if r["id"] not in failed} == {statuses.PASS}
    case = select(CASES, f"DEPTH_TO_SPACE1/uint32/rank4[1x8x2x3]/BlockSize=2,Order={DCR}/page-example")[0]
    x = case.make_input()
    comparison = compare_case(case, x, the_other_order(case.op, x, case.dtype, **case.oracle_params()))
    assert not comparison.passed and comparison.worst
    for item in comparison.worst:
        n, c, row, column = item["index"]
        depth = (row % 2 * 2 + column % 2) * 2 + c  # (BlockHeight, BlockWidth, Channels)
        assert item["source"] == [n, depth, row // 2, column // 2] and item["source_input"] == "Input"
        assert item["input"] == item["expected"] == SPACE[DCR][c][row][column] != item["actual"]
        assert item["actual"] == SPACE[CRD][c][row][column]


def test_blocks_transposed_are_caught():
    records = run("python:faults_depth_to_space:blocks_transposed", CASES)
    failed = _failing(records)
    assert all(c.id in failed for c in CASES if c.params["BlockSize"] > 1 and c.elements and c.generator["kind"] == "uniform")
    assert not any("BlockSize=1/" in i or "BlockSize=1," in i for i in failed)  # a block of one: nothing moves
    record = next(r for r in records if r["id"] == "SPACE_TO_DEPTH/int8/rank4[2x2x6x4]/BlockSize=2/uniform[-100,200]")
    worst = record["d3d"]["worst"][0]
    n, d, row, column = worst["index"]
    assert worst["source"] == [n, d % 2, row * 2 + d // 4, column * 2 + d // 2 % 2]
    assert worst["lo"] == worst["hi"] == worst["expected"] != worst["actual"]


def _lane(name):
    from needs import missing
    from conformance.backends import dml_direct, dml_wine
    ready, why = dml_direct.available() if name == "dml-direct" else dml_wine.dml_wine.available()
    if not ready:
        missing(f"the {name} lane is missing: {why}")


def test_every_case_passes_exactly_through_dml_direct():
    """The real DirectML.dll (the Wine lane on lavapipe here): each struct with its BlockSize and Order,
    the output tensor in its own sizes; every data type of the 5_0 table, every float16 bit pattern."""
    _lane("dml-direct")
    records = run("dml-direct", CASES)
    assert {r["status"] for r in records} == {statuses.PASS}, \
        [(r["id"], r["message"]) for r in records if r["status"] != statuses.PASS][:3]
    assert max(r["max_ulp"] for r in records) == 0
    assert sum(r["elements"] == 65536 for r in records) == 6  # the exhaustive float16 cases
    # A dimension of size 0: refused by CreateOperator as DML_BUFFER_TENSOR_DESC documents, the empty
    # output in the operator's own sizes
    empty = {r["id"]: r for r in records if not r["elements"]}
    assert len(empty) == 36 and all("E_INVALIDARG" in r["message"] for r in empty.values())
    assert empty[f"DEPTH_TO_SPACE1/int8/rank4[1x8x0x3]/BlockSize=2,Order={CRD}/uniform[-10,10]"]["output_shapes"] \
        == [[1, 2, 0, 6]]


def test_the_reachable_cases_pass_through_dml_wine():
    """ONNX Runtime's DirectML provider under Wine (no CPU fallback): DepthToSpace in both modes and
    SpaceToDepth, every data type; SPACE_TO_DEPTH1's COLUMN_ROW_DEPTH is not reachable. One group of
    every data type (DepthToSpace's CRD, SpaceToDepth), the examples and the specials (the rest take the
    same nodes: dml-direct runs them)."""
    _lane("dml-wine")
    chosen = [c for c in CASES if c.op.endswith("1") and (
        c.generator.get("label") == "page-example" or c.generator["kind"] in ("specials", "exhaustive_float16")
        or c.shape == (2, 8, 3, 2) and c.params["Order"] == CRD or c.shape == (2, 2, 6, 4))]
    records = run("dml-wine", chosen)
    unreachable = {r["id"] for r in records if r["status"] == statuses.NOT_REACHABLE}
    assert unreachable == {c.id for c in chosen if c.op == "SPACE_TO_DEPTH1" and c.params["Order"] == CRD}
    assert {r["status"] for r in records if r["id"] not in unreachable} == {statuses.PASS}
    assert len(records) - len(unreachable) >= 30
