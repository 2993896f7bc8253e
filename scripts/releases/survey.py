"""Which onnxruntime-directml win_amd64 wheels the package index serves, and the DirectML.dll in each:
its file version, its sha256, and the sha256 of its image without the Authenticode signature (two
files of one version that differ only there hold the same code). What docs/releases/README.md's
table comes from, and how conformance/backends/dml_releases.tsv was chosen (one release per DirectML.dll).

    python scripts/releases/survey.py [--dir DIR] [--python-version 3.12] [--markdown]

Downloads each wheel once into DIR (default ~/.cache/dml-conformance-survey; about 360 MB), with
`pip download --no-deps --only-binary=:all: --platform win_amd64`.
"""
import argparse
import hashlib
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from conformance.backends import dml_releases  # noqa: E402
from conformance.worker.devinfo import version_of  # noqa: E402

PACKAGE = "onnxruntime-directml"
DLL = "onnxruntime/capi/DirectML.dll"


def pip(*args) -> str:
    done = subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        sys.exit(f"pip {' '.join(args)}: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout


def served(python_version: str) -> list:
    out = pip("index", "versions", PACKAGE, "--platform", "win_amd64", "--python-version", python_version,
              "--only-binary=:all:")
    line = next((line for line in out.splitlines() if line.startswith("Available versions:")), "")
    return sorted((v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()),
                  key=lambda v: tuple(map(int, v.split("."))))


def unsigned_sha256(data: bytes) -> str:
    """sha256 of a PE image less its certificate table (the Authenticode signature) and checksum."""
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    optional = pe + 24
    directories = optional + (112 if struct.unpack_from("<H", data, optional)[0] == 0x20B else 96)
    offset, size = struct.unpack_from("<II", data, directories + 4 * 8)
    image = bytearray(data[:offset] if offset and size else data)
    image[optional + 64:optional + 68] = bytes(4)
    image[directories + 32:directories + 40] = bytes(8)
    return hashlib.sha256(image).hexdigest()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=str(Path.home() / ".cache" / "dml-conformance-survey"))
    parser.add_argument("--python-version", default="3.12", help="the wheels' CPython (default 3.12: every release has one)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    chosen = {r.onnxruntime for r in dml_releases.releases()}
    rows = []
    for version in served(args.python_version):
        tag = "cp" + args.python_version.replace(".", "")
        wheel = folder / f"onnxruntime_directml-{version}-{tag}-{tag}-win_amd64.whl"
        if not wheel.exists():
            pip("download", "--quiet", "--no-deps", "--only-binary=:all:", "--platform", "win_amd64",
                "--python-version", args.python_version, f"{PACKAGE}=={version}", "-d", str(folder))
        with zipfile.ZipFile(wheel) as archive:
            dll = archive.read(DLL)
        rows.append((version, version_of(dll), hashlib.sha256(dll).hexdigest(), unsigned_sha256(dll),
                     "yes" if version in chosen else ""))
    headers = ("onnxruntime-directml", "DirectML.dll", f"DLL sha256 ({tag} wheel)", "DLL sha256 without signature",
               "in dml_releases.tsv")
    if args.markdown:
        print("| " + " | ".join(headers) + " |\n|" + "---|" * len(headers))
        for version, dll_version, digest, image, mark in rows:
            print(f"| {version} | {dll_version} | `{digest[:16]}` | `{image[:16]}` | {mark} |")
    else:
        for row in rows:
            print("\t".join(row))
    images = {}
    for version, dll_version, _, image, _ in rows:
        images.setdefault((dll_version, image), []).append(version)
    print(f"\n{len(rows)} releases, {len({r[1] for r in rows})} DirectML.dll versions, {len(images)} distinct "
          f"images: " + "; ".join(f"{v} in {', '.join(vs)}" for (v, _), vs in images.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
