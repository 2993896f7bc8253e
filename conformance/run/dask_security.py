"""Who may take part in a distributed run: Dask's TLS with mutual authentication.

A plain tcp:// scheduler lets any local user submit tasks or answer as a worker, and so forge
verdicts. `conformance dask-certs DIR` writes a certificate authority and a certificate and key for
the scheduler, the workers and the client, signed by it (the authority's own key is not kept: more
certificates mean a new folder); every connection proves it holds one of them, both ways. The folder
is its owner's alone (0700, files 0600): copy it to the machines of the run, as one copies an SSH key.
A local:N cluster uses a temporary authority of its own (Security.temporary()).
"""
import datetime
import os
import re
import stat
from pathlib import Path

from conformance.errors import BadInput

ROLES = ("scheduler", "worker", "client")
CA = "ca.pem"
LOCAL = re.compile(r"local:(\d+)")
DAYS = 3650


def files(folder) -> dict:
    """role -> (certificate, key) paths in a certificates folder."""
    return {role: (Path(folder) / f"{role}.pem", Path(folder) / f"{role}.key") for role in ROLES}


def write_certs(folder):
    """A CA and each role's certificate and key into folder (made 0700; refused if it holds any already)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    folder = Path(folder)
    taken = [path for path in [folder / CA, *(p for pair in files(folder).values() for p in pair)] if path.exists()]
    if taken:
        raise BadInput(f"{taken[0]}: already exists; give an empty or new folder (certificates are never overwritten)")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    now = datetime.datetime.now(datetime.timezone.utc)

    def certificate(name, key, issuer, issuer_key, ca: bool):
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=DAYS))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                .sign(issuer_key, hashes.SHA256()))

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dml-conformance dask CA")])
    ca_cert = certificate("dml-conformance dask CA", ca_key, ca_name, ca_key, ca=True)
    _private(folder / CA, ca_cert.public_bytes(serialization.Encoding.PEM))
    for role, (cert_path, key_path) in files(folder).items():
        key = ec.generate_private_key(ec.SECP256R1())
        _private(key_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption()))
        _private(cert_path, certificate(f"dml-conformance dask {role}", key, ca_name, ca_key, ca=False)
                 .public_bytes(serialization.Encoding.PEM))


def _private(path: Path, data: bytes):
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def security(folder, option: str = "--dask-certs"):
    """distributed.Security for the certificates in folder (every role's, as written by write_certs),
    or BadInput in one line: a folder missing one, or one that other users may read."""
    from distributed import Security
    folder = Path(folder)
    if not folder.is_dir():
        raise BadInput(f"{option} {folder}: no such folder (conformance dask-certs {folder} writes one)")
    mode = stat.S_IMODE(folder.stat().st_mode)
    if mode & 0o077:
        raise BadInput(f"{option} {folder}: other users may read it (mode {mode:o}): its keys let anyone "
                       f"answer as a worker; chmod 700 {folder}")
    paths = files(folder)
    for path in [folder / CA, *(p for pair in paths.values() for p in pair)]:
        if not path.is_file():
            raise BadInput(f"{option} {folder}: {path.name} is missing (conformance dask-certs writes every file)")
    return Security(require_encryption=True, tls_ca_file=str(folder / CA),
                    **{f"tls_{role}_{kind}": str(path) for role, pair in paths.items()
                       for kind, path in zip(("cert", "key"), pair)})


def scheduler_address(text: str, option: str = "--dask") -> str:
    """A scheduler's address as Dask takes it (tls://HOST:PORT), or BadInput in one line; plain
    tcp:// is refused."""
    text = str(text).strip()
    if text.startswith("tls://") and re.fullmatch(r"tls://[^\s/:]+(:\d+)?|tls://\[[0-9a-fA-F:.]+\](:\d+)?", text):
        return text
    if "://" not in text or text.startswith("tcp://"):
        raise BadInput(f"{option} {text}: a plain tcp:// scheduler lets any local user submit tasks or answer as a "
                       "worker; give tls://HOST:PORT with --dask-certs DIR (conformance dask-certs DIR writes them), "
                       "or local:N")
    raise BadInput(f"{option} {text}: expected tls://HOST:PORT or local:N (N worker processes here)")
