"""Files a script makes from others (make_f16_sweeps.py, make_pair_quarters.py): check them, or write them."""
import sys


def sync(wanted: dict, stale: list, check: bool, source: str, script: str, root) -> int:
    """wanted: {path: text}; stale: files of the script's that nothing makes any more. check: name
    each file out of sync with `source` and how to make them again -> 1 if any, else 0; otherwise
    remove the stale files, write the wanted ones -> 0."""
    if check:
        bad = [p for p, text in wanted.items() if not p.exists() or p.read_text() != text] + list(stale)
        for path in bad:
            print(f"out of sync with {source}: {path.relative_to(root)}", file=sys.stderr)
        if bad:
            print(f"rerun: python3 scripts/gpu/{script}", file=sys.stderr)
        return 1 if bad else 0
    for path in stale:
        path.unlink()
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return 0
