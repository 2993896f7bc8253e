"""The compatibility matrix: operators by rows, data type x feature level by columns.

Every renderer (HTML, markdown, the side-by-side comparison) builds its tables from here,
so a cell means the same thing everywhere.
"""
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from conformance import featurelevels, statuses
from conformance.judge.verdicts import CONFORMS_UP_TO, highest_conforming_level

DTYPE_ORDER = ("float32", "float16", "float64", "int64", "int32", "int16", "int8",
               "uint64", "uint32", "uint16", "uint8", "bool")


def operator_columns(rows, extra=()) -> list:
    """[(key, heading)] of the per-operator table (verdicts.operator_rows): the operator, its cases,
    a column per status, the level it conforms up to, then extra; a status column only where a row
    counts that status (pass and fail always)."""
    columns = [("operator", "operator"), ("cases", "cases"), *((s.name, s.label) for s in statuses.STATUSES),
               ("conforms_up_to", CONFORMS_UP_TO), *extra]
    always = ("operator", "cases", "conforms_up_to", statuses.PASS, statuses.FAIL)
    return [(key, title) for key, title in columns if key in always or any(row[key] for row in rows)]


def css_class(status: str) -> str:
    return "st-" + "".join(c if c.isalnum() else "-" for c in status)


def dtype_key(dtype: str):
    return (DTYPE_ORDER.index(dtype), dtype) if dtype in DTYPE_ORDER else (len(DTYPE_ORDER), dtype)


def level_key(level: str):
    try:
        return (featurelevels.index(level), str(level))
    except ValueError:
        return (len(featurelevels.LEVELS), str(level))


def ranks_text(ranks) -> str:
    """'rank 4', 'rank 1-3,5-8'."""
    ranks = sorted(set(ranks))
    if not ranks:
        return ""
    runs, start = [], ranks[0]
    for previous, current in zip(ranks, ranks[1:] + [None]):
        if current is None or current != previous + 1:
            runs.append(str(start) if start == previous else f"{start}-{previous}")
            start = current
    return "rank " + ",".join(runs)


@dataclass
class Cell:
    """The cases of one operator, data type and feature level (and their ranks)."""
    records: list = field(default_factory=list)

    @property
    def counts(self) -> Counter:
        return Counter(r["status"] for r in self.records)

    @property
    def status(self) -> str | None:
        """The most severe status present: failing ones first, then pass, unsupported, not reachable."""
        present = self.counts
        if not present:
            return None
        return min(present, key=statuses.rank)

    @property
    def total(self) -> int:
        return len(self.records)

    @property
    def failing(self) -> int:
        return sum(1 for r in self.records if r["status"] in statuses.FAILING)

    @property
    def passed(self) -> int:
        return self.counts.get(statuses.PASS, 0)

    @property
    def ranks(self) -> str:
        return ranks_text(r.get("rank", len(r.get("shape", []))) for r in self.records)

    @property
    def shown(self) -> int:
        """How many cases carry the cell's status (failing ones together)."""
        status = self.status
        if status is None:
            return 0
        return self.failing if status in statuses.FAILING else self.counts[status]

    @property
    def headline(self) -> str:
        """'pass 12/12', 'fail 3/13', 'not reachable 4/4': the label and how many cases carry it."""
        return f"{statuses.short(self.status)} {self.shown}/{self.total}" if self.status else ""

    @property
    def others(self) -> list:
        """The statuses the headline leaves out, e.g. ['6 pass', '1 not reachable']."""
        main = self.status
        return [f"{self.counts[s]} {statuses.short(s)}" for s in sorted(self.counts, key=statuses.rank)
                if s != main and not (main in statuses.FAILING and s in statuses.FAILING)]

    @property
    def detail(self) -> str:
        """Every count, for a tooltip: 'pass 10, not reachable 2 (rank 1-8)'."""
        counts = ", ".join(f"{statuses.label(s)} {n}"
                           for s, n in sorted(self.counts.items(), key=lambda i: statuses.rank(i[0])))
        return f"{counts} ({self.ranks})" if self.ranks else counts


@dataclass
class Row:
    op: str
    cells: dict  # (dtype, level) -> Cell
    conforms_up_to: str | None
    counts: Counter

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def failing(self) -> int:
        return sum(n for s, n in self.counts.items() if s in statuses.FAILING)

    @property
    def by_dtype(self) -> dict:
        """{dtype: Cell of every feature level}, for the at-a-glance matrix."""
        merged = defaultdict(Cell)
        for (dtype, _), cell in sorted(self.cells.items(), key=lambda item: level_key(item[0][1])):
            merged[dtype].records.extend(cell.records)
        return dict(merged)

    @property
    def conforming_types(self) -> list:
        """The data types with a passing case at or below the level the operator conforms up to."""
        if not self.conforms_up_to:
            return []
        top = level_key(self.conforms_up_to)
        return sorted({dtype for (dtype, level), cell in self.cells.items()
                       if level_key(level) <= top and cell.passed}, key=dtype_key)

    @property
    def first_failing(self) -> tuple | None:
        """(level, [(dtype, status)]): the lowest feature level with failing cases and its failing cells."""
        failing = [(level, dtype, cell.status) for (dtype, level), cell in self.cells.items()
                   if cell.status in statuses.FAILING]
        if not failing:
            return None
        lowest = min((level for level, _, _ in failing), key=level_key)
        return lowest, sorted(((d, s) for level, d, s in failing if level == lowest), key=lambda c: dtype_key(c[0]))


@dataclass
class Matrix:
    columns: list  # [(dtype, level)], data types in DirectML's order, levels ascending
    rows: list  # [Row], operators by name

    @property
    def dtypes(self) -> list:
        """[(dtype, [levels])] for a two-row header."""
        grouped = defaultdict(list)
        for dtype, level in self.columns:
            grouped[dtype].append(level)
        return list(grouped.items())

    def levels(self) -> list:
        return sorted({level for _, level in self.columns}, key=level_key)


def build(records) -> Matrix:
    by_op = defaultdict(list)
    for record in records:
        by_op[record["op"]].append(record)
    columns = sorted({(r["dtype"], r["feature_level"]) for r in records},
                     key=lambda c: (dtype_key(c[0]), level_key(c[1])))
    rows = []
    for op in sorted(by_op):
        cells = defaultdict(Cell)
        for record in by_op[op]:
            cells[(record["dtype"], record["feature_level"])].records.append(record)
        rows.append(Row(op, dict(cells), highest_conforming_level(by_op[op], op),
                        Counter(r["status"] for r in by_op[op])))
    return Matrix(columns, rows)


def failing(records) -> list:
    return [r for r in records if r["status"] in statuses.FAILING]


def verdict(records) -> tuple:
    """(conformant: bool, one line)."""
    bad = failing(records)
    if not records:
        return False, "no cases"
    if bad:
        kinds = Counter(r["status"] for r in bad)
        detail = ", ".join(f"{n} {s}" for s, n in sorted(kinds.items(), key=lambda i: statuses.rank(i[0])))
        return False, f"not conformant: {len(bad)} of {len(records)} cases failing ({detail})"
    return True, f"conformant: every required case of {len(records)} passed"
