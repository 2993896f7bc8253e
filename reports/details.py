"""What every report says about a run and a failing case: metadata, the rerun command, the histogram."""
import argparse
import functools
import hashlib
import json
import re
import shlex
from dataclasses import dataclass

import numpy as np

from conformance import featurelevels, statuses
from conformance.caseset.caseload import checkout_path, source_file
from conformance.caseset.selection import compile_expression
from conformance.judge.compare import bin_index, bin_range, histogram_bins, index_input_text
from conformance.judge.verdicts import deciding_model
from reports.matrix import dtype_key

KEYWORDS = {"and", "or", "not"}
# header keys for the rerun commands, and a sharded run's bookkeeping (conformance merge): not for a
# person to read, and not to tell a merged run's report from one run's
HIDDEN = {"case_files", "shard_positions", "merged_from"}
MESSAGE_SHOWN = 160  # characters of a case's message that a table row shows


def metadata_rows(header: dict, footer: dict | None, records=None) -> list:
    """[(name, text)] in the order a person reads them; unknown header keys follow under their own name."""
    header, footer = header or {}, footer or {}
    known = [
        ("backend", header.get("backend")), ("provider", header.get("provider")),
        ("device", header.get("device")),
        ("driver", header.get("driver") or header.get("driver_version")),
        ("DirectML", header.get("directml") or "-"),
        ("onnxruntime", header.get("onnxruntime_package") or header.get("onnxruntime")),
        ("feature level", header.get("feature_level") and f"DML_FEATURE_LEVEL_{header['feature_level']}"),
        ("seed", header.get("seed")), ("OS", header.get("os")),
        ("python / numpy / onnx", " / ".join(str(header.get(k, "-")) for k in ("python", "numpy", "onnx"))),
        ("date", header.get("start")), ("duration", _duration(footer.get("seconds"))),
        ("cases", footer.get("cases", len(records) if records is not None else None)),
        ("sessions created", footer.get("sessions_created")),
    ]
    if footer.get("interrupted"):
        known.append(("interrupted", "yes: the results are partial"))
    if records and (note := partly_verified(records)):
        known.append(("partly verified", note))
    if not footer:
        known.append(("footer", "missing: the run did not finish (crash or kill); the results are partial"))
    shown = {"backend", "provider", "device", "driver", "driver_version", "directml", "onnxruntime_package",
             "onnxruntime", "feature_level", "seed", "os", "python", "numpy", "onnx", "start", "type", "tool"}
    extra = [(key, _text(value)) for key, value in header.items() if key not in shown | HIDDEN]
    return [(name, _text(value)) for name, value in known if value not in (None, "")] + extra


def partly_verified(records) -> str | None:
    """The streamed cases a Ctrl-C cut short ("partial" in their record): judged on the elements
    verified before it, which are not all of the case's."""
    cut = [r for r in records if r.get("partial")]
    return "; ".join(f"{r['id']}: {r['partial']['verified']:,} of {r['partial']['of']:,} elements"
                     for r in cut) or None


def _duration(seconds) -> str | None:
    if seconds is None:
        return None
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def _text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(shlex.quote(v) for v in value)
    return json.dumps(value, sort_keys=True)


def run_label(header: dict, fallback: str = "") -> str:
    """'dml (NVIDIA RTX 4090)', for a column of a side-by-side comparison."""
    backend = header.get("backend") or fallback or "?"
    device = header.get("device")
    return f"{backend} ({device})" if device and device != backend else backend


def anchor(case_id: str) -> str:
    """A safe, stable HTML id for a case (case ids hold any character a case file can)."""
    return "case-" + hashlib.sha1(case_id.encode()).hexdigest()[:12]


# ---- the rerun command -----------------------------------------------------------------------

def keyword_for(case_id: str, all_ids) -> str:
    """A -k expression (conformance's and pytest's substring grammar) that selects this case alone
    among all_ids: the id's words joined with 'and', then 'and not W' for each other id it still
    matches (W: a word of that id which this id lacks)."""
    words = [w for w in re.findall(r"[^\s()]+", case_id) if w.lower() not in KEYWORDS]
    expression = " and ".join(words) or case_id
    matcher = compile_expression(expression)
    lowered = case_id.lower()
    needed = max(words, key=len).lower() if words else ""  # in every id the words match
    for other, other_lowered in _sorted_lowered(frozenset(all_ids)):
        if other == case_id or needed not in other_lowered or not matcher(other):
            continue
        distinct = [w for w in re.findall(r"[^\s()]+", other)
                    if w.lower() not in KEYWORDS and w.lower() not in lowered]
        if distinct:
            expression += f" and not {max(distinct, key=len)}"
    return expression


@functools.lru_cache(maxsize=4)
def _sorted_lowered(ids: frozenset) -> tuple:
    """((id, id.lower()), ...) sorted: once per run's ids, not once per failing case."""
    return tuple((i, i.lower()) for i in sorted(ids))


def known_ids(records, header: dict) -> frozenset:
    """The ids a rerun's -k must tell apart: every case of the run, and every case its case files
    expanded to (a run made with -k saw only some of them), as the header's case_files has them."""
    files = header.get("case_files") or {}
    ids = {r["id"] for r in records}
    for source in {source_file(r.get("source") or "") for r in records}:
        ids.update(files.get(source, {}).get("ids", []))
    return frozenset(ids)


def rerun_command(record: dict, header: dict, all_ids=()) -> str:
    """conformance run --backend B --seed S [--feature-level L] [tolerance and flush options] -k 'ID' PATH,
    quoted for the shell of the system the run was made on (Windows: cmd and PowerShell's double quotes)."""
    args = ["conformance", "run", "--backend", str(header.get("backend") or record.get("backend") or "auto"),
            "--seed", str(header.get("seed", 0))]
    level = header.get("feature_level")
    if level and level != featurelevels.DEFAULT_LEVEL:
        args += ["--feature-level", str(level)]
    args += _options_from_argv(header.get("argv") or [])
    if header.get("tolerance_model") == "ulp":
        args += ["--tolerance-model", "ulp"]
    args += ["-k", keyword_for(record["id"], all_ids or [record["id"]])]
    path = case_path(record, header)
    if path:
        args.append(path)
    return shell_join(args, header, always=args.index("-k") + 1)  # the keyword quoted, as a person writes it


def shell_join(args, header: dict, always=None) -> str:
    """args as one command line for the shell of the run's system (header["os"]); args[always] is
    quoted even where it need not be."""
    windows = str(header.get("os") or "").startswith("Windows")
    quoted = []
    for number, arg in enumerate(args):
        if windows:
            plain = re.fullmatch(r"[\w./:\\=+-]+", arg) and number != always
            quoted.append(arg if plain else '"' + arg.replace('"', '\\"') + '"')
        else:
            text = shlex.quote(arg)
            quoted.append(f"'{arg}'" if number == always and text == arg and "'" not in arg else text)
    return " ".join(quoted)


def case_path(record: dict, header: dict) -> str | None:
    """The case's file as the run named it for a rerun; for results from before the header's
    case_files, caseload.checkout_path of its source."""
    source = source_file(record.get("source") or "")
    if not source:
        return None
    files = header.get("case_files") or {}
    return files[source]["path"] if source in files else checkout_path(source)


def _options_from_argv(argv) -> list:
    """The run's tolerance, flush, size and provider options, so the rerun judges the same way."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--tolerance", "--conformance-tolerance", dest="tolerance", action="append", default=[])
    parser.add_argument("--forbid-flush", "--conformance-forbid-flush", dest="forbid_flush", action="store_true")
    parser.add_argument("--max-elements", "--conformance-max-elements", dest="max_elements")
    parser.add_argument("--provider-option", "--conformance-provider-option", dest="provider_option",
                        action="append", default=[])
    try:
        known, _ = parser.parse_known_args([str(a) for a in argv[1:]])
    except SystemExit:
        return []
    options = []
    for value in known.tolerance:
        options += ["--tolerance", value]
    for value in known.provider_option:
        options += ["--provider-option", value]
    if known.max_elements:
        options += ["--max-elements", known.max_elements]
    if known.forbid_flush:
        options.append("--forbid-flush")
    return options


# ---- the ULP histogram -----------------------------------------------------------------------

@dataclass
class Bar:
    label: str
    count: int
    range: str
    kind: str  # "ok" (within tolerance), "over", "edge" (a bin holding both), "nan", "flushed"
    x: float = 0
    y: float = 0
    width: float = 0
    height: float = 0


@dataclass
class Histogram:
    bars: list
    width: int
    height: int
    baseline: float
    note: str  # what the picture counts
    tolerance: int

    @property
    def title(self) -> str:
        return "; ".join(f"{b.range} ULP: {b.count}" if b.kind not in ("nan", "flushed")
                         else f"{b.range}: {b.count}" for b in self.bars if b.count)


def _bin_label(low: int, high: int) -> str:
    """A bin by its lowest value: 0, 1, 2 (2-3), 4 (4-7), ..., 512, then 2^10, 2^11, ..."""
    return str(low) if low < 1024 else f"2^{low.bit_length() - 1}"


def _bin_range(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def histogram(record: dict) -> Histogram | None:
    """Bars for every ULP bin from 0 to the largest seen (empty ones too, so the scale shows), then
    NaN mismatches and flushed denormals. Heights on a log scale: one element among 65536 shows."""
    data = record.get("ulp_histogram")
    note = "every element, by ULP distance from the oracle (log scale)"
    if not data:
        worst = [w for w in record.get("worst") or []]
        if not worst:
            return None
        distances = [int(w["ulp"]) for w in worst if w.get("ulp") != "nan"]
        data = {"bins": histogram_bins(np.bincount(bin_index(np.array(distances, dtype=np.int64))))
                if distances else [], "nan": len(worst) - len(distances), "flushed": 0}
        note = f"only the {len(worst)} worst elements (this results file has no full histogram)"
    tolerance = int(record.get("tolerance") or 0)
    present = {int(bin_index(np.array([low]))[0]): (int(low), int(high), int(n))
               for low, high, n in data.get("bins", [])}
    bars = []
    for k in range(0, max(present, default=0) + 1):
        low, high = bin_range(k)
        count = present.get(k, (low, high, 0))[2]
        kind = "ok" if high <= tolerance else ("over" if low > tolerance else "edge")
        bars.append(Bar(_bin_label(low, high), count, _bin_range(low, high), kind))
    for key, name in (("nan", "NaN"), ("flushed", "flushed")):
        if data.get(key):
            bars.append(Bar(name, int(data[key]), name, key))
    return _layout(bars, note, tolerance)


def _layout(bars, note, tolerance) -> Histogram:
    import math
    step, bar_width, top, plot_height, left = 34, 26, 18, 120, 8
    peak = max((b.count for b in bars), default=1) or 1
    for i, bar in enumerate(bars):
        bar.height = 0 if bar.count == 0 else max(2.0, plot_height * math.log1p(bar.count) / math.log1p(peak))
        bar.x = left + i * step
        bar.y = top + plot_height - bar.height
        bar.width = bar_width
    width = left * 2 + step * len(bars)
    return Histogram(bars, max(width, 200), top + plot_height + 34, top + plot_height, note, tolerance)


# ---- failing cases, grouped ------------------------------------------------------------------

@dataclass
class FailureGroup:
    """The failing cases of one operator, data type and status: one story, told by its first case."""
    op: str
    dtype: str
    status: str
    records: list

    @property
    def first(self) -> dict:
        return self.records[0]


def failure_groups(records) -> list:
    """[FailureGroup] of the failing cases, the most severe status first (those of one severity in
    turn), then by operator and data type."""
    grouped = {}
    for record in records:
        if record["status"] in statuses.FAILING:
            grouped.setdefault((record["op"], record["dtype"], record["status"]), []).append(record)
    order = sorted(grouped, key=lambda k: (statuses.rank(k[2]), k[0], dtype_key(k[1])))
    # Statuses as bad as each other take turns, so a short list shows each kind of failure.
    turn = {}
    for key in order:
        turn[key] = sum(1 for seen in turn if seen[2] == key[2])
    order.sort(key=lambda k: (-statuses.severity(k[2]), turn[k], statuses.rank(k[2])))
    return [FailureGroup(op, dtype, status, grouped[(op, dtype, status)]) for op, dtype, status in order]


def deciding_worst(record) -> list:
    """The worst elements by the model that decided the case: those outside the Direct3D rules
    (d3d), else those beyond the ULP tolerance."""
    d3d = (record.get("d3d") or {}).get("worst")
    return d3d if deciding_model(record) == "d3d" and d3d else record.get("worst") or []


def element_name(item: dict) -> str:
    """A worst element's output index, after its output's name where there are several (OutputIndex[0, 2])."""
    return f"{item.get('output', '')}{item.get('index')}"


def element_values(item: dict) -> list:
    """[(name, decimal text, bits text)] of a worst element's input, expected and actual; bits are
    '' in results written before they were recorded."""
    bits = item.get("bits") or {}
    values = []
    for name in ("input", "expected", "actual"):
        value, pattern = item.get(name), bits.get(name, "")
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        if isinstance(pattern, list):
            pattern = ", ".join(pattern)
        if name == "input" and "allowed" in item:  # an index output: its slice and the indices allowed
            value = index_input_text(item)
        elif name == "input" and "source" in item:  # a copied element (data movement): where it comes from
            value = (f"{item.get('source_input', 'Input')}{item['source']} = {value}" if item["source"] is not None
                     else f"the page's constant {value}")
        values.append((name, str(value), pattern))
    return values
