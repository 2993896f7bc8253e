"""What differs on Windows, checked here on Linux where it can be: the wheel a Windows user installs,
output to a console whose code page cannot hold a path, Ctrl-C outside a run, and how
`conformance lane windows` hands arguments and console output between Linux and Wine.
tests/test_windows_harness.py runs the installed Windows harness itself under Wine."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.caseset.caseload import load_paths
from conformance.cli import windows_harness

ROOT = Path(__file__).resolve().parent.parent
ONE_CASE = "ELEMENT_WISE_CLIP/float32/rank4[2x3x4x5]/Min=-1,Max=1/uniform[-8,8]"


def conformance(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "conformance", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory):
    """The project's wheel (as pip builds it for every platform) installed into a folder of its own."""
    where = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                    "-w", str(where / "dist")], check=True, capture_output=True, timeout=300)
    (wheel,) = (where / "dist").glob("dml_conformance-*.whl")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(where / "site"),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    return where / "site"


def test_the_wheel_ships_the_default_cases(installed_wheel, tmp_path):
    """A pip-installed harness (every Windows user's) has no checkout: `conformance run` without
    PATHS must still find the shipped cases, inside the package."""
    script = ("import json, conformance, conformance.caseset.caseload as c; "
              "print(json.dumps([conformance.__file__, str(c.SHIPPED_CASES), len(c.load_paths())]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(installed_wheel)), timeout=120)
    assert done.returncode == 0, done.stderr
    module, shipped, count = json.loads(done.stdout)
    assert Path(module).is_relative_to(installed_wheel), module
    assert Path(shipped) == installed_wheel / "conformance" / "cases"
    assert count == len(load_paths()) > 700


def test_console_that_cannot_encode_a_path_does_not_stop_the_run(tmp_path):
    """Windows encodes redirected output in its ANSI code page (cp1252 here): a results path it
    cannot hold used to kill the run at its summary, before the reports were written."""
    folder = tmp_path / "结果"
    done = conformance("run", "--backend", "cpu", "-k", ONE_CASE, "--results", str(folder / "r.jsonl"),
                       "--markdown", str(folder / "r.md"), "--quiet",
                       env=dict(os.environ, PYTHONIOENCODING="cp1252"))
    assert done.returncode == 0, done.stderr
    assert "\\u7ed3\\u679c" in done.stdout  # the path, escaped
    assert (folder / "r.md").read_text(encoding="utf-8").startswith("# DirectML conformance")


def test_ctrl_c_outside_the_run_exits_130(tmp_path):
    """Ctrl-C while the backend starts (here: while its module is imported) ends with the documented
    130 and one line, not a traceback (and not Windows' STATUS_CONTROL_C_EXIT)."""
    (tmp_path / "interrupting.py").write_text("raise KeyboardInterrupt\n")
    done = conformance("run", "--backend", "python:interrupting:f", "-k", ONE_CASE, "--results",
                       str(tmp_path / "r.jsonl"), env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in done.stderr


# ---- conformance lane windows: arguments and console --------------------------------------------
def test_absolute_unix_paths_become_drive_z_paths(tmp_path):
    target = tmp_path / "out" / "r.jsonl"
    assert windows_harness.windows_args([str(target)]) == ["Z:" + str(target).replace("/", "\\")]
    assert windows_harness.windows_args([f"--results={target}"]) == ["--results=Z:" + str(target).replace("/", "\\")]
    # Relative paths work as they are (Wine starts the program in the same folder, on Z:), and what
    # is not a path on this machine stays as it is.
    kept = ["results/r.jsonl", "-k", "ELEMENT_WISE_CLIP/float32 and rank4", "/?", "/nonexistent-folder/x", "C:\\x"]
    assert windows_harness.windows_args(kept) == kept


def test_the_program_is_chosen_from_the_first_word(tmp_path):
    (tmp_path / "Scripts").mkdir()
    (tmp_path / "Scripts" / "pytest.exe").write_bytes(b"")
    program = windows_harness.program
    assert program(tmp_path, ["python", "-m", "pytest"]) == [str(tmp_path / "python.exe"), "-m", "pytest"]
    assert program(tmp_path, ["pytest", "-x"]) == [str(tmp_path / "Scripts" / "pytest.exe"), "-x"]
    assert program(tmp_path, ["run", "--backend", "dml"]) == [str(tmp_path / "Scripts" / "conformance.exe"),
                                                              "run", "--backend", "dml"]


def test_wine_console_output_becomes_plain_lines():
    text = windows_harness.console_text
    assert text("\x1b[?25lresults: Z:\\tmp\\r.jsonl\x1b[?25h\r\r") == "results: Z:\\tmp\\r.jsonl"
    bar = "  0%|          | 0/13 [00:00<?, ?case/s]\r 54%|#####     | 7/13\r100%|##########| 13/13 [00:02<00:00]"
    assert text(bar) == "100%|##########| 13/13 [00:02<00:00]"
    assert text("\x1b[31mERROR: x\x1b[m\x1b[K") == "ERROR: x"
    assert text("statuses\x1b[1C['pass']\x1b[3Cleft") == "statuses ['pass']   left"


def test_rerun_command_of_a_windows_run_of_the_shipped_cases():
    """A pip-installed harness records its shipped case files inside site-packages: the rerun
    command names no path (conformance run finds them), quotes as cmd and PowerShell read it, and
    reads the same whichever system renders the report."""
    from reports import details
    case_id = "ELEMENT_WISE_CONSTANT_POW/float16/rank1/Exponent=0/specials"
    record = {"id": case_id, "backend": "dml", "source": "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\"
              "Python313\\Lib\\site-packages\\conformance\\cases\\element_wise_constant_pow.yaml:40"}
    from conformance.caseset.caseload import load_paths, source_file
    from conformance.caseset.selection import select
    shipped = [c.id for c in load_paths()]
    # What the run's header records (runner.case_files): a file without a path, every shipped id.
    files = {source_file(record["source"]): {"path": None, "ids": shipped}}
    header = {"backend": "dml", "seed": 0, "os": "Windows-11-10.0.22631-SP0", "argv": ["conformance", "run"],
              "case_files": files}
    command = details.rerun_command(record, header, details.known_ids([record], header))
    assert command.startswith('conformance run --backend dml --seed 0 -k "ELEMENT_WISE_CONSTANT_POW/float16/rank1/'
                              'Exponent=0/specials')
    assert "site-packages" not in command and "'" not in command
    # -k tells the case apart from every shipped case, as the rerun runs all of them.
    keyword = command.split(' -k "', 1)[1].rstrip('"')
    assert [c.id for c in select(load_paths(), keyword)] == [case_id]
    # Results from before the header's case_files: the path from the source.
    installed = {"source": "/home/me/.venv/lib/python3.12/site-packages/conformance/cases/x.yaml:3"}
    assert details.case_path(installed, {}) is None and details.case_path(record, {}) is None
    clip = {"source": str(ROOT / "cases" / "element_wise_clip.yaml") + ":5"}
    assert details.case_path(clip, {}) == "cases/element_wise_clip.yaml"


@pytest.mark.parametrize("script", ["scripts/setup-windows-harness.sh", "scripts/ci.d/70-windows-harness.sh"])
def test_windows_harness_scripts_parse(script):
    subprocess.run(["bash", "-n", str(ROOT / script)], check=True)


def test_the_lock_pins_every_wheel_with_its_hash():
    lines = [line for line in (ROOT / "scripts" / "windows_harness" / "requirements.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    names = {line.split("==")[0] for line in lines}
    assert all(" --hash=sha256:" in line and len(line.rsplit(":", 1)[1]) == 64 for line in lines)
    # The harness's own dependencies for Windows, its test tools, pip, and what only Windows needs.
    assert {"numpy", "onnxruntime-directml", "onnx", "pyyaml", "tabulate", "jinja2", "jsonschema", "tqdm", "numba",
            "llvmlite", "pytest", "pytest-xdist", "colorama", "pip"} <= names
    assert any(line.startswith("numpy==2.1.3 ") for line in lines)  # newer numpy needs a ucrtbase Wine 8 lacks
