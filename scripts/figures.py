"""The figures README.md and docs/ state, from the files they come from.

A figure stands between two markers that say where it comes from:

    the default run has <!-- figure catalogue cases -->9,266<!-- /figure --> cases

The source is `catalogue` (the shipped case files and operators: keys `operators`, `cases`) or a
results file, by its path from the repository's root (keys: `cases`, `elements`, `operators`,
`failing`, any status name such as `pass` or `unsupported-required`, and the header's `device`,
`directml`, `onnxruntime`, `feature_level`). Markdown hides the markers.

    python scripts/figures.py            # check: one line per figure that no longer matches, exit 1
    python scripts/figures.py --write    # rewrite each figure from its source

tests/test_docs.py runs the check, so a figure cannot drift from its results file unnoticed.
"""
import argparse
import functools
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"<!-- figure (?P<source>\S+) (?P<key>\S+) -->(?P<value>.*?)<!-- /figure -->")
HEADER_KEYS = ("device", "directml", "onnxruntime", "feature_level")


def documents(root=ROOT) -> list:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


@functools.lru_cache(maxsize=None)
def _catalogue() -> dict:
    sys.path.insert(0, str(ROOT))
    from conformance import specs
    from conformance.caseset.caseload import SHIPPED_CASES, load_paths
    return {"operators": len(specs.SPECS), "cases": len(load_paths([str(SHIPPED_CASES)]))}


@functools.lru_cache(maxsize=None)
def _results(path: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    from conformance import statuses
    from conformance.run.results import read_results
    header, records, _ = read_results(path)
    counted = Counter(r["status"] for r in records)
    figures = {"cases": len(records), "elements": sum(r.get("elements") or 0 for r in records),
               "operators": len({r["op"] for r in records}),
               "failing": sum(n for status, n in counted.items() if status in statuses.FAILING)}
    figures.update({status: counted.get(status, 0) for status in statuses.ALL})
    figures.update({key: header.get(key) for key in HEADER_KEYS})
    return figures


def value(source: str, key: str, root=ROOT):
    figures = _catalogue() if source == "catalogue" else _results((root / source).resolve())
    if key not in figures:
        raise KeyError(f"no figure {key!r} for {source} (known: {', '.join(figures)})")
    return figures[key]


def shown(figure) -> str:
    return f"{figure:,}" if isinstance(figure, int) else str(figure)


def check(paths, write=False, root=ROOT) -> list:
    """-> one line per stale or unreadable figure (file:line: what it says, what its source says)."""
    problems = []
    for path in paths:
        text = path.read_text(encoding="utf-8")

        def replace(match):
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path.relative_to(root) if path.is_relative_to(root) else path}:{line}"
            try:
                wanted = shown(value(match["source"], match["key"], root))
            except (KeyError, OSError, ValueError) as error:
                problems.append(f"{where}: {match['source']} {match['key']}: {error}")
                return match[0]
            if match["value"] != wanted:
                problems.append(f"{where}: says {match['value']!r}, {match['source']} gives {wanted!r} "
                                f"({match['key']})")
            return match[0].replace(f"-->{match['value']}<!--", f"-->{wanted}<!--")
        new = MARKER.sub(replace, text)
        if write and new != text:
            path.write_text(new, encoding="utf-8")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite each figure from its source")
    args = parser.parse_args(argv)
    problems = check(documents(), write=args.write)
    for problem in problems:
        print(problem)
    if args.write:
        print(f"{len(problems)} figure(s) rewritten" if problems else "every figure matches its source")
        return 0
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
