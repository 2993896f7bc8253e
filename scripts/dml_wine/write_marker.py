"""Judge the Windows-side DirectML self-check and, if it passed, write the lane's marker file
(lane.json: versions and paths; the dml-wine backend reads it), or with --kind release the
marker of one more release (releases/<version>/release.json). Used by setup-dml-wine.sh.

The self-check's hello names the DirectML.dll its process really loaded; it must be the pinned
file (--dll-sha256), or the marker is not written."""
import argparse
import json
import sys
import time
from pathlib import Path

LANE_ONLY = ("wine", "wine-package", "mesa", "vulkan-device", "vulkan-driver", "vulkan-icd")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", choices=("lane", "release"), default="lane")
    for name in ("selfcheck", "marker", "format", "home", "pins", "seconds", "dll-sha256"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--python-dir", help="the Windows Python (default: HOME/python)")
    for name in LANE_ONLY:
        parser.add_argument(f"--{name}")
    args = parser.parse_args(argv)
    if args.kind == "lane" and any(getattr(args, name.replace("-", "_")) is None for name in LANE_ONLY):
        parser.error("the lane's marker needs --" + " --".join(LANE_ONLY))
    check = json.loads(Path(args.selfcheck).read_text(encoding="utf-8"))
    hello = check.get("hello", {})
    if not check.get("ok"):
        print(f"DirectML self-check failed: {check.get('problem') or check}", file=sys.stderr)
        if check.get("traceback"):
            print(check["traceback"], file=sys.stderr)
        return 1
    loaded = hello.get("directml_loaded")
    if not isinstance(loaded, dict) or loaded.get("sha256") != args.dll_sha256:
        print(f"the self-check's process loaded DirectML.dll {loaded!r} (after {hello.get('directml_load')!r}), "
              f"not the pinned one (sha256 {args.dll_sha256})", file=sys.stderr)
        return 1
    home = Path(args.home)
    adapters = hello.get("adapters")
    adapter = adapters[0]["description"] if isinstance(adapters, list) and adapters else adapters
    marker = {"format": int(args.format), "home": str(home),
              "python_dir": args.python_dir or str(home / "python"), "pins": args.pins.split()}
    if args.kind == "lane":
        marker.update({
            "prefix": str(home / "prefix"), "wine": args.wine, "wine_package": args.wine_package,
            "mesa_vulkan_drivers": args.mesa, "vulkan_device": args.vulkan_device,
            "vulkan_driver": args.vulkan_driver, "vulkan_icd": args.vulkan_icd})
    marker.update({
        "windows_python": hello.get("python"), "onnxruntime": hello.get("onnxruntime"),
        "numpy": hello.get("numpy"), "directml_dll": hello.get("directml_dll"),
        "directml_loaded": loaded, "adapter": adapter, "dml_max_feature_level": hello.get("dml_max_feature_level"),
        "selfcheck": {"session_seconds": check.get("create", {}).get("seconds"),
                      "placement": check.get("placement")},
        "provisioned": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "setup_seconds": int(args.seconds),
    })
    Path(args.marker).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    print(f"    DirectML self-check passed: onnxruntime {marker['onnxruntime']}, DirectML.dll "
          f"{marker['directml_dll']} (loaded: {loaded['path']}), adapter {adapter!r}, feature level "
          f"{marker['dml_max_feature_level']}, session {marker['selfcheck']['session_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
