"""The Windows harness: this package installed with pip into a Windows CPython that runs under the
dml-wine lane's Wine (scripts/setup-windows-harness.sh provisions it), and how Linux runs its
programs: `conformance lane windows -- run --backend dml ...`.

- find_harness(): the provisioned Windows harness (its marker harness.json beside the lane's
  lane.json), or why there is none.
- run(): a program of that Windows Python (conformance.exe, python.exe, pytest.exe, pip.exe ...)
  under Wine, with the lane's X display (an Xvfb), Vulkan driver and a private clone of its prefix,
  in a pseudo-terminal; its console comes back on stdout, its exit code is returned; Ctrl-C
  reaches it as the console's Ctrl-C. The working directory is the same folder (Wine's drive Z:
  is the Unix root), and absolute Unix paths among the arguments are given as Z:\\ paths, so results
  land where Linux reads them.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.backends import wine_lane
from conformance.cli import exitcodes

HARNESS_FORMAT = 1
MARKER = "harness.json"
FOLDER = "windows-harness"  # beside the lane's own Windows Python, in the lane's home
CTRL_C_GRACE = 60  # seconds a Windows program has to finish after Ctrl-C before it is killed
PTY_COLUMNS, PTY_ROWS = 200, 50
CURSOR_FORWARD = re.compile(r"\x1b\[(\d*)C")  # Wine's console wraps its output at the pseudo-terminal's width


@dataclass
class WindowsHarness:
    lane: wine_lane.Lane
    home: Path
    marker: dict

    @property
    def python_dir(self) -> Path:
        return self.home / "python"


def harness_home(lane_home: Path) -> Path:
    return Path(lane_home) / FOLDER


def find_harness():
    """-> (WindowsHarness, None) when provisioned, else (None, why not)."""
    lane, reason = wine_lane.find_lane()
    if lane is None:
        return None, reason
    home = harness_home(lane.home)
    marker_path = home / MARKER
    if not marker_path.exists():
        return None, (f"the Windows harness is not provisioned (no {marker_path}; run: "
                      "bash scripts/setup-windows-harness.sh)")
    try:
        marker = json.loads(marker_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return None, f"{marker_path}: unreadable ({error})"
    harness = WindowsHarness(lane, home, marker)
    if marker.get("format") != HARNESS_FORMAT:
        return None, f"{marker_path}: format {marker.get('format')}, this harness needs {HARNESS_FORMAT}"
    missing = [p for p in (harness.python_dir / "python.exe", harness.python_dir / "Scripts" / "conformance.exe")
               if not p.exists()]
    if missing:
        return None, f"{home}: {', '.join(map(str, missing))} missing (run: bash scripts/setup-windows-harness.sh)"
    return harness, None


def stale_files(harness: WindowsHarness, checkout: Path) -> list:
    """Files of the packages whose installed copy differs from the checkout's (the wheel was built
    from other code: scripts/setup-windows-harness.sh installs the checkout again)."""
    site = harness.python_dir / "Lib" / "site-packages"
    checkout = Path(checkout)
    stale = []
    for package in ("conformance", "oracle", "reports"):
        for source in sorted((checkout / package).rglob("*")):
            if source.is_file() and "__pycache__" not in source.parts:
                relative = source.relative_to(checkout)
                installed = site / relative
                if not installed.is_file() or installed.read_bytes() != source.read_bytes():
                    stale.append(str(relative))
    return stale


def program(python_dir: Path, argv: list) -> list:
    """The Windows command line for argv: `python ...` is python.exe, a name that is one of the
    Python's Scripts\\*.exe (pytest, pip, conformance) runs that, anything else is a conformance
    subcommand (`run ...` -> conformance.exe run ...)."""
    python_dir = Path(python_dir)
    if argv and argv[0] in ("python", "python.exe"):
        return [str(python_dir / "python.exe"), *argv[1:]]
    if argv and "/" not in argv[0] and "\\" not in argv[0]:
        script = python_dir / "Scripts" / (argv[0].removesuffix(".exe") + ".exe")
        if script.exists():
            return [str(script), *argv[1:]]
    return [str(python_dir / "Scripts" / "conformance.exe"), *argv]


def windows_args(argv: list) -> list:
    """Absolute Unix paths (alone or as --option=/path) become Z:\\ paths; the rest is left alone."""
    return [_windows_arg(arg) for arg in argv]


def _windows_arg(arg: str) -> str:
    option, sep, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
    if value.startswith("/") and not value.startswith("//") and _rooted_here(value):
        return option + sep + wine_lane.windows_path(value)
    return arg


def _rooted_here(path: str) -> bool:
    """A Unix path whose first folder exists here (so "/k" or "/?" style switches stay as they are)."""
    first = path.split("/")[1] if path.count("/") > 1 else ""
    return bool(first) and os.path.isdir("/" + first)


def run(lane, python_dir, argv, cwd=None, timeout=None, output=None, columns=None) -> int:
    """Run argv (see program()) in the Windows Python python_dir under the lane's Wine; its console
    is copied to output (default sys.stdout), plain text unless output is a terminal. -> exit code
    (124 when timeout seconds passed; the program and every Wine process of the run are ended)."""
    output = output or sys.stdout
    raw = output.isatty()
    command = [wine_lane.wine_binary(), *windows_args(program(python_dir, argv))]
    guard = wine_lane.Guard()  # a SIGKILL of this process leaves no prefix clone, Wine process or folder
    workdir = guard.mkdtemp("windows-harness-")
    xvfb = wine_lane.Xvfb(workdir / "xvfb.log")
    prefix = None
    try:
        prefix = wine_lane.clone_prefix(lane, claim=guard.adopt_prefix)
        # Only this harness's own settings reach Windows pip and numba (the host's PIP_* and NUMBA_* name
        # Linux paths, a Linux cache folder, this process's CPU choice): the Windows Python keeps its own.
        if not columns:
            columns = shutil.get_terminal_size((PTY_COLUMNS, PTY_ROWS)).columns if raw else PTY_COLUMNS
        # Wine's console breaks a line that reaches the last column, even inside an escape sequence:
        # programs that ask COLUMNS (pytest, Python's shutil) keep that column free.
        env = {k: v for k, v in wine_lane.wine_environment(lane, prefix, xvfb,
                                                           extra={"COLUMNS": str(columns - 1)}).items()
               if not k.startswith(("PIP_", "NUMBA_"))}
        process = subprocess.Popen(wine_lane.in_pty(command, (columns, PTY_ROWS)), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                   start_new_session=True, preexec_fn=wine_lane.die_with_parent)
        return _relay(process, output, raw, timeout)
    finally:
        if prefix is not None:
            wine_lane.end_prefix(prefix)
        xvfb.close()
        shutil.rmtree(workdir, ignore_errors=True)
        guard.close()


def _relay(process, output, raw, timeout) -> int:
    """Copy the console to output until the program ends; Ctrl-C here is Ctrl-C there."""
    import select
    deadline = time.monotonic() + timeout if timeout else None
    interrupted_at = None
    pending = b""
    stream = process.stdout.fileno()
    while True:
        try:
            now = time.monotonic()
            if deadline and now > deadline or interrupted_at and now > interrupted_at + CTRL_C_GRACE:
                _kill(process)
                if output is not None:
                    _write(output, pending, raw, final=True)
                return exitcodes.TIMEOUT if deadline and now > deadline else exitcodes.INTERRUPTED
            ready, _, _ = select.select([stream], [], [], 0.5)
            if not ready:
                continue
            chunk = os.read(stream, 65536)
            if not chunk:
                break
            if output is not None:
                try:
                    pending = _write(output, pending + chunk, raw)
                except BrokenPipeError:  # the reader left (| head): the program still runs to its end
                    output = None
        except KeyboardInterrupt:
            if interrupted_at is None:
                interrupted_at = time.monotonic()
                try:  # the pseudo-terminal's ^C: Wine's console turns it into CTRL_C_EVENT
                    process.stdin.write(b"\x03")
                    process.stdin.flush()
                except OSError:
                    pass
    if output is not None:
        _write(output, pending, raw, final=True)
    try:
        process.stdin.close()
    except OSError:
        pass
    return process.wait()


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.wait()


def _write(output, data: bytes, raw: bool, final=False) -> bytes:
    """Write data to output; -> what is held back (an unfinished line, when cleaning)."""
    if raw:
        output.buffer.write(data) if hasattr(output, "buffer") else output.write(data.decode("utf-8", "replace"))
        output.flush()
        return b""
    *lines, rest = data.split(b"\n")
    if final and rest:
        lines, rest = lines + [rest], b""
    for line in lines:
        output.write(console_text(line.decode("utf-8", "replace")) + "\n")
    output.flush()
    return rest


def console_text(line: str) -> str:
    """One line of Wine's console as plain text: escapes gone, and of a line redrawn with carriage
    returns (a progress bar) what a terminal would finally show."""
    text = CURSOR_FORWARD.sub(lambda m: " " * int(m.group(1) or 1), line)  # how Wine's console draws spaces
    text = wine_lane.ANSI_ESCAPE.sub("", text)
    parts = [part for part in text.split("\r") if part.strip()]
    return parts[-1].rstrip() if parts else ""
