"""Add the proof of the device to a results file's header: what nvidia-smi and Vulkan said about
the GPU, which processes nvidia-smi saw on it while the run went, and the verdict `gpu_proof.gpu`:
true only when the backend's own device string names the same GPU (DXGI adapter through the
worker for DirectML, the Vulkan device for WebGPU), with NVIDIA's vendor id where the backend
reports one, and a process of the run was seen on the GPU. A run on llvmpipe (or any CPU device)
says so and is never called a GPU run.

    python3 scripts/gpu/annotate.py RESULTS.jsonl --smi LOG --nvidia-smi CSV --vulkaninfo TXT ...
Also usable here on results brought back: `--check` prints the verdict of a results file.
"""
import argparse
import csv
import gzip
import io
import json
import re
import sys
from pathlib import Path

SOFTWARE = ("llvmpipe", "lavapipe", "swiftshader", "software", "microsoft basic render")
NVIDIA = "0x10de"


def read_lines(path: Path) -> list:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


def nvidia_smi(path) -> dict:
    try:
        rows = list(csv.reader(io.StringIO(Path(path).read_text(encoding="utf-8"))))
    except OSError:
        return {}
    if len(rows) < 2:
        return {"error": " ".join(" ".join(r) for r in rows)}
    keys = [k.strip().split(" ")[0] for k in rows[0]]
    return {k: v.strip() for k, v in zip(keys, rows[1])}


def vulkaninfo(path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found = {}
    for key in ("deviceName", "driverInfo", "driverName", "apiVersion", "driverVersion", "vendorID", "deviceID",
                "deviceType", "driverID"):
        match = re.search(rf"^\s*{key}\s*=\s*(.+)$", text, re.M)
        if match:
            found[key] = match.group(1).strip()
    found["devices"] = len(re.findall(r"^\s*deviceName\s*=", text, re.M))
    return found


def processes(path) -> list:
    """Process names (and pids) nvidia-smi listed on the GPU while the run went."""
    seen = {}
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        line = line.strip()
        table = re.match(r"^\|\s+\d+\s+\S+\s+\S+\s+(\d+)\s+(\S+)\s+(.+?)\s+(\d+MiB|N/A)\s*\|$", line)
        if table:
            pid, kind, name, memory = table.groups()
            seen.setdefault((name, kind), {"name": name, "type": kind, "pids": set(), "max_memory": memory})
            seen[(name, kind)]["pids"].add(int(pid))
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3 and parts[0].isdigit():
            key = (parts[1], "C")
            seen.setdefault(key, {"name": parts[1], "type": "C", "pids": set(), "max_memory": parts[2]})
            seen[key]["pids"].add(int(parts[0]))
    return [dict(v, pids=sorted(v["pids"])) for v in seen.values()]


def backend_device(header: dict) -> dict:
    """The device as the backend itself reported it."""
    adapters = header.get("adapters")
    adapter = header.get("adapter") or (adapters[0] if isinstance(adapters, list) and adapters else None)
    device = header.get("device")
    if isinstance(adapter, dict):
        return {"description": adapter.get("description") or device, "vendor_id": adapter.get("vendor_id"),
                "device_id": adapter.get("device_id"), "source": "DXGI adapter, through the worker"}
    webgpu = header.get("webgpu") or {}
    vulkan = webgpu.get("vulkan_devices")
    if isinstance(vulkan, list) and vulkan:
        first = vulkan[0]
        return {"description": first.get("name") or device, "vendor_id": first.get("vendor_id"),
                "device_id": first.get("device_id"), "driver": first.get("driver_info"),
                "source": "Vulkan device the WebGPU worker's loader offers (VK_DRIVER_FILES)"}
    return {"description": device, "source": "backend metadata 'device'"}


def verdict(header: dict, proof: dict) -> dict:
    own = proof["backend_device"]
    description = str(own.get("description") or "")
    why = []
    if any(word in description.lower() for word in SOFTWARE):
        return {"gpu": False, "why": f"the backend ran on {description!r}: a CPU (software) device, not a GPU"}
    gpu_name = proof["nvidia_smi"].get("name", "")
    if not gpu_name:
        why.append("nvidia-smi named no GPU")
    if own.get("vendor_id") and str(own["vendor_id"]).lower() != NVIDIA:
        why.append(f"the backend's adapter has vendor id {own['vendor_id']}, not NVIDIA's {NVIDIA}")
    if "nvidia" not in description.lower() and gpu_name and gpu_name.lower() not in description.lower():
        if str(own.get("vendor_id", "")).lower() != NVIDIA:
            why.append(f"the backend's device {description!r} is not {gpu_name!r}")
    if not proof["gpu_processes"]:
        why.append("nvidia-smi saw no process on the GPU while the run went")
    if why:
        return {"gpu": False, "why": "; ".join(why)}
    return {"gpu": True, "why": f"{description!r} ({own.get('source')}) is {gpu_name!r}; "
            + ", ".join(f"{p['name']} ({p['type']})" for p in proof["gpu_processes"]) + " ran on it"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--smi")
    parser.add_argument("--nvidia-smi")
    parser.add_argument("--vulkaninfo")
    parser.add_argument("--icd")
    parser.add_argument("--wall", type=float)
    parser.add_argument("--exit-code", type=int)
    parser.add_argument("--name")
    parser.add_argument("--snapshot", help="SNAPSHOT.json of the harness tree that ran")
    parser.add_argument("--check", action="store_true", help="print the verdict recorded in a results file")
    args = parser.parse_args(argv)
    path = Path(args.results)
    lines = read_lines(path)
    header = json.loads(lines[0])
    if args.check:
        proof = header.get("gpu_proof")
        print(json.dumps(proof.get("verdict") if proof else {"gpu": False, "why": "no gpu_proof in the header"}))
        return 0
    proof = {"nvidia_smi": nvidia_smi(args.nvidia_smi) if args.nvidia_smi else {},
             "vulkan": dict(vulkaninfo(args.vulkaninfo) if args.vulkaninfo else {}, icd=args.icd),
             "gpu_processes": processes(args.smi) if args.smi else [],
             "backend_device": backend_device(header),
             "run": {"name": args.name, "wall_seconds": args.wall, "exit_code": args.exit_code}}
    if args.snapshot and Path(args.snapshot).exists():
        proof["harness"] = json.loads(Path(args.snapshot).read_text(encoding="utf-8"))
    proof["verdict"] = verdict(header, proof)
    header["gpu_proof"] = proof
    lines[0] = json.dumps(header)
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    print(f"[gpu] {path.name}: gpu={proof['verdict']['gpu']}: {proof['verdict']['why']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
