"""--shard K/N: one of N parts of a selection, so that N machines or CI jobs each run one.

The parts are balanced by expected cost, not case count: a case costs its elements (a streamed sweep
all of its inputs, as it runs them), so a part holding one float32 sweep holds little else. The split
is the same on any machine for the same selection and N: the cases sorted by cost (largest first),
then id, each given to the part with the least cost so far (ties: the lowest part). Each part keeps
the selection's order. Its results header records which part it is of which case set (SHARD, the
case set's digest) and where each of its cases stands in the whole selection (POSITIONS), which is
how `conformance merge` puts the parts' records back in the order one unsharded run writes them.
"""
import hashlib
import heapq
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


def cost(case) -> int:
    return max(case.elements, 1)


def partition(cases, count: int) -> list:
    """count lists of positions in cases (each in ascending order): every case in exactly one."""
    order = sorted(range(len(cases)), key=lambda i: (-cost(cases[i]), cases[i].id, i))
    loads = [(0, part) for part in range(count)]  # a heap: the least loaded first, ties by part
    parts = [[] for _ in range(count)]
    for position in order:
        load, part = heapq.heappop(loads)
        parts[part].append(position)
        heapq.heappush(loads, (load + cost(cases[position]), part))
    return [sorted(part) for part in parts]


def digest(cases) -> str:
    """The selection, named: sha256 of every case's id and parameters (as its record describes it:
    shape, generator, tolerance, flush, seed...), in the selection's order. The file:line a case
    comes from is left out, so that the same cases from another checkout are the same set."""
    from conformance.run.results import encode
    hasher = hashlib.sha256()
    for case in cases:
        described = {key: value for key, value in case.describe().items() if key != "source"}
        hasher.update(encode(described).encode("utf-8") + b"\n")
    return "sha256:" + hasher.hexdigest()


def take(cases, text: str) -> tuple:
    """(the part's cases, the header entries {SHARD: ..., POSITIONS: [...]}) for --shard text."""
    index, count = parse(text)
    positions = partition(cases, count)[index - 1]
    entries = {SHARD: {"index": index, "count": count, "of_cases": len(cases), "case_set": digest(cases)},
               POSITIONS: positions}
    return [cases[p] for p in positions], entries
