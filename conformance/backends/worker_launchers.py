"""How the ONNX Runtime worker (conformance/worker) is started: natively with this harness's own
Python, or under Wine in the lane's Windows Python (wine_lane.WineLauncher)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conformance.backends import wine_lane
from conformance.backends.wine_lane import Launcher, Process, console_path, die_with_parent

WORKER_PACKAGE = Path(__file__).resolve().parent.parent / "worker"


class NativeLauncher(Launcher):
    """`python -m conformance.worker` with this harness's own Python and onnxruntime."""
    kind = "native subprocess"

    def __init__(self, python=None, env=None):
        self.python = python or sys.executable
        self.env = env or {}

    def start(self, address, tag, secret_file, log_path, args=()):
        command = [self.python, "-m", "conformance.worker", "--connect", f"{address[0]}:{address[1]}",
                   "--token-file", str(secret_file), *args, "--log", str(log_path)]
        env = dict(os.environ, **self.env, DMLC_WORKER_TOKEN=tag)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(WORKER_PACKAGE.parent.parent),
                                                          env.get("PYTHONPATH")]))
        console = open(console_path(log_path), "ab")
        # Windows' Popen has neither process sessions nor preexec_fn.
        posix = {} if os.name == "nt" else dict(start_new_session=True, preexec_fn=die_with_parent)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT,
                                   env=env, **posix)
        console.close()
        return Process(process, tag, [log_path, console_path(log_path)], lambda: [process.pid])


class WineLauncher(wine_lane.WineLauncher):
    """The ONNX Runtime worker under Wine (wine_lane.WineLauncher: the lane's Windows Python in a
    pty, with its own Xvfb and prefix clone), from a private copy of conformance/worker: only
    that copy goes on the Windows Python's sys.path."""
    marker = "dmlc_worker"
    workdir_prefix = "dml-wine-worker-"

    def install(self, workdir) -> Path:
        shutil.copytree(WORKER_PACKAGE, workdir / "dmlc_worker", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        return workdir / "dmlc_worker" / "__main__.py"
