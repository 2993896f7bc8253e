"""The Wine lane that scripts/setup-dml-wine.sh provisions, and how a worker runs in it: shared by
the backends that drive the real DirectML.dll under Wine (dml-wine: ONNX Runtime's worker,
conformance/worker; dml-direct: DirectML driven directly, conformance/dmldirect/worker.py).

- find_lane(): the provisioned lane (its marker lane.json, the Windows Python, the Wine prefix)
  and the Linux tools it needs (wine64, Xvfb, script), or why there is none.
- WineLauncher: starts a worker script in the lane's Windows Python under Wine, in a
  pseudo-terminal, with an Xvfb and a private clone of the prefix; each backend names its script.
- Process: a started worker (its Popen, its logs, all its pids), killed by its ids only.
- Guard: a small process that outlives the harness only to end the Wine side and remove the
  prefix clone and folders should the harness die without closing (SIGKILL included).
"""
import json
import os
import re
import secrets
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.backends import dml_releases
from conformance.backends.base import BackendUnavailable

LANE_FORMAT = 1
SYSTEM_HOME = Path("/var/cache/dml-conformance")
TAIL_CHARS = 600
ANSI_ESCAPE = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|.)")  # what Wine's console draws
FATAL_MARKERS = ("Fatal Python error", "Windows fatal exception", "Traceback (most recent call last)",
                 "Unhandled exception", "wine: Unhandled")


# ---- the provisioned lane ------------------------------------------------------------------------
def _user_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dml-conformance"


def lane_home() -> Path:
    """Where scripts/setup-dml-wine.sh puts the lane (the same rule as the script)."""
    if os.environ.get("DML_WINE_HOME"):
        return Path(os.environ["DML_WINE_HOME"])
    if hasattr(os, "getuid") and os.getuid() == 0:
        return SYSTEM_HOME
    return _user_home()


def lane_homes() -> list:
    """Every place a lane may be, in the order find_lane() looks by default."""
    homes = []
    if os.environ.get("DML_WINE_HOME"):
        homes.append(Path(os.environ["DML_WINE_HOME"]))
    homes.append(SYSTEM_HOME)
    homes.append(_user_home())
    return homes


@dataclass
class Lane:
    home: Path
    marker: dict

    @property
    def python_exe(self) -> Path:
        return Path(self.marker.get("python_dir", self.home / "python")) / "python.exe"

    @property
    def prefix(self) -> Path:
        return Path(self.marker.get("prefix", self.home / "prefix"))

    @property
    def vulkan_icd(self) -> str | None:
        return os.environ.get("DML_WINE_VK_ICD") or self.marker.get("vulkan_icd")


def find_lane(homes=None, need_xvfb=True):
    """-> (Lane, None) when provisioned, else (None, why not). homes: where to look (default
    lane_homes()); need_xvfb=False where the caller brings its own X display."""
    reasons = []
    for home in lane_homes() if homes is None else homes:
        marker_path = home / "lane.json"
        if not marker_path.exists():
            reasons.append(f"no {marker_path}")
            continue
        try:
            marker = json.loads(marker_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            reasons.append(f"{marker_path}: unreadable ({error})")
            continue
        lane = Lane(home, marker)
        missing = [f"{tool} (Debian package {package})" for tool, package, found in (
            ("wine64", "wine64", wine_binary()), ("Xvfb", "xvfb", shutil.which("Xvfb") or not need_xvfb),
            ("script", "util-linux", shutil.which("script"))) if not found]
        if marker.get("format") != LANE_FORMAT:
            reasons.append(f"{marker_path}: lane format {marker.get('format')}, this harness needs {LANE_FORMAT}")
        elif not set(lane_pins()) <= set(marker.get("pins", [])):
            reasons.append(f"{marker_path}: pins {marker.get('pins')} lack {', '.join(lane_pins())}")
        elif not lane.python_exe.exists() or not lane.prefix.is_dir():
            reasons.append(f"{home}: the Windows Python or the Wine prefix is gone")
        elif missing:
            reasons.append("not installed: " + ", ".join(missing))
        else:
            return lane, None
    return None, "the dml-wine lane is not provisioned (run: bash scripts/setup-dml-wine.sh): " + "; ".join(reasons)


def lane_pins() -> tuple:
    """What lane.json's pins must include: the newest release of the table and its numpy."""
    newest = dml_releases.newest()
    numpy = [pin for pin in dml_releases.python_pins(newest.tag) if pin.name == "numpy"]
    return (f"onnxruntime-directml=={newest.onnxruntime}", *(f"numpy=={pin.version}" for pin in numpy))


def for_release(lane: Lane, selector=None) -> tuple:
    """(the lane running the release that selector names, that Release). selector: an
    onnxruntime-directml or DirectML.dll version (dml_releases.resolve); None: the lane's own, the
    newest. ValueError for a release the table lacks; BackendUnavailable for one not provisioned."""
    release = dml_releases.resolve(selector or "newest")
    if selector is None:
        return lane, release
    ready, record = dml_releases.provisioned(lane.home, release)
    if not ready:
        raise BackendUnavailable(record)
    marker = dict(lane.marker, python_dir=str(dml_releases.python_dir(lane.home, release)),
                  windows_python=record.get("windows_python"), numpy=record.get("numpy"))
    return Lane(lane.home, marker), release


def directml_header(loaded, release=None, requested=None) -> dict:
    """The header's record of the DirectML.dll the worker process really loaded (its hello's
    directml_loaded: path, file version, sha256, or why there is none), with that file's Unix path,
    and of the release the lane was asked for (dml_release) with whether the loaded file is its."""
    if isinstance(loaded, dict):
        loaded = dict(loaded)
        if loaded.get("path", "").upper().startswith("Z:\\"):
            loaded["unix_path"] = unix_path(loaded["path"])
    header = {"directml_loaded": loaded}
    if release is not None:
        header["dml_release"] = {
            "requested": requested, "onnxruntime_directml": release.onnxruntime, "directml": release.directml,
            "pinned_dll_sha256": release.dll_sha256,
            "loaded_is_pinned": isinstance(loaded, dict) and loaded.get("sha256") == release.dll_sha256
            and not loaded.get("also_loaded")}
    return header


def wine_binary():
    for candidate in ("/usr/lib/wine/wine64", shutil.which("wine64"), shutil.which("wine")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def wineserver_binary():
    for candidate in ("/usr/lib/wine/wineserver", shutil.which("wineserver")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def windows_path(path) -> str:
    """Wine's drive Z: is the Unix root."""
    return "Z:" + str(Path(path).resolve()).replace("/", "\\")


def unix_path(path: str) -> str:
    """The inverse of windows_path: Z:\\var\\x -> /var/x."""
    return "/" + path[3:].replace("\\", "/")


# ---- worker processes ------------------------------------------------------------------------------
NOTHING_WRITTEN = "(the worker wrote nothing)"  # a process tail() without a word


def console_path(log_path) -> Path:
    """Where a worker's stdout and stderr go: beside its log, named after it (every launcher's)."""
    return Path(log_path).with_suffix(".console")


class Process:
    """A started worker process: its Popen, its log files, and how to find all its pids."""

    def __init__(self, popen, tag, logs, pids):
        self.popen, self.tag, self.logs, self._pids = popen, tag, logs, pids

    def alive(self) -> bool:
        return self.popen.poll() is None

    def pids(self) -> list:
        return sorted(set(self._pids()))

    def kill(self):
        for pid in self.pids():
            try:
                os.kill(pid, getattr(signal, "SIGKILL", 9))
            except OSError:
                pass
        try:
            self.popen.wait(10)
        except subprocess.TimeoutExpired:
            pass

    def tail(self) -> str:
        parts = []
        for path in self.logs:
            text = tail(path)
            if text:
                parts.append(f"[{path.name}] {text}")
        return " ".join(parts) or NOTHING_WRITTEN


class Launcher:
    """Starts worker processes that connect back to address (host, port) and prove themselves with
    the secret in secret_file (conformance/backends/admission.py); tag marks the worker's processes
    in their environment (DMLC_WORKER_TOKEN: no secret, it finds them); args: more arguments for the
    worker's command line."""
    kind = "worker"

    def start(self, address, tag, secret_file, log_path, args=()) -> Process:
        raise NotImplementedError

    def describe(self) -> dict:
        return {"transport": self.kind}

    def close(self):
        pass


class WineLauncher(Launcher):
    """A worker script in the lane's Windows Python under Wine, in a pseudo-terminal
    (`script -qec`), with an Xvfb and a Wine prefix of its own (both kept across worker restarts).

    The prefix is a hard-link clone of the lane's (instant, no space) with its own wineserver,
    so a run neither disturbs nor is disturbed by another user of the lane (a second run, the
    other backend): `wineserver -k` after a crash or at the end ends this run's processes
    only, and what Wine writes to its registry stays in the clone (Wine saves registry files by
    writing a new file and renaming it, so nothing writes through the links).

    A subclass names its worker: install(workdir) -> the script to run; marker, a word of the
    script's path that finds the Windows python.exe among the processes carrying the token.
    The worker is run as `python.exe SCRIPT --connect HOST:PORT --token-file F [args] --log LOG`.
    display: an X display to use instead of starting an Xvfb.
    """
    kind = "wine"
    marker = None
    workdir_prefix = "wine-worker-"

    def __init__(self, lane: Lane, winedebug="-all", env=None, args=(), display=None):
        self.lane = lane
        self.wine = wine_binary()
        self.winedebug = winedebug
        self.env = env or {}
        self.args = list(args)
        self.given_display = display
        self.xvfb = self.prefix = None
        # The guard first: each folder and the prefix clone is its own before it exists, so a
        # SIGKILL at any point below leaves nothing.
        self.guard = Guard()
        self.workdir = self.guard.mkdtemp(self.workdir_prefix)
        try:
            self.script = self.install(self.workdir)
            self.prefix = clone_prefix(lane, claim=self.guard.adopt_prefix)
            # A persistent wineserver for the clone: Wine's desktop process and services outlive a
            # worker that dies, so a restart is not a cold start of the prefix.
            self._wineserver(["-p"])
        except BaseException:
            self.close()
            raise

    def install(self, workdir) -> Path:
        raise NotImplementedError

    def _wineserver(self, flags):
        wineserver = wineserver_binary()
        if wineserver:
            subprocess.run([wineserver, *flags], env=dict(os.environ, WINEPREFIX=str(self.prefix)),
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=60, check=False)

    def _ensure_display(self):
        """The given display's name, or this launcher's Xvfb (started, with its access control)."""
        if self.given_display:
            return self.given_display
        if self.xvfb is None:
            self.xvfb = Xvfb(self.workdir / "xvfb.log")
        return self.xvfb

    def start(self, address, tag, secret_file, log_path, args=()):
        display = self._ensure_display()
        command = [self.wine, str(self.lane.python_exe), windows_path(self.script), "--connect",
                   f"{address[0]}:{address[1]}", "--token-file", windows_path(secret_file), *self.args, *args,
                   "--log", windows_path(log_path)]
        env = wine_environment(self.lane, self.prefix, display, self.winedebug,
                               dict(self.env, DMLC_WORKER_TOKEN=tag))
        console = open(console_path(log_path), "ab")
        process = subprocess.Popen(in_pty(command), stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT,
                                   env=env, cwd=self.workdir, start_new_session=True, preexec_fn=die_with_parent)
        console.close()
        # `script` runs Wine in a session of its own: the worker is found by its ids (the Windows
        # python.exe carries the token and the script's path; never wineserver or Wine's services).
        return Process(process, tag, [log_path, console_path(log_path)],
                       lambda: [process.pid] + processes_with(tag, self.marker))

    def describe(self) -> dict:
        marker = self.lane.marker
        return {"transport": "wine (script pty, Xvfb, loopback TCP)", "lane": str(self.lane.home),
                "wine": marker.get("wine"), "mesa_vulkan_drivers": marker.get("mesa_vulkan_drivers"),
                "vulkan_device": marker.get("vulkan_device"), "vulkan_icd": self.lane.vulkan_icd,
                "windows_python": marker.get("windows_python"), "winedebug": self.winedebug}

    def close(self):
        if self.prefix is not None:
            end_prefix(self.prefix)
        if self.xvfb is not None:
            self.xvfb.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.guard.close()


class Guard:
    """A dead man's switch for what the harness makes for Wine: a process of its own session that
    holds the read end of a pipe whose write end only the harness has. Each prefix clone and folder is
    announced to it before it is made (adopt_prefix, mkdtemp, adopt). The harness ends it with close()
    once it has cleaned up; if the harness dies first (SIGKILL included), the kernel closes the write
    end, and the guard ends every Wine process of each prefix (`wineserver -k`; Xvfb and the worker's
    pty die with their parent), removes the clones, Wine's server folders and the folders, and exits."""

    def __init__(self):
        read_end, self._write_end = os.pipe()  # not inherited by anything else the harness starts
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        self.popen = subprocess.Popen([sys.executable, "-m", "conformance.backends.wine_lane", "--guard",
                                       str(read_end)], pass_fds=(read_end,), env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, start_new_session=True)
        os.close(read_end)

    def adopt(self, folder):
        """Remove folder too should the harness die."""
        self._say("folder", folder)

    def adopt_prefix(self, prefix):
        """End the Wine processes of prefix and remove its clone (end_prefix) should the harness die."""
        self._say("prefix", prefix)

    def mkdtemp(self, name_prefix: str) -> Path:
        """tempfile.mkdtemp's folder (mode 0700, in the temporary folder), adopted before it is made."""
        while True:
            folder = Path(tempfile.gettempdir()) / f"{name_prefix}{secrets.token_hex(5)}"
            self.adopt(folder)
            try:
                folder.mkdir(mode=0o700)
                return folder
            except FileExistsError:
                continue

    def _say(self, kind: str, path):
        os.write(self._write_end, f"{kind} {path}\n".encode())

    def close(self):
        """The harness cleaned up itself: the guard leaves everything as it is and exits."""
        if self._write_end is None:
            return
        try:
            os.write(self._write_end, b"\0")
        except OSError:  # the guard is gone already
            pass
        os.close(self._write_end)
        self._write_end = None
        try:
            self.popen.wait(10)
        except subprocess.TimeoutExpired:
            self.popen.kill()


def _guard(read_end: int):
    """The guard process: waits for the harness to close the pipe (see Guard)."""
    received = b""
    while chunk := os.read(read_end, 4096):
        received += chunk
    if received.endswith(b"\0"):
        return  # closed by the harness, which cleaned up itself
    for line in received.decode(errors="replace").splitlines():
        kind, _, path = line.partition(" ")
        if kind == "prefix":
            end_prefix(Path(path))
        elif kind == "folder":
            shutil.rmtree(path, ignore_errors=True)


class Xvfb:
    """An X server for Wine's processes (Wine's desktop process needs a display even for console
    programs), started on first use and again if it died; its output goes to log_path.

    With access control: a fresh MIT-MAGIC-COOKIE-1 in `authority` (mode 0600, beside the log, in
    the caller's private folder), given to the server with -auth and to Wine as XAUTHORITY
    (environment()). Without it any local user could connect to the display the worker draws on."""

    def __init__(self, log_path: Path):
        self.log_path = log_path
        self.authority = log_path.parent / "Xauthority"
        self.process = None
        self.name = None

    def environment(self) -> dict:
        """DISPLAY and XAUTHORITY for a client of this server (starting it if need be)."""
        return {"DISPLAY": self.display(), "XAUTHORITY": str(self.authority)}

    def _write_authority(self):
        """One entry that any display number and address match (family FamilyWild, number empty):
        the number is chosen by the server (-displayfd) after the file is read."""
        def counted(data: bytes) -> bytes:
            return struct.pack(">H", len(data)) + data
        entry = struct.pack(">H", 0xFFFF) + counted(b"") + counted(b"") + counted(b"MIT-MAGIC-COOKIE-1") \
            + counted(secrets.token_bytes(16))
        descriptor = os.open(self.authority, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(entry)

    def display(self) -> str:
        if self.process is not None and self.process.poll() is None:
            return self.name
        self._write_authority()
        read_end, write_end = os.pipe()
        log = open(self.log_path, "ab")
        # -noreset: without it the server resets when its last client leaves (Wine's start-up has
        # short-lived clients), writes its display number to -displayfd again, finds the pipe closed,
        # dies of SIGPIPE, and Wine's desktop process then fails with "no driver could be loaded".
        self.process = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "640x480x24",
                                         "-nolisten", "tcp", "-noreset", "-auth", str(self.authority)],
                                        pass_fds=(write_end,),
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True, preexec_fn=die_with_parent)
        os.close(write_end)
        log.close()
        # Read up to the newline: Xvfb writes the number and the newline separately, and dies
        # ("Cannot write display number") if the pipe is closed in between.
        data, deadline = b"", time.monotonic() + 30
        while not data.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(read_end, 64) if ready else b""
            if not chunk:
                break
            data += chunk
        os.close(read_end)
        number = data.decode().strip() if data.endswith(b"\n") else ""
        if not number:
            self.process.kill()
            raise BackendUnavailable(f"Xvfb did not start: {tail(self.log_path)}")
        self.name = f":{number}"
        return self.name

    def close(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()


# The VKD3D_CONFIG of the lane's DirectML workers (dml-wine's and dml-direct's provider option
# vkd3d_config; empty: none). vkd3d 1.6 backs a shader-visible descriptor heap, which every DirectML
# session creates, with one Vulkan descriptor set per descriptor type sized for a million
# descriptors: on lavapipe six 244 MiB allocations, written through, that the process keeps (~1.45 GiB
# a session); its virtual heaps keep descriptors in host memory instead (~20 to 40 MB a session; the
# device reports the same D3D12 capabilities to DirectML; docs/performance.md, "dml-wine's memory").
# And without them vkd3d passes each descriptor table's offset as a push constant after the root
# constants: where that comes to more than the device's maxPushConstantsSize (256 bytes on NVIDIA's
# driver) it says "Push constants size 260 exceeds maximum allowed size 256", drops the excess, and
# DirectML's shaders reading the lost constants never end (BATCH_NORMALIZATION, the MVNs, LRN,
# LP_NORMALIZATION, 3-D convolution and integer products through dml-direct on an H100, until it
# took this default too: docs/gpu/issue26/README.md).
VKD3D_CONFIG = "virtual_heaps"


def wine_environment(lane: Lane, prefix: Path, display, winedebug: str = "-all", extra=None) -> dict:
    """The environment of a Windows program in the lane: its prefix, X display (a name, or an Xvfb:
    its name and XAUTHORITY) and Vulkan driver."""
    shown = display.environment() if isinstance(display, Xvfb) else {"DISPLAY": display}
    env = dict(os.environ, **(extra or {}), **shown, WINEPREFIX=str(prefix), WINEARCH="win64",
               WINEDEBUG=winedebug, WINEDLLOVERRIDES="mscoree,mshtml=", SHELL="/bin/sh")
    if lane.vulkan_icd:
        env["VK_ICD_FILENAMES"] = env["VK_DRIVER_FILES"] = lane.vulkan_icd
    return env


def in_pty(command: list, size=None) -> list:
    """command run in a pseudo-terminal: Windows Python dies in init_sys_streams when its stdout is
    a pipe or a file under Wine. size: (columns, rows) of the terminal, whose width Wine's console
    wraps its output at."""
    shell = shlex.join(command)
    if size:
        shell = f"stty cols {int(size[0])} rows {int(size[1])} 2>/dev/null; exec {shell}"
    return ["script", "-qec", shell, "/dev/null"]


def clone_prefix(lane: Lane, claim=None) -> Path:
    """A private hard-link clone of the lane's prefix under <lane>/run/; clones whose owner is
    gone are removed first. claim(prefix) is told the clone's path before it is made (Guard.adopt_prefix)."""
    runs = lane.home / "run"
    runs.mkdir(exist_ok=True)
    for old in runs.iterdir():
        try:
            owner = int((old / "owner").read_text())
            os.kill(owner, 0)
            continue  # still in use
        except ProcessLookupError:
            end_prefix(old / "prefix")
        except (OSError, ValueError):
            try:
                if time.time() - old.stat().st_mtime < 600:
                    continue  # being made right now
            except FileNotFoundError:
                continue  # another run removed it meanwhile (runs clean up run/ at once)
        shutil.rmtree(old, ignore_errors=True)
    while True:
        home = runs / f"{os.getpid()}-{secrets.token_hex(5)}"
        if claim is not None:
            claim(home / "prefix")
        try:
            home.mkdir(mode=0o700)
            break
        except FileExistsError:
            continue
    (home / "owner").write_text(str(os.getpid()))
    # cp ends with the harness (a SIGKILLed harness's guard removes the clone: cp must not go on making it)
    done = subprocess.run(["cp", "-al", str(lane.prefix), str(home / "prefix")], capture_output=True, text=True,
                          preexec_fn=die_with_parent)
    if done.returncode != 0:
        shutil.rmtree(home, ignore_errors=True)
        raise BackendUnavailable(f"could not clone the Wine prefix {lane.prefix}: {done.stderr.strip()}")
    return home / "prefix"


def end_prefix(prefix: Path):
    """Stop every Wine process of a private prefix (its wineserver included) and remove it, with the
    folder Wine made for its server."""
    wineserver = wineserver_binary()
    if prefix.is_dir() and wineserver:
        # -k ends the processes; -w waits for the server itself, which otherwise lingers a few
        # seconds: a new clone that reuses this directory's inode would reach it, and Wine finds
        # its server by the prefix's device and inode.
        for flag in ("-k", "-w"):
            try:
                subprocess.run([wineserver, flag], env=dict(os.environ, WINEPREFIX=str(prefix)),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30, check=False)
            except subprocess.TimeoutExpired:
                pass
    # while the prefix still holds its inode, so that no newer clone's server folder has that name
    for folder in server_folders(prefix):
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(prefix.parent, ignore_errors=True)
    for _ in range(50):  # a cp still making the clone as its harness died may add to it until it ends too
        if not prefix.parent.exists():
            break
        time.sleep(0.1)
        shutil.rmtree(prefix.parent, ignore_errors=True)


def server_folders(prefix: Path) -> list:
    """Wine's folders for the server of prefix, this user's: server-<device>-<inode> (hex) in
    /tmp/.wine-<uid>/ or, as Debian's Wine makes it, /tmp/wine-XXXXXX/. Left by every wineserver."""
    try:
        status = os.stat(prefix)
    except OSError:
        return []
    name = f"server-{status.st_dev:x}-{status.st_ino:x}"
    roots = {Path("/tmp"), Path(tempfile.gettempdir())}
    found = []
    for root in roots:
        for folder in [*root.glob(f"wine-*/{name}"), root / f".wine-{os.getuid()}" / name]:
            try:
                if folder.is_dir() and not folder.is_symlink() and folder.stat().st_uid == os.getuid():
                    found.append(folder)
            except OSError:
                continue
    return found


def die_with_parent():
    """In the child before exec: get SIGTERM when the harness dies, so nothing is left behind."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def processes_with(token: str, marker: str) -> list:
    """Unix pids of processes started with our token in their environment and marker in their
    command line (the Windows python.exe; never wineserver or Wine's shared services)."""
    found = []
    needle = f"DMLC_WORKER_TOKEN={token}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def tail(path, chars=TAIL_CHARS) -> str:
    """The end of a worker's log, Wine's console escapes removed; from the start of a fatal error
    report (faulthandler) or a traceback where there is one, as that says the most."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 8 * chars))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    text = " ".join(ANSI_ESCAPE.sub("", text).replace("\r", "").split())
    start = max(text.rfind(marker) for marker in FATAL_MARKERS)
    if start >= 0 and len(text) - start <= 3 * chars:
        return text[start:]
    return text[-chars:]


if __name__ == "__main__" and sys.argv[1:2] == ["--guard"]:
    _guard(int(sys.argv[2]))
