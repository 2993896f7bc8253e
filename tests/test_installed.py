"""The harness as a newcomer installs it: the wheel `pip wheel .` builds, pip-installed into a plain
new virtual environment, run as `conformance ...` from a folder outside any checkout.

The dependencies' wheels come from a wheelhouse in the user's cache (WHEELHOUSE), filled from the
package registry by `pip download` the first time (or when the dependencies change) and reused
offline after that: the module takes 40 s to a minute on 2 quiet cores, most of it in
`conformance backends` (it starts every backend's worker) and the three runs. The Wine backends need
the lane (scripts/setup-dml-wine.sh): with CI set a missing lane fails, elsewhere those tests skip.
"""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from needs import missing

from conformance.cli import exitcodes

ROOT = Path(__file__).resolve().parent.parent
WHEELHOUSE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dml-conformance" / "wheelhouse"
# Four cases every backend here passes (a broadcast Add: dml-wine and dml-direct run it on lavapipe).
SELECTION = "ELEMENT_WISE_ADD/float32/rank4 and broadcast and not in-place"
SELECTED = 4


def _pip(*args, check=True):
    result = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *map(str, args)],
                            capture_output=True, text=True)
    if check and result.returncode != 0:
        pytest.fail(f"pip {' '.join(map(str, args))} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result


def _copy_of_the_checkout(dest: Path) -> Path:
    """The files git lists (tracked, and new ones not ignored), and nothing else: setuptools builds in
    the source folder and packs whatever its build/ holds, stale files of an earlier build included
    (and two builds at once in one checkout would share it). About 0.1 s."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.split(b"\0")
    for name in map(os.fsdecode, filter(None, listed)):
        if (ROOT / name).is_file():  # not a file deleted but still tracked
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, dest / name)
    return dest


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(the wheel, what building it printed)."""
    dist = tmp_path_factory.mktemp("dist")
    result = _pip("wheel", "--no-deps", "-w", dist, _copy_of_the_checkout(tmp_path_factory.mktemp("source")))
    return next(dist.glob("dml_conformance-*.whl")), result.stdout + result.stderr


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory):
    """run(*args) -> CompletedProcess of the installed `conformance`, in a folder outside any checkout;
    run.folder is that folder, run.site the environment's site-packages."""
    wheel, _ = built
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--clear", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    install = ("--python", python, "install", "--quiet", "--no-compile", "--no-index", "--find-links", WHEELHOUSE,
               wheel)
    if _pip(*install, check=False).returncode != 0:
        # First time here, or the dependencies changed: their wheels from the registry, once.
        _pip("download", "--quiet", "-d", WHEELHOUSE, wheel)
        for own in WHEELHOUSE.glob("dml_conformance-*.whl"):
            own.unlink()
        _pip(*install)
    folder = tmp_path_factory.mktemp("newcomer")
    assert subprocess.run(["git", "-C", folder, "rev-parse"], capture_output=True).returncode != 0, \
        f"{folder} is inside a git checkout: the installed harness must run outside one"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])

    def run(*args, timeout=300):
        return subprocess.run([venv / "bin" / "conformance", *map(str, args)], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=timeout)
    run.folder = folder
    run.site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    yield run
    shutil.rmtree(venv, ignore_errors=True)


def _ok(result):
    assert result.returncode == exitcodes.CONFORMANT, f"exit {result.returncode}:\n{result.stdout}{result.stderr}"
    return result.stdout


def _lane(backend) -> str | None:
    """Why backend's Wine lane is missing, or None where it is there."""
    from conformance.backends import dml_direct, dml_wine
    if backend == "dml-direct":
        ready, why = dml_direct.available()
        return None if ready else why
    lane, why = dml_wine.find_lane()
    return None if lane is not None else why


def test_the_build_is_quiet_and_the_wheel_holds_every_data_file(built):
    wheel, output = built
    warnings = [line.strip() for line in output.splitlines() if "Warning" in line or "would be ignored" in line]
    assert not warnings, warnings
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {"cases": "conformance/cases", "sweeps": "conformance/sweeps", "reports/templates": "reports/templates"}
    for folder, inside in shipped.items():
        files = [p.relative_to(ROOT / folder).as_posix() for p in (ROOT / folder).rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts]
        assert files, folder
        absent = sorted(f for f in files if f"{inside}/{f}" not in names)
        assert not absent, f"the wheel lacks {folder}/: {absent[:5]}"
    moved = {"conformance/cases/": "cases/", "conformance/sweeps/": "sweeps/"}
    for name in names:
        if ".dist-info/" not in name:
            source = next((to + name[len(at):] for at, to in moved.items() if name.startswith(at)), name)
            assert (ROOT / source).is_file(), f"the wheel's {name} is no file of the checkout"


def test_it_runs_from_the_environment_not_a_checkout(installed):
    code = "import conformance, oracle, reports; print(conformance.__file__, oracle.__file__, reports.__file__)"
    python = installed.site.parents[2] / "bin" / "python"
    files = subprocess.run([python, "-c", code], cwd=installed.folder, capture_output=True, text=True,
                           check=True).stdout.split()
    assert files and all(Path(f).is_relative_to(installed.site) for f in files), files


def test_validate_list_specs_and_backends(installed):
    assert _ok(installed("validate")).startswith("ok: ")
    listed = _ok(installed("list", "-k", SELECTION)).split()
    assert len(listed) == SELECTED and all(i.startswith("ELEMENT_WISE_ADD/float32/rank4") for i in listed), listed
    assert "ELEMENT_WISE_ADD" in _ok(installed("specs", "ELEMENT_WISE_ADD"))
    # README's sweep commands name sweeps/...: from a folder without one, the shipped sweeps
    assert _ok(installed("list", "sweeps/probes")).splitlines()
    lines = _ok(installed("backends")).splitlines()
    assert "  cpu: available" in lines
    # A lane that is there must be usable from the installed harness (dml-direct's worker started in
    # the lane's Windows Python once imported the environment's Linux numpy).
    for name in ("dml-direct", "dml-wine"):
        if _lane(name) is None:
            assert f"  {name}: available" in lines, lines



def test_compile_finds_the_shipped_sweeps(installed):
    """`conformance compile` with no path compiles the sweeps the wheel ships (one operator here)."""
    output = _ok(installed("compile", "-k", "ELEMENT_WISE_CLIP/float32 and Min=-5"))
    assert "compiled the loops of 1 operator" in output, output
    workloads = subprocess.run([installed.site.parents[2] / "bin" / "python", "-c",
                                "from conformance.cli import bench; print(bench.WORKLOADS, len(bench.workloads()))"],
                               cwd=installed.folder, capture_output=True, text=True)
    folder, count = _ok(workloads).split()
    assert Path(folder).is_relative_to(installed.site) and int(count) > 0, workloads.stdout


def test_a_shipped_sweep_is_named_so_that_its_rerun_finds_it(installed):
    """A report's rerun command names each case file as the run's header does (case_files): from the
    folder the user ran in, not relative to site-packages."""
    sweep = installed.site / "conformance" / "sweeps" / "probes" / "element_wise_clip.yaml"
    results = installed.folder / "sweep.jsonl"
    ran = installed("run", sweep, "-k", "float32 and subnormals", "--backend", "cpu", "--quiet", "--results", results)
    assert ran.returncode in (exitcodes.CONFORMANT, exitcodes.NOT_CONFORMANT), ran.stderr
    header = json.loads(results.read_text().splitlines()[0])
    assert [entry["path"] for entry in header["case_files"].values()] == [str(sweep)], header["case_files"]


@pytest.mark.parametrize("backend", ["cpu", "dml-wine", "dml-direct"])
def test_run_and_report(installed, backend):
    why = None if backend == "cpu" else _lane(backend)
    if why:
        missing(f"the {backend} lane is missing: {why} (scripts/setup-dml-wine.sh provisions it)")
    results = installed.folder / f"{backend}.jsonl"
    _ok(installed("run", "--backend", backend, "-k", SELECTION, "--quiet", "--results", results))
    records = [json.loads(line) for line in results.read_text().splitlines()]
    header, cases = records[0], [r for r in records if r["type"] == "case"]
    assert header["backend"] == backend
    assert len(cases) == SELECTED and {r["status"] for r in cases} == {"pass"}, [(r["id"], r["status"]) for r in cases]
    assert all(Path(r["source"].rsplit(":", 1)[0]).is_relative_to(installed.site / "conformance" / "cases")
               for r in cases)
    if backend == "dml-direct":
        assert header["worker_platform"].startswith("Windows"), header.get("worker_platform")
    html, markdown, junit = (installed.folder / f"{backend}.{suffix}" for suffix in ("html", "md", "xml"))
    _ok(installed("report", results, "--html", html, "--markdown", markdown, "--junit", junit))
    for path in (html, junit):
        assert all(r["id"] in path.read_text() for r in cases), path
    assert "| ELEMENT_WISE_ADD |" in markdown.read_text()  # the markdown summary names failing cases only


def test_diff_compare_and_the_lane_commands(installed):
    """README's other commands, installed: diff and compare of two runs, and `lane status`."""
    runs = []
    for name in ("a", "b"):
        runs.append(installed.folder / f"{name}.jsonl")
        _ok(installed("run", "--backend", "cpu", "--op", "ELEMENT_WISE_ADD", "-k", "rank1", "--quiet",
                      "--results", runs[-1]))
    assert "0 regression(s)" in _ok(installed("diff", *runs, "--markdown", installed.folder / "d.md"))
    assert "case(s) differ" in _ok(installed("compare", *runs, "--html", installed.folder / "c.html"))
    assert (installed.folder / "d.md").read_text().startswith("# Conformance diff")
    status = installed("lane", "status")
    assert status.returncode == (exitcodes.CONFORMANT if _lane("dml-wine") is None else
                                 exitcodes.BACKEND_UNAVAILABLE), status.stdout + status.stderr
