"""Make this checkout's entry points visible to a Python that runs it from PYTHONPATH (the GPU
machine installs nothing): write dml_conformance-VERSION.dist-info, METADATA and entry_points.txt
from pyproject.toml, into a folder on sys.path.

    python3 scripts/gpu/entry_points.py pyproject.toml /tmp/gpu/site
"""
import sys
import tomllib
from pathlib import Path


def main(pyproject: str, site: str) -> int:
    project = tomllib.loads(Path(pyproject).read_text(encoding="utf-8"))["project"]
    name, version = project["name"], project["version"]
    info = Path(site) / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    lines = []
    for group, entries in project.get("entry-points", {}).items():
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entries.items()]
        lines.append("")
    if project.get("scripts"):
        lines.append("[console_scripts]")
        lines += [f"{key} = {value}" for key, value in project["scripts"].items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"entry points of {name} {version}: {info}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
