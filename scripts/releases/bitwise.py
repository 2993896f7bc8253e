"""Do two DirectML releases compute the same bits? Runs the same cases through one backend for each
release and compares the outputs themselves (sha256 of each output's bytes), not only their
verdicts: `conformance compare --releases` sees a change in status or ULP; this sees any change.

    python scripts/releases/bitwise.py [PATHS] [--backend dml-direct|dml-wine] [-k EXPR]
                                       [--releases all|V,V...] [--json OUT] [--provider-option K=V ...]

Prints, for each pair of consecutive releases, how many cases gave other bits, and the first ids.
Exit 0 whether or not they differ; 2 on bad input; 3 when a backend is unavailable.
"""
import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from conformance import backends  # noqa: E402
from conformance.backends import dml_releases
from conformance.caseset.caseload import CaseFileError, load_paths  # noqa: E402
from conformance.caseset.selection import select  # noqa: E402

BATCH = 64


def digests(backend_name, release, cases, options) -> dict:
    """{case id: sha256 of the output (its dtype, shape and bytes), or the status where none}."""
    backend = backends.create(backend_name, {**options, dml_releases.OPTION: release.onnxruntime},
                              announce=lambda message: None)
    found = {}
    try:
        loaded = backend.metadata().get("directml_loaded") or {}
        print(f"{backend_name} {release.label}: loaded {loaded.get('file_version')} "
              f"sha256 {str(loaded.get('sha256'))[:12]}", file=sys.stderr)
        if hasattr(backend, "prepare"):
            backend.prepare(cases)
        for start in range(0, len(cases), BATCH):
            batch = cases[start:start + BATCH]
            for case, outcome in zip(batch, backend.run_many([(case, case.make_input()) for case in batch])):
                if outcome.output is None:
                    found[case.id] = f"{outcome.status}: {(outcome.message or '')[:80]}"
                    continue
                y = outcome.output
                digest = hashlib.sha256(f"{y.dtype.str}{y.shape}".encode() + y.tobytes()).hexdigest()
                found[case.id] = f"{outcome.status} {digest}"
    finally:
        backend.close()
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--backend", default="dml-direct", choices=("dml-direct", "dml-wine"))
    parser.add_argument("-k", dest="expression")
    parser.add_argument("--releases", default="all")
    parser.add_argument("--json", help="write {release: {case id: digest}} here")
    parser.add_argument("--provider-option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    try:
        releases = dml_releases.select(args.releases)
        options = dict(option.split("=", 1) for option in args.provider_option)
        cases = load_paths(args.paths or None, 0)
        cases = select(cases, args.expression) if args.expression else cases
    except (ValueError, CaseFileError) as error:
        print(f"bitwise: {error}", file=sys.stderr)
        return 2
    if not cases:
        print("bitwise: no case selected", file=sys.stderr)
        return 2
    try:
        results = {release.onnxruntime: digests(args.backend, release, cases, options) for release in releases}
    except backends.BackendUnavailable as error:
        print(f"bitwise: {error}", file=sys.stderr)
        return 3
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for before, after in zip(releases, releases[1:]):
        a, b = results[before.onnxruntime], results[after.onnxruntime]
        changed = [case.id for case in cases if a[case.id] != b[case.id]]
        print(f"{args.backend}: {before.label} -> {after.label}: {len(changed)} of {len(cases)} cases give other bits"
              + "".join(f"\n  {case_id}" for case_id in changed[:20]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
