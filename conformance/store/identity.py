"""What the store keeps of a run besides its lines: its identity, and the columns a query selects on
(the device, its driver, the DirectML.dll, ONNX Runtime, the harness), read from the header.

A run's identity is the sha256 of its header and case records as results lines (results.encode of
what read_results gives), not of the file's bytes: a gzip copy and a plain copy of one run are the
same run, and adding the second is refused. The footer is left out: it holds the run's timings, not
what ran or what came out.
"""
import hashlib
from datetime import datetime, timezone

from conformance import statuses
from conformance.run.results import encode, partial
from reports.releases import versions

SHORT = 12  # hex digits of a run id shown and accepted as its name


def lines(header: dict, records) -> tuple:
    """(run id, [each record's JSON]): the records are encoded once, for the digest and the store."""
    digest = hashlib.sha256(encode(header).encode("utf-8") + b"\n")
    encoded = []
    for record in records:
        text = encode(record)
        digest.update(text.encode("utf-8") + b"\n")
        encoded.append(text)
    return digest.hexdigest(), encoded


def run_columns(header: dict, records, footer) -> dict:
    """The runs table's columns read from a run (identity and file aside)."""
    directml, release = versions(header)
    loaded = header.get("directml_loaded") if isinstance(header.get("directml_loaded"), dict) else {}
    pinned = header.get("dml_release") if isinstance(header.get("dml_release"), dict) else {}
    why = partial(header, footer)
    if header.get("truncated_line"):
        why = why or f"its line {header['truncated_line']} is cut short"
    return {
        "start": utc(header.get("start")), "backend": _text(header.get("backend")),
        "device": _text(header.get("device")), "adapter": _adapter(header), "driver": driver(header),
        "directml": _text(directml), "directml_sha256": _text(loaded.get("sha256") or pinned.get("pinned_dll_sha256")),
        "dml_release": _text(pinned.get("requested") or (release if directml else None)),
        "onnxruntime": _text(header.get("onnxruntime_package") or header.get("onnxruntime")),
        "harness": harness(header), "feature_level": _text(header.get("feature_level")),
        "tolerance_model": _text(header.get("tolerance_model")), "cases": len(records),
        "failing": sum(1 for record in records if record["status"] in statuses.FAILING), "partial": why,
    }


def record_columns(record: dict) -> tuple:
    """(case id, op, dtype, feature level, status, max_ulp, mismatches) of a case record."""
    ulp, mismatches = record.get("max_ulp"), record.get("mismatches")
    return (record["id"], record["op"], _text(record.get("dtype")), _text(record.get("feature_level")),
            record["status"], None if ulp is None else float(ulp), None if mismatches is None else int(mismatches))


def driver(header: dict) -> str | None:
    """The device's driver version, from whichever part of the header names it: the header's own
    driver field, the GPU proof (nvidia-smi, Vulkan), Mesa's package (lavapipe), the lane's or
    worker's Vulkan driver, WebGPU's first Vulkan device."""
    proof = _dict(header.get("gpu_proof"))
    lane, worker = _dict(header.get("lane")), _dict(header.get("worker"))
    mesa = lane.get("mesa_vulkan_drivers") or worker.get("mesa_vulkan_drivers")
    webgpu = _dict(header.get("webgpu")).get("vulkan_devices") or [{}]
    for value in (header.get("driver"), header.get("driver_version"), _dict(header.get("adapter")).get("driver_version"),
                  _dict(proof.get("nvidia_smi")).get("driver_version"), _dict(proof.get("vulkan")).get("driverInfo"),
                  mesa and f"Mesa {mesa}", lane.get("vulkan_driver"), worker.get("vulkan_driver"),
                  _dict(webgpu[0]).get("driver_info") if isinstance(webgpu, list) else None):
        if value:
            return str(value)
    return None


def harness(header: dict) -> str | None:
    """The harness's version where the header records one, else the commit the GPU proof names."""
    version = header.get("harness_version") or header.get("version")
    if version:
        return str(version)
    head = _dict(_dict(header.get("gpu_proof")).get("harness")).get("head")
    return f"commit {head[:SHORT]}" if head else None


def utc(start) -> str | None:
    """An ISO 8601 time as UTC with seconds, so that times sort as text; what does not parse, as it is."""
    if not start:
        return None
    try:
        moment = datetime.fromisoformat(str(start))
    except ValueError:
        return str(start)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


def _adapter(header: dict) -> str | None:
    adapter = _dict(header.get("adapter"))
    if not adapter:
        return None
    ids = "/".join(str(adapter[key]) for key in ("vendor_id", "device_id") if adapter.get(key))
    return " ".join(part for part in (str(adapter.get("description") or ""), f"({ids})" if ids else "") if part)


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _text(value) -> str | None:
    return None if value is None else str(value)
