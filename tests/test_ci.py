"""CI cannot pass on what it did not provision: a provisioning hook that fails fails CI (.ci/run
stops on it), and with CI set a lane suite whose lane is missing FAILS rather than skips."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A pytest plugin that takes each lane away, as an unprovisioned machine would.
UNPROVISION = '''
import onnxruntime
from conformance.backends import base, dml_direct, dml_wine, webgpu
from conformance.judge import fast_kernels

GONE = "taken away by tests/test_ci.py"
dml_wine.find_lane = lambda *args, **kwargs: (None, GONE)
dml_direct.available = lambda: (False, GONE)


def _not_installed(*args, **kwargs):
    raise base.BackendUnavailable(GONE)


webgpu.installed = _not_installed
fast_kernels.AVAILABLE = False
_providers = onnxruntime.get_available_providers
onnxruntime.get_available_providers = lambda: [p for p in _providers() if p != "AzureExecutionProvider"]
'''


@pytest.mark.parametrize("test", [
    "tests/test_dml_wine.py::test_cli_runs_the_smoke_selection_and_prints_sessions",
    "tests/test_dml_direct.py::test_device_reports_its_feature_level_and_data_types",
    "tests/test_webgpu.py::test_header_names_the_device_and_says_it_is_no_gpu",
    "tests/test_speed_equivalence.py::test_every_float16_value_through_the_table",
    # its compiled mode only: the other two run the whole default suite on the CPU, twice, and need no lane
    "tests/test_speed_runs.py::test_default_cases_on_cpu_same_records_with_and_without_speed_ups[compiled]",
    "tests/test_worker.py::test_placement_on_another_provider_is_cpu_fallback",
])
@pytest.mark.parametrize("ci", ["", "true"])
def test_a_suite_whose_lane_is_missing_fails_under_ci_and_skips_elsewhere(test, ci, tmp_path):
    (tmp_path / "unprovision.py").write_text(UNPROVISION)
    env = dict(os.environ, CI=ci, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "pytest", test, "-p", "unprovision", "-p",
                           "no:cacheprovider", "-q", "-rsfE"], capture_output=True, text=True, env=env, cwd=ROOT)
    summary = done.stdout.strip().splitlines()[-1]
    if ci:
        assert done.returncode == 1 and "skipped" not in summary and ("failed" in summary or "error" in summary), \
            done.stdout[-3000:]
        assert "CI: " in done.stdout, done.stdout[-3000:]  # the reason, from needs.missing
    else:
        assert done.returncode == 0 and "skipped" in summary and "failed" not in summary, done.stdout[-3000:]


def stub(folder: Path, name: str, script: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("hook, setup_script, log", [
    ("50-dml-wine.sh", "setup-dml-wine.sh", "ci-setup.log"),
    ("70-windows-harness.sh", "setup-windows-harness.sh", "windows-harness/ci-setup.log")])
def test_a_provisioning_hook_fails_ci_when_provisioning_fails(tmp_path, hook, setup_script, log):
    hooks = tmp_path / "scripts" / "ci.d"
    hooks.mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "ci.d" / hook, hooks)
    setup = tmp_path / "scripts" / setup_script
    env = dict(os.environ, DML_WINE_HOME=str(tmp_path / "lane"))
    setup.write_text("echo 'setup: no Wine 8 for this release'; exit 7\n")
    done = subprocess.run(["bash", str(hooks / hook)], capture_output=True, text=True, env=env)
    assert done.returncode == 7 and "PROVISIONING FAILED (exit 7" in done.stderr, done.stdout + done.stderr
    assert "no Wine 8 for this release" in (tmp_path / "lane" / log).read_text()
    setup.write_text("echo 'setup: ready'\n")
    done = subprocess.run(["bash", str(hooks / hook)], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "is ready" in done.stdout, done.stdout + done.stderr


def test_the_webgpu_hook_fails_ci_when_its_install_fails(tmp_path):
    python = stub(tmp_path / "bin", "python", 'case "$*" in "-m pip --version") exit 0;; -c*) echo cp311;; '
                  '*) echo "pip: no matching distribution" >&2; exit 1;; esac')
    stub(tmp_path / "bin", "apt-get", "exit 100")  # should it want Vulkan from apt: that fails too
    env = dict(os.environ, PYTHON=str(python), DMLC_WEBGPU_HOME=str(tmp_path / "webgpu"),
               PATH=f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "ci.d" / "60-webgpu.sh")], capture_output=True, text=True,
                          env=env)
    assert done.returncode != 0, done.stdout + done.stderr
    assert not (tmp_path / "webgpu").exists()


def test_the_chromium_hook_fails_ci_when_it_cannot_install(tmp_path):
    stub(tmp_path / "bin", "id", "echo 0")  # root, with no chromium on PATH
    stub(tmp_path / "bin", "apt-get", "echo 'E: Unable to locate package chromium' >&2; exit 100")
    done = subprocess.run(["/bin/bash", str(ROOT / "scripts" / "ci.d" / "20-chromium.sh")], capture_output=True,
                          text=True, env=dict(os.environ, PATH=str(tmp_path / "bin")))
    assert done.returncode == 100 and "Unable to locate package chromium" in done.stderr, done.stdout + done.stderr


def test_the_time_per_test_file_is_tabled_from_junit_xml(tmp_path, capsys):
    """scripts/test_times.py, which .ci/run runs after the tests: seconds per file (summed over its
    tests, whichever xdist worker ran them), the slowest test, and the change against a baseline."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("test_times", ROOT / "scripts" / "test_times.py")
    times = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(times)

    def junit(path, cases):
        body = "".join(f'<testcase classname="{c}" name="{n}" time="{t}"/>' for c, n, t in cases)
        path.write_text(f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{body}</testsuite></testsuites>')
        return str(path)
    new = junit(tmp_path / "new.xml", [("tests.test_a", "test_one", 1.5), ("tests.test_a", "test_two[x]", 4.0),
                                       ("tests.test_b.TestGroup", "test_three", 0.5)])
    old = junit(tmp_path / "old.xml", [("tests.test_a", "test_one", 10.0), ("tests.test_b.TestGroup", "test_three", 2.0)])
    assert times.per_file(new) == {"tests/test_a.py": [2, 5.5, (4.0, "test_two[x]")],
                                   "tests/test_b.py": [1, 0.5, (0.5, "test_three")]}
    assert times.main([new, "--baseline", old]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:6] == ["tests/test_a.py", "2", "5.5", "91.7%", "10.0", "-4.5"], lines
    assert lines[1].endswith("4.0 s test_two[x]") and lines[-1].split()[:6] == ["all", "3", "6.0", "100%", "12.0", "-6.0"]
    (tmp_path / "broken.xml").write_text("<testsuites>")
    assert times.main([str(tmp_path / "broken.xml")]) == 2
