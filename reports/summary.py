"""The one-screen summary printed at the end of a run (and by `conformance report`)."""
from tabulate import tabulate

from conformance import statuses
from conformance.judge.verdicts import judgement, operator_rows
from reports import details
from reports.matrix import operator_columns


def table(records, tablefmt="simple") -> str:
    rows = operator_rows(records)
    used = operator_columns(rows, extra=[("models_disagree", "other model differs")])
    return tabulate([[row[key] for key, _ in used] for row in rows], headers=[t for _, t in used],
                    tablefmt=tablefmt)


def failing_lines(records, limit=20) -> list:
    failing = [r for r in records if r["status"] in statuses.FAILING]
    lines = [f"  {r['status']:<22} {r['id']}  ({judgement(r)})"
             if r["status"] == statuses.FAIL else f"  {r['status']:<22} {r['id']}: {r['message'][:details.MESSAGE_SHOWN]}"
             for r in failing[:limit]]
    if len(failing) > limit:
        lines.append(f"  ... and {len(failing) - limit} more (see the results file)")
    return lines


def text(header: dict, records, footer: dict) -> str:
    lines = [f"backend {header.get('backend')} ({header.get('provider')}, {header.get('device')}), "
             f"onnxruntime {header.get('onnxruntime', '-')}, feature level {header.get('feature_level')}, "
             f"seed {header.get('seed')}, tolerance model {header.get('tolerance_model', 'ulp')}",
             table(records)]
    failing = failing_lines(records)
    if failing:
        lines += ["", "failing cases:"] + failing
    if cut := details.partly_verified(records):
        lines += ["", f"partly verified (interrupted): {cut}"]
    lines.append("")
    lines.append(f"{len(records)} cases in {footer.get('seconds', 0):.1f} s, "
                 f"{footer.get('sessions_created', 0)} sessions created"
                 + (" -- INTERRUPTED" if footer.get("interrupted") else ""))
    return "\n".join(lines)
