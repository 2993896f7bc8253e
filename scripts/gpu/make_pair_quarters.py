#!/usr/bin/env python3
"""Write scripts/gpu/sweeps/*_float16_pairs.yaml: each float16 pair sweep of sweeps/float16_pairs/ in
four cases of a quarter of its pair indices, for the GPU (a run cut short keeps the quarters it
finished; `bash scripts/gpu/device.sh pairs` runs them).

    python3 scripts/gpu/make_pair_quarters.py           # (re)write the files
    python3 scripts/gpu/make_pair_quarters.py --check   # exit 1 if they are not in sync with sweeps/float16_pairs/

A shipped file must load to one exhaustive_float16_pairs case (exit 2 otherwise, naming it).
"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from conformance.caseset import caseload, inputs  # noqa: E402
from make_f16_sweeps import value_yaml  # noqa: E402
import generated  # noqa: E402  (beside this script)

SHIPPED = ROOT / "sweeps" / "float16_pairs"
OUT = ROOT / "scripts" / "gpu" / "sweeps"
SUFFIX = "_float16_pairs.yaml"  # device.sh pairs runs scripts/gpu/sweeps/*$SUFFIX
QUARTERS = 4


class Unfit(Exception):
    pass


def quarter_path(shipped: Path) -> Path:
    """sweeps/float16_pairs/element_wise_add_float16.yaml -> scripts/gpu/sweeps/element_wise_add_float16_pairs.yaml"""
    return OUT / (shipped.name.removesuffix("_float16.yaml") + SUFFIX)


def count(n: int) -> str:
    return f"2**{n.bit_length() - 1}" if n & (n - 1) == 0 else f"{n:,}"


def render(shipped: Path) -> str:
    cases = caseload.load_paths([str(shipped)], 0)
    if len(cases) != 1 or cases[0].generator["kind"] != inputs.PAIRS:
        raise Unfit(f"{shipped.relative_to(ROOT)}: loads to {len(cases)} case(s); one {inputs.PAIRS} case a file")
    case = cases[0]
    indices = inputs.bit_range(case.generator)
    if indices.step != 1 or len(indices) % QUARTERS:
        raise Unfit(f"{shipped.relative_to(ROOT)}: its pair indices ({indices}) do not split in {QUARTERS} "
                    "equal parts")
    size = len(indices) // QUARTERS
    cuts = [indices.start + k * size for k in range(QUARTERS + 1)]
    params = {k: v for k, v in case.params.items() if v is not None}
    stem = quarter_path(shipped).name.removesuffix(SUFFIX)
    lines = [
        f"# Every pair of float16 inputs of {case.op} in four cases of {count(size)} pairs each (pair",
        "# index p, A = bits p >> 16, B = bits p & 0xFFFF), so a run cut short keeps the quarters it finished. The four",
        f"# together are {shipped.relative_to(ROOT)}; GENERATED from it by",
        "# scripts/gpu/make_pair_quarters.py: do not edit, rerun it.",
        f"#   bash scripts/gpu/device.sh pairs {stem}",
        f"operator: {case.op}",
        "groups:",
        "  - name: every (A, B) pair of float16 values, in quarters of the pair index",
        f"    dtypes: [{case.dtype}]",
        "    shapes: [auto]" if len(case.shape) == 1 else f"    shapes: [{{rank: {len(case.shape)}}}]",
    ]
    if params:
        lines += ["    params:"] + [f"      {name}: {value_yaml(value)}" for name, value in params.items()]
    lines.append("    inputs:")
    lines += [f"      - {{kind: {inputs.PAIRS}, start: 0x{a:08X}, stop: 0x{b:08X}}}" for a, b in zip(cuts, cuts[1:])]
    return "\n".join(lines) + "\n"


def files() -> dict:
    return {quarter_path(p): render(p) for p in sorted(SHIPPED.glob("*.yaml"))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the files are not in sync")
    args = parser.parse_args(argv)
    try:
        wanted = files()
    except Unfit as problem:
        print(f"make_pair_quarters.py: {problem}", file=sys.stderr)
        return 2
    stale = sorted(set(OUT.glob(f"*{SUFFIX}")) - set(wanted))
    if args.check:
        return generated.sync(wanted, stale, True, f"{SHIPPED.relative_to(ROOT)}/", "make_pair_quarters.py", ROOT)
    generated.sync(wanted, stale, False, f"{SHIPPED.relative_to(ROOT)}/", "make_pair_quarters.py", ROOT)
    print(f"{len(wanted)} quarter files in {OUT.relative_to(ROOT)}: "
          + ", ".join(p.name.removesuffix(SUFFIX) for p in wanted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
