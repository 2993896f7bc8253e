"""The harness's side of a worker: a channel sends a request and returns the reply, or raises
WorkerDied. SocketChannel: a worker process (started by a launcher) over a loopback socket, with
its hello, its time limits and its memory; InProcessChannel: the worker's engine in this process."""
import os
import select
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

from conformance.backends import admission
from conformance.backends.base import CRASH, TIMEOUT, BackendUnavailable
from conformance.backends.procmem import resident
from conformance.backends.wine_lane import NOTHING_WRITTEN, Launcher
from conformance.worker import protocol


def _say(line: str):
    print(f"worker: {line}", file=sys.stderr, flush=True)


class WorkerDied(Exception):
    """The worker is gone, hung or talking nonsense; status is crash or timeout."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status



class SocketChannel:
    """One worker process and its connection."""

    def __init__(self, launcher: Launcher, startup_timeout: float, logdir: Path, generation: int, args=(),
                 note=None):
        """logdir: the backend's own folder (mkdtemp, 0700), where the secret's file goes; note(line):
        told of connections that were not the worker (admission), stderr by default."""
        self.tag = uuid.uuid4().hex  # marks the worker's processes; no secret
        self.log_path = logdir / f"worker-{generation}.log"
        secret, secret_file = admission.write_secret(logdir)
        server = admission.listener()
        self.sock = None
        try:
            self.process = launcher.start(server.getsockname(), self.tag, secret_file, self.log_path, args)
            try:
                self.sock, self.hello = admission.admit(server, secret, time.monotonic() + startup_timeout,
                                                        self.process.alive, note or _say)
            except admission.NotAdmitted as error:
                self.process.kill()
                raise BackendUnavailable(f"{error}: {self.process.tail()}") from None
        finally:
            server.close()
            admission.remove_secret(secret_file)
        if not self.hello.get("ok"):
            self.kill()
            raise BackendUnavailable(f"the worker could not start ONNX Runtime: {self.hello.get('error')}; "
                                     f"{self.process.tail()}")

    def request(self, header, buffers, timeout):
        if self.before_send is not None:
            self.before_send(self, header)
        try:
            protocol.send(self.sock, header, buffers)
        except OSError as error:
            raise WorkerDied(CRASH, f"could not send to the worker ({error})") from None
        if self.after_send is not None:
            self.after_send(self, header)
        return self._receive(time.monotonic() + timeout)

    before_send = None  # test hooks: called with (channel, header) before a request is sent
    after_send = None  # and once it is on its way

    def _receive(self, deadline):
        while True:
            ready, _, _ = select.select([self.sock], [], [], 0.5)
            if ready:
                break
            if not self.process.alive():
                raise WorkerDied(CRASH, f"the worker process exited (code {self.process.popen.poll()})")
            if time.monotonic() > deadline:
                raise WorkerDied(TIMEOUT, "the worker did not answer in time")
        self.sock.settimeout(max(10.0, deadline - time.monotonic()))
        try:
            return protocol.recv(self.sock)
        except protocol.PeerClosed as error:
            raise WorkerDied(CRASH, f"the worker closed the connection ({error})") from None
        except protocol.ProtocolError as error:
            raise WorkerDied(CRASH, f"the worker answered garbage ({error})") from None
        except (socket.timeout, TimeoutError):
            raise WorkerDied(TIMEOUT, "the worker stopped in the middle of an answer") from None
        except OSError as error:
            raise WorkerDied(CRASH, f"the connection broke ({error})") from None
        finally:
            if self.sock is not None:
                self.sock.settimeout(None)

    def alive(self) -> bool:
        return self.process.alive()

    def pids(self) -> list:
        return self.process.pids()

    def memory(self) -> int | None:
        """Resident bytes of the worker's largest process (Wine's shared GPU memory included)."""
        return max((resident(pid) or 0 for pid in self.pids()), default=0) or None

    def tail(self) -> str:
        return self.process.tail()

    def kill(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self.process.kill()

    def close(self, wait=15):
        if self.sock is not None and self.alive():
            try:
                protocol.send(self.sock, {"op": "exit"})
                self._receive(time.monotonic() + wait)
            except (WorkerDied, OSError):
                pass
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        try:
            self.process.popen.wait(wait)
        except subprocess.TimeoutExpired:
            self.process.kill()


class InProcessChannel:
    """The worker's engine in this process: same requests, no process, no fault isolation."""

    def __init__(self, test_hooks=False):
        from conformance.worker.engine import Engine
        self.engine = Engine(test_hooks=test_hooks)
        self.hello = dict(self.engine.hello(), ok=True)

    def request(self, header, buffers, timeout):
        return self.engine.handle(header, [bytes(b) for b in buffers])

    def alive(self):
        return True

    def pids(self):
        return [os.getpid()]

    def memory(self):
        return None

    def tail(self):
        return ""

    def kill(self):
        pass

    def close(self, wait=0):
        self.engine.close()


def socket_factory(launcher, settings):
    def factory(logdir, generation, load_directml=True):
        args = () if load_directml else ("--no-directml-load",)
        try:
            return SocketChannel(launcher, settings["startup_timeout"], logdir, generation, args)
        except BackendUnavailable as error:
            # A worker that ended before its hello without a word (a Wine start that failed under load, seen
            # once in CI) gets one more try; one that said why does not
            if admission.EXITED not in str(error) or NOTHING_WRITTEN not in str(error):
                raise
            time.sleep(2)
            return SocketChannel(launcher, settings["startup_timeout"], logdir, generation, args)
    factory.close = launcher.close
    return factory
