"""Who may speak for the device: the worker this harness started, and nobody else on the machine.

A worker connects back to a loopback port, which every local user can reach too, so a connection
proves nothing by itself. The harness writes a fresh secret into a file of mode 0600 inside its own
folder (mkdtemp: mode 0700) and gives the worker only that file's path: a command line is readable
by every user in /proc/PID/cmdline, the file only by the harness's own user. (Two alternatives do
not reach the worker: an inherited descriptor does not cross into the Windows Python under Wine,
nor do a Unix socket's peer credentials.) The worker echoes the secret in its hello. Every other
connection, a stranger's hello or garbage, is dropped and said, and the harness goes on waiting for
its own worker until the deadline."""
import hmac
import os
import secrets
import select
import socket
import time
from pathlib import Path

from conformance.worker import protocol

HELLO_READ_SECONDS = 5.0  # a connection that starts a frame must finish it in this time
MAX_PENDING = 32  # connections waiting for their hello at once; more are dropped on arrival


class NotAdmitted(Exception):
    """No connection proved to be the worker before it exited or the deadline passed."""


def write_secret(folder) -> tuple:
    """A fresh secret in a new file of mode 0600 in folder (which must be the harness's own, 0700)
    -> (secret, path). The caller removes the file once the worker is admitted or given up."""
    secret = secrets.token_hex(32)
    path = Path(folder) / f"secret-{secrets.token_hex(6)}"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(secret)
    return secret, path


EXITED = "the worker exited before it connected and said hello"


def remove_secret(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def listener() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(MAX_PENDING)
    return sock


def admit(server: socket.socket, secret: str, deadline: float, alive, note) -> tuple:
    """The first connection to server whose hello carries secret -> (socket, hello); server is closed.
    alive() says whether the worker process still runs; note(line) is told of each dropped connection.
    Raises NotAdmitted when the worker exits first or the deadline (time.monotonic()) passes."""
    pending = []
    try:
        while True:
            ready, _, _ = select.select([server, *pending], [], [], 0.5)
            for sock in ready:
                if sock is server:
                    _accept(server, pending, note)
                    continue
                pending.remove(sock)
                hello, why = _hello(sock, secret)
                if why is None:
                    return sock, hello  # out of pending: the finally below leaves it open
                note(f"dropped a connection to the worker's port that was not the worker ({why})")
                sock.close()
            if not ready and not alive():
                raise NotAdmitted(EXITED)
            if time.monotonic() > deadline:
                raise NotAdmitted("the worker did not connect and say hello in time")
    finally:
        server.close()
        for sock in pending:
            sock.close()


def _accept(server, pending, note):
    try:
        sock, peer = server.accept()
    except OSError:
        return
    if len(pending) >= MAX_PENDING:
        note(f"dropped a connection from {peer[0]}:{peer[1]}: {MAX_PENDING} others already wait to say hello")
        sock.close()
        return
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pending.append(sock)


def _hello(sock, secret) -> tuple:
    """-> (hello, None) if sock's first frame is a hello with the secret, else (None, why)."""
    try:
        peer = "%s:%s" % sock.getpeername()
    except OSError:
        peer = "a peer that left"
    sock.settimeout(HELLO_READ_SECONDS)
    try:
        hello, _ = protocol.recv(sock)
    except protocol.ProtocolError as error:
        return None, f"{peer}: {error}"
    except OSError as error:  # a timeout included
        return None, f"{peer}: {error or type(error).__name__}"
    finally:
        sock.settimeout(None)
    token = hello.get("token")
    if not isinstance(token, str) or not hmac.compare_digest(token.encode(), secret.encode()):
        return None, f"{peer}: its hello does not carry this run's secret"
    return hello, None
