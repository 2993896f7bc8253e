"""Runs of several DirectML releases side by side (`conformance compare --releases`).

The runs are ordered by the DirectML.dll each really loaded (the header's directml_loaded file
version; then the onnxruntime-directml release), within each backend and device, and labelled by
release. Besides the side-by-side matrix (reports.sidebyside), each pair of consecutive releases
of one backend and device gets its diff (reports.diff): what regressed, improved or moved in ULP.
"""
from dataclasses import dataclass

from conformance.backends.dml_releases import short
from conformance.errors import BadInput
from reports import diff as diffs
from reports import sidebyside


def versions(header: dict) -> tuple:
    """(DirectML.dll file version, onnxruntime-directml version) of a run, from its header."""
    loaded = header.get("directml_loaded")
    directml = (loaded.get("file_version") if isinstance(loaded, dict) else None) or header.get("directml")
    release = header.get("dml_release") or {}
    return directml, release.get("onnxruntime_directml") or header.get("onnxruntime")


def version_key(version) -> tuple:
    return tuple(int(part) if part.isdigit() else -1 for part in str(version or "").split("."))


@dataclass
class Step:
    """Two consecutive releases of one backend on one device, and their diff."""
    before: sidebyside.Run
    after: sidebyside.Run
    diff: diffs.RunDiff


def arrange(runs) -> list:
    """Sort runs (in place) by backend, device and release, label them by release; -> [Step]."""
    for run in runs:
        if not versions(run.header)[0]:
            raise BadInput(f"{run.path}: its header names no DirectML.dll version; --releases compares "
                             f"DirectML runs (dml-wine, dml-direct, dml)")
    several_devices = len({run.header.get("device") for run in runs}) > 1

    def group(run):
        return run.header.get("backend") or "?", run.header.get("device") if several_devices else None

    def order(run):
        directml, onnxruntime = versions(run.header)
        return group(run), version_key(directml), version_key(onnxruntime), run.path

    runs.sort(key=order)
    for run in runs:
        directml, onnxruntime = versions(run.header)
        backend, device = group(run)
        run.label = (f"{backend} DirectML {short(directml)}" + (f" (ORT {onnxruntime})" if onnxruntime else "")
                     + (f" on {device}" if device else ""))
    steps = []
    for before, after in zip(runs, runs[1:]):
        if group(before) == group(after):
            steps.append(Step(before, after, diffs.diff_records(
                before.header, before.records, before.footer, after.header, after.records, after.footer,
                name_a=before.label, name_b=after.label)))
    return steps


def compare_files(paths) -> sidebyside.Comparison:
    runs = sidebyside.load(paths)
    steps = arrange(runs)
    result = sidebyside.compare_runs(runs)
    result.steps = steps
    return result
