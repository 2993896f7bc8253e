"""Does DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION change what a device computes? Each float16
or float32 case of the given files whose ExecutionFlags is NONE runs twice on one backend (dml-direct: the
only route that chooses the flags) with the same inputs: as it is, and with the flag. Prints, per operator
and data type, how many pairs came back bitwise the same and, where they differ, by how many ULP (of the
output's type) at most.

    python scripts/flag_twins.py cases/gemm.yaml cases/reduce.yaml [--backend dml-direct]
"""
import argparse
import collections
import dataclasses
import sys

import numpy as np
from tabulate import tabulate

from conformance import backends
from conformance.backends.base import OK
from conformance.caseset.caseload import load_paths
from conformance.specs.base import ALLOW_HALF_PRECISION, EXECUTION_FLAGS

NONE = "NONE"
BITS = {"float16": (np.int16, np.int32, 0x7FFF), "float32": (np.int32, np.int64, 0x7FFFFFFF)}


def twins(cases) -> list:
    """(case as it is, the same case with the flag) for each float16 or float32 case whose ExecutionFlags
    is NONE."""
    pairs = []
    for case in cases:
        if case.dtype in BITS and case.params.get(EXECUTION_FLAGS) == NONE:
            # a case's id names its ExecutionFlags only where its file gave them
            given, flag = f"{EXECUTION_FLAGS}={NONE}", f"{EXECUTION_FLAGS}={ALLOW_HALF_PRECISION}"
            flagged_id = case.id.replace(given, flag) if given in case.id else f"{case.id}/{flag}"
            flagged = dataclasses.replace(case, params={**case.params, EXECUTION_FLAGS: ALLOW_HALF_PRECISION},
                                          id=flagged_id)
            pairs.append((case, flagged))
    return pairs


def ulp_apart(a: np.ndarray, b: np.ndarray) -> int:
    """The most ULP between two float16 or float32 arrays' elements (NaN beside NaN: 0); -1 where that is
    no measure: a NaN beside a number, integers (ARGMAX's indices) that differ."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.dtype.name not in BITS:
        return 0 if np.array_equal(a, b) else -1
    signed, wide, magnitude = BITS[a.dtype.name]
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if np.any(nan_a != nan_b):
        return -1

    def ordered(x):
        bits = x.view(signed).astype(wide)
        return np.where(bits < 0, -(bits & magnitude), bits)
    keep = ~nan_a
    return int(np.max(np.abs(ordered(a[keep]) - ordered(b[keep])), initial=0))


def outputs(outcome) -> list:
    return list(outcome.output) if isinstance(outcome.output, (list, tuple)) else [outcome.output]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--backend", default="dml-direct")
    args = parser.parse_args(argv)
    pairs = twins(load_paths(args.paths))
    if not pairs:
        print("no float16 case with ExecutionFlags NONE in these files", file=sys.stderr)
        return 2
    backend = backends.create(args.backend, {}, announce=lambda message: print(message, file=sys.stderr))
    rows = collections.defaultdict(lambda: [0, 0, 0, 0, ""])  # same, differ, not run, most ULP, an example
    try:
        items = []
        for case, flagged in pairs:
            x = case.make_input()
            items += [(case, x), (flagged, x)]
        came = backend.run_many(items)
        meta = backend.metadata()
        print(f"{args.backend} on {meta.get('device')}, DirectML {meta.get('directml')}, "
              f"{len(pairs)} pairs\n")
    finally:
        backend.close()
    for (case, _), plain, flagged in zip(pairs, came[0::2], came[1::2]):
        row = rows[(case.op, case.dtype)]
        if plain.status != OK or flagged.status != OK:
            row[2] += 1
            continue
        apart = max(ulp_apart(a, b) for a, b in zip(outputs(plain), outputs(flagged)))
        if apart == 0 and all(np.array_equal(a, b, equal_nan=True) for a, b in zip(outputs(plain), outputs(flagged))):
            row[0] += 1
        else:
            row[1] += 1
            if apart == -1 or apart > row[3]:
                row[3], row[4] = max(apart, row[3]), case.id
    print(tabulate([[*key, *row] for key, row in sorted(rows.items())],
                   headers=["operator", "type", "same", "differ", "not run", "most ULP apart", "e.g."], tablefmt="github"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
