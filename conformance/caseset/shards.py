"""--shard K/N: one of N parts of a selection, so that N machines or CI jobs each run one.

The parts are balanced by expected cost, not case count: a case costs its elements (a streamed sweep
all of its inputs, as it runs them) plus a small case's fixed cost (CASE_COST), and the cases of one
operator and data type go together, with one session's cost (SESSION_COST): the ONNX Runtime
backends make one shared graph, one session, for them, so a split that scattered them would make
every part build most of them (the default cases in 4 parts, case by case: 1,298 sessions against
333). A group larger than a part's share (a sweep's cases) is split into its cases. The units,
largest first, then by their first id, each go to the part with the least cost so far (ties: the
lowest part): the same on any machine for the same selection and N. Each part keeps the selection's
order. Its results header records which part it is of which case set (SHARD, the
case set's digest) and where each of its cases stands in the whole selection (POSITIONS), which is
how `conformance merge` puts the parts' records back in the order one unsharded run writes them.
"""
import hashlib
import heapq
import json
import re

from conformance.errors import BadInput

SHARD = "shard"  # the header's {"index": K, "count": N, "of_cases": total, "case_set": digest}
POSITIONS = "shard_positions"  # the header's: each record's place in the whole selection, in order
USAGE = "expected K/N with 1 <= K <= N, e.g. --shard 2/4"


def parse(text: str) -> tuple:
    """'K/N' -> (K, N), or BadInput in one line."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not match:
        raise BadInput(f"--shard {text!r}: {USAGE}")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= index <= count:
        raise BadInput(f"--shard {text}: {USAGE}")
    return index, count


# Fixed costs in elements' worth (the verifier and a CPU session judge some 50 to 100 M elements a
# second on a core): a small case's reference, record and report (~0.5 ms), and a session's creation.
CASE_COST = 1 << 15
SESSION_COST = 1 << 20


def cost(case) -> int:
    return max(case.elements, 0) + CASE_COST


def groups(cases) -> list:
    """The positions of each operator and data type's cases (one shared graph, one session on the ONNX
    Runtime backends), each list ascending, the lists in the order of their first case."""
    found = {}
    for position, case in enumerate(cases):
        found.setdefault((case.op, case.dtype), []).append(position)
    return list(found.values())


def _units(cases, count: int) -> list:
    """[(cost, positions)]: the cases of each operator and data type together, with one session's
    cost, or case by case where the group is more than a part's share."""
    grouped = groups(cases)
    share = (sum(cost(c) for c in cases) + SESSION_COST * len(grouped)) / count
    units = []
    for members in grouped:
        total = SESSION_COST + sum(cost(cases[p]) for p in members)
        if total <= share:
            units.append((total, members))
        else:
            units += [(cost(cases[p]) + SESSION_COST, [p]) for p in members]
    return units


def plan(cases, count: int) -> tuple:
    """(count lists of positions in cases, each in ascending order, every case in exactly one;
    each part's expected cost)."""
    units = sorted(_units(cases, count), key=lambda unit: (-unit[0], cases[unit[1][0]].id, unit[1][0]))
    loads = [(0, part) for part in range(count)]  # a heap: the least loaded first, ties by part
    parts = [[] for _ in range(count)]
    for weight, members in units:
        load, part = heapq.heappop(loads)
        parts[part] += members
        heapq.heappush(loads, (load + weight, part))
    return [sorted(part) for part in parts], [load for load, _ in sorted(loads, key=lambda item: item[1])]


def partition(cases, count: int) -> list:
    return plan(cases, count)[0]


def digest(cases) -> str:
    """The selection, named: sha256 of every case's id and parameters (as its record describes it:
    shape, generator, tolerance, flush, seed...), in the selection's order. The file:line a case
    comes from is left out, so that the same cases from another checkout are the same set."""
    hasher = hashlib.sha256()
    for case in cases:
        described = {key: value for key, value in case.describe().items() if key != "source"}
        # sorted keys, Python's float repr (NaN and the infinities by name): the same text anywhere
        hasher.update(json.dumps(described, sort_keys=True, default=str).encode("utf-8") + b"\n")
    return "sha256:" + hasher.hexdigest()


def take(cases, text: str) -> tuple:
    """(the part's cases, the header entries {SHARD: ..., POSITIONS: [...]}) for --shard text."""
    index, count = parse(text)
    positions = partition(cases, count)[index - 1]
    entries = {SHARD: {"index": index, "count": count, "of_cases": len(cases), "case_set": digest(cases)},
               POSITIONS: positions}
    return [cases[p] for p in positions], entries
