"""The `webgpu` backend on Mesa's lavapipe: the smoke run CI makes (scripts/ci.d/60-webgpu.sh
installs onnxruntime-webgpu; lavapipe comes from the dml-wine hook).

With CI set, a smoke run that cannot happen FAILS; elsewhere the tests skip and say why.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from needs import missing

from conformance.backends import webgpu

ROOT = Path(__file__).resolve().parents[1]
LAVAPIPE = next((p for p in ("/usr/share/vulkan/icd.d/lvp_icd.json", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
                 if os.path.exists(p)), None)
SMOKE = ("(ELEMENT_WISE_CLIP and float16 and rank4 and uniform) or (ELEMENT_WISE_CLIP and int8 and rank4) or "
         "(ACTIVATION_CELU and float32 and rank4 and uniform) or "
         "(ACTIVATION_SCALED_ELU and float32 and rank4 and uniform) or "
         "(ELEMENT_WISE_CONSTANT_POW and float32 and rank1 and not exhaustive)")


def why_no_smoke() -> str | None:
    """Why the lavapipe smoke run cannot happen here, or None."""
    try:
        webgpu.installed()
    except Exception as error:  # BackendUnavailable
        return str(error)
    if LAVAPIPE is None:
        return "no lavapipe ICD (mesa-vulkan-drivers) in /usr/share/vulkan/icd.d"
    devices = webgpu.vulkan_devices(dict(os.environ, VK_DRIVER_FILES=LAVAPIPE, VK_ICD_FILENAMES=LAVAPIPE))
    if isinstance(devices, str) or not devices:
        return f"the Vulkan loader offers no lavapipe device: {devices}"
    return None


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    why = why_no_smoke()
    if why:
        missing(f"the webgpu lavapipe smoke run cannot run: {why}")
    results = tmp_path_factory.mktemp("webgpu") / "smoke.jsonl"
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "webgpu", "-k", SMOKE,
                           "--provider-option", f"vk_icd={LAVAPIPE}", "--results", str(results), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert results.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    header, records, footer = lines[0], [r for r in lines if r["type"] == "case"], lines[-1]
    assert footer["type"] == "footer", done.stderr[-2000:]
    return header, records, done


def test_header_names_the_device_and_says_it_is_no_gpu(smoke):
    header, _, _ = smoke
    assert header["backend"] == "webgpu" and header["provider"] == "WebGpuExecutionProvider"
    assert header["onnxruntime_package"].startswith("onnxruntime-webgpu ")
    assert header["session_config"]["session.disable_cpu_ep_fallback"] == "1"
    devices = header["webgpu"]["vulkan_devices"]
    assert len(devices) == 1 and "llvmpipe" in devices[0]["name"], devices
    assert "llvmpipe" in header["device"] and "not a GPU" in header["device"]
    sys.path.insert(0, str(ROOT / "scripts" / "gpu"))
    import annotate
    proof = {"backend_device": annotate.backend_device(header), "nvidia_smi": {}, "gpu_processes": []}
    assert annotate.verdict(header, proof)["gpu"] is False


def test_runs_on_the_provider_with_placement_proven(smoke):
    _, records, _ = smoke
    clip = [r for r in records if r["op"] == "ELEMENT_WISE_CLIP" and r["dtype"] == "float16"]
    # ScaleBias and in-place cases cannot be expressed through ONNX Runtime: not-reachable, not run.
    ran = [r for r in clip if r["status"] != "not-reachable"]
    assert ran and all(r["status"] in ("pass", "fail") for r in ran), [(r["id"], r["status"], r["message"]) for r in ran]
    proven = [r for r in ran if r["placement"]]
    assert proven and all(set(r["placement"].values()) == {"WebGpuExecutionProvider"} for r in proven)
    # Clip is exact: every case whose bounds are in order passes at 0 ULP.
    ordered = [r for r in ran if r["params"]["Min"] <= r["params"]["Max"]]
    assert ordered and all(r["status"] == "pass" and r["max_ulp"] == 0 for r in ordered)
    assert not [r for r in records if r["status"] in ("error", "crash", "timeout", "cpu-fallback")]


@pytest.mark.parametrize("op, dtype", [("ACTIVATION_CELU", "float32"), ("ACTIVATION_SCALED_ELU", "float32"),
                                       ("ELEMENT_WISE_CLIP", "int8"), ("ELEMENT_WISE_CLIP", "uint8")])
def test_what_the_provider_has_no_kernel_for_is_refused_not_run_on_the_cpu(smoke, op, dtype):
    """WebGPU has no Celu, Selu or integer Clip kernel: with CPU fallback disabled, ONNX Runtime
    refuses the session, and the default level (5_0) requires these cases."""
    _, records, _ = smoke
    mine = [r for r in records if r["op"] == op and r["dtype"] == dtype and r["status"] != "not-reachable"]
    assert mine
    for record in mine:
        assert record["required"] and record["status"] == "unsupported-required", (record["id"], record["status"])
        assert "assigned to the default CPU EP" in record["message"], record["message"]


def test_describe_devices_names_cpu_devices():
    cpu = {"name": "llvmpipe (LLVM 15.0.6, 256 bits)", "type": "CPU", "api_version": "1.4.305", "driver_name": "llvmpipe",
           "driver_info": "Mesa 25.0.7", "driver_version": "0.0.1"}
    gpu = {"name": "NVIDIA H200", "type": "discrete GPU", "api_version": "1.4.312", "driver_name": "NVIDIA",
           "driver_info": "580.159.04", "driver_version": "580.159.4.0"}
    assert webgpu.describe_devices([cpu]).endswith("a CPU device, not a GPU")
    assert webgpu.describe_devices([gpu]) == "NVIDIA H200 (Vulkan 1.4.312, NVIDIA 580.159.04)"
    assert webgpu.describe_devices([gpu, cpu]).startswith("one of: NVIDIA H200")
    assert webgpu.describe_devices("error: no loader").startswith("unknown Vulkan device")


def test_not_installed_says_how(monkeypatch, tmp_path):
    monkeypatch.setenv("DMLC_WEBGPU_HOME", str(tmp_path / "nothing"))
    ok, why = webgpu.webgpu.available()
    assert not ok and "60-webgpu.sh" in why
