"""JUnit XML, as CI systems read it (Jenkins, GitLab, GitHub Actions reporters, Azure DevOps).

One <testsuite> per operator, one <testcase> per case (name: the case id). Statuses map as
pytest's do: fail, unsupported-required and cpu-fallback are <failure>s; error, crash and
timeout are <error>s; unsupported-not-required and not-reachable are <skipped> with the reason.
"""
import re
import socket
import xml.etree.ElementTree as ET
from collections import defaultdict

from conformance import statuses
from conformance.judge.verdicts import judgement
from reports import details

FAILURE = frozenset(s.name for s in statuses.STATUSES if s.failing and s.severity == 1)  # wrong or refused
ERROR = frozenset(s.name for s in statuses.STATUSES if s.failing and s.severity > 1)  # broke or died
# XML 1.0 cannot hold most control characters, even escaped: a driver message may contain them.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(value) -> str:
    return _NOT_XML.sub("\ufffd", "" if value is None else str(value))


def classname(header: dict, record: dict) -> str:
    backend = re.sub(r"[^A-Za-z0-9_-]+", "_", str(header.get("backend") or record.get("backend") or "backend"))
    return f"conformance.{backend}.{record['op']}"


def summary_line(record: dict) -> str:
    """The one line a CI system shows next to the test's name."""
    status = record["status"]
    message = (record.get("message") or "").strip()
    first = message.splitlines()[0] if message else ""
    if status == statuses.FAIL:
        return judgement(record) or first or f"{record.get('mismatches')} of {record.get('elements')} elements off"
    if status == statuses.UNSUPPORTED_REQUIRED:
        return (f"unsupported, but required at this feature level (from FL {record.get('feature_level')})"
                + (f": {first}" if first else ""))
    return f"{statuses.label(status)}" + (f": {first}" if first else "")


def body(record: dict, header: dict, ids) -> str:
    lines = [record.get("message") or summary_line(record), "",
             f"case: {record['id']}", f"shape {record.get('shape')}, {record.get('dtype')}, "
             f"parameters {record.get('params')}, tolerance {record.get('tolerance')} ULP, "
             f"tolerance model {record.get('tolerance_model', 'ulp')}", f"judgement: {judgement(record) or '-'}",
             f"source: {record.get('source')}", f"rerun: {details.rerun_command(record, header, ids)}"]
    if record.get("repro"):
        lines.append(f"saved for repro: {record['repro']}")
    return "\n".join(lines)


def render(header: dict, records: list, footer: dict | None) -> str:
    ids = details.known_ids(records, header)
    by_op = defaultdict(list)
    for record in records:
        by_op[record["op"]].append(record)
    timestamp = (header.get("start") or "")[:19]
    root = ET.Element("testsuites", name=clean(f"dml-conformance {header.get('backend', '')}").strip())
    totals = defaultdict(int)
    for op in sorted(by_op):
        items = by_op[op]
        suite = ET.SubElement(root, "testsuite", name=clean(op))
        counts = {"tests": len(items), "failures": sum(r["status"] in FAILURE for r in items),
                  "errors": sum(r["status"] in ERROR for r in items),
                  "skipped": sum(r["status"] in statuses.SKIPPED for r in items)}
        seconds = sum(float(r.get("seconds") or 0) for r in items)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{seconds:.6f}")
        totals["time"] += seconds
        if timestamp:
            suite.set("timestamp", timestamp)
        suite.set("hostname", clean(socket.gethostname()))
        properties = ET.SubElement(suite, "properties")
        for name, value in details.metadata_rows(header, footer, records):
            ET.SubElement(properties, "property", name=clean(name), value=clean(value))
        for record in items:
            case = ET.SubElement(suite, "testcase", name=clean(record["id"]), classname=classname(header, record),
                                 time=f"{float(record.get('seconds') or 0):.6f}")
            path = details.case_path(record, header)
            if path:
                case.set("file", clean(path))
                line = (record.get("source") or "").rsplit(":", 1)[-1]
                if line.isdigit():
                    case.set("line", line)
            status = record["status"]
            if status in FAILURE or status in ERROR:
                tag = "failure" if status in FAILURE else "error"
                element = ET.SubElement(case, tag, message=clean(summary_line(record)), type=clean(status))
                element.text = clean(body(record, header, ids))
            elif status in statuses.SKIPPED:
                ET.SubElement(case, "skipped", message=clean(summary_line(record)))
            elif status != statuses.PASS:  # a status this module does not know: never a silent pass
                element = ET.SubElement(case, "error", message=clean(summary_line(record)), type=clean(status))
                element.text = clean(body(record, header, ids))
                totals["errors"] += 1
                suite.set("errors", str(int(suite.get("errors")) + 1))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    root.set("time", f"{totals['time']:.6f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
