"""The float16 pair sweeps on the GPU (scripts/gpu): the quarter files against the shipped sweeps,
`device.sh pairs` and `device.sh bench` refusing plans over one device command, and bench_table's
pair figures from the H100's pair results (docs/gpu/pairs-h100)."""
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import specs
from conformance.caseset import inputs
from conformance.caseset.caseload import load_paths

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "scripts" / "gpu"
sys.path.insert(0, str(GPU))

import make_pair_quarters  # noqa: E402

# The issue's operators: the arithmetic ones and every comparison whose spec takes float16.
ISSUE_OPERATORS = {"ELEMENT_WISE_ADD", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_DIVIDE",
                   "ELEMENT_WISE_MIN", "ELEMENT_WISE_MAX"}
COMPARISONS = ("ELEMENT_WISE_LOGICAL_EQUALS", "ELEMENT_WISE_LOGICAL_GREATER_THAN", "ELEMENT_WISE_LOGICAL_LESS_THAN",
               "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL")


def shipped_files():
    return sorted(make_pair_quarters.SHIPPED.glob("*.yaml"))


def test_every_operator_of_the_issue_has_a_shipped_pair_sweep():
    wanted = ISSUE_OPERATORS | {op for op in COMPARISONS
                                if any("float16" in t.dtypes for t in specs.get(op).tables)}
    assert len(wanted) == 11  # both _OR_EQUAL comparisons take float16
    assert {load_paths([str(p)], 0)[0].op for p in shipped_files()} >= wanted


@pytest.mark.parametrize("shipped", shipped_files(), ids=lambda p: p.stem)
def test_the_quarters_cover_exactly_their_shipped_sweep(shipped):
    (whole,) = load_paths([str(shipped)], 0)
    quarters = load_paths([str(make_pair_quarters.quarter_path(shipped))], 0)
    assert len(quarters) == make_pair_quarters.QUARTERS
    for case in quarters:
        assert (case.op, case.dtype, case.params, case.generator["kind"]) == \
            (whole.op, whole.dtype, whole.params, whole.generator["kind"])
        assert len(case.shape) == len(whole.shape)
    covered = sorted((inputs.bit_range(c.generator).start, inputs.bit_range(c.generator).stop) for c in quarters)
    assert all(inputs.bit_range(c.generator).step == 1 for c in quarters)
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:])), covered  # no gap, no overlap
    whole_range = inputs.bit_range(whole.generator)
    assert (covered[0][0], covered[-1][1]) == (whole_range.start, whole_range.stop) == (0, 1 << 32)


def test_the_quarter_files_are_those_the_script_writes():
    done = subprocess.run([sys.executable, str(GPU / "make_pair_quarters.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    quarter_files = set(GPU.glob(f"sweeps/*{make_pair_quarters.SUFFIX}"))
    assert quarter_files == {make_pair_quarters.quarter_path(p) for p in shipped_files()}
