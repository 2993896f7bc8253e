"""A throwaway PostgreSQL server for the store's tests: Debian's postgresql package (scripts/ci.d/
40-postgresql.sh installs it), a cluster made by initdb in a temporary folder, owned by an
unprivileged user (the server refuses root), listening only on a unix socket in a 0700 folder, no
TCP. server() yields a function that makes an empty database and gives its URL; the server is
stopped (pg_ctl stop -m immediate) and its folder removed however the tests end."""
import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


def binaries() -> Path | None:
    """The folder of initdb, pg_ctl and postgres, or None where PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(versions[-1]).parent if versions else None


def _user() -> str | None:
    """Who runs the server: nobody else but this user where it is not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise RuntimeError("running as root, and neither a postgres nor a nobody user to run PostgreSQL as")


def _as(user, command) -> list:
    return ["runuser", "-u", user, "--", *command] if user else list(command)


@contextlib.contextmanager
def server(bin_dir: Path):
    user = _user()
    folder = Path(tempfile.mkdtemp(prefix="dmlc-postgres-"))
    data, socket = folder / "data", folder / "socket"
    started = False
    try:
        socket.mkdir(mode=0o700)
        if user:
            entry = pwd.getpwnam(user)
            for path in (folder, socket):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        subprocess.run(_as(user, [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                                  "-E", "UTF8", "--no-sync", "--no-instructions"]),
                       check=True, capture_output=True, text=True)
        options = f"-k {socket} -c listen_addresses='' -c fsync=off"
        started = True
        subprocess.run(_as(user, [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"),
                                  "-w", "-t", "60", "start"]), check=True, capture_output=True, text=True)
        yield _databases(socket)
    finally:
        if started:
            subprocess.run(_as(user, [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                           capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def _databases(socket: Path):
    import psycopg
    made = [0]

    def new() -> str:
        made[0] += 1
        name = f"store{made[0]}"
        with psycopg.connect(f"postgresql://postgres@/postgres?host={socket}", autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return f"postgresql://postgres@/{name}?host={socket}"
    return new
