"""Judge the Windows-side DirectML self-check and, if it passed, write the lane's marker file
(lane.json: versions and paths; the dml-wine backend reads it). Used by setup-dml-wine.sh."""
import argparse
import json
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    for name in ("selfcheck", "marker", "format", "home", "wine", "wine-package", "mesa", "vulkan-device",
                 "vulkan-driver", "vulkan-icd", "pins", "seconds"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args(argv)
    check = json.loads(Path(args.selfcheck).read_text(encoding="utf-8"))
    hello = check.get("hello", {})
    if not check.get("ok"):
        print(f"DirectML self-check failed: {check.get('problem') or check}", file=sys.stderr)
        if check.get("traceback"):
            print(check["traceback"], file=sys.stderr)
        return 1
    home = Path(args.home)
    adapters = hello.get("adapters")
    adapter = adapters[0]["description"] if isinstance(adapters, list) and adapters else adapters
    marker = {
        "format": int(args.format), "home": str(home), "python_dir": str(home / "python"),
        "prefix": str(home / "prefix"), "pins": args.pins.split(),
        "wine": args.wine, "wine_package": args.wine_package, "mesa_vulkan_drivers": args.mesa,
        "vulkan_device": args.vulkan_device, "vulkan_driver": args.vulkan_driver,
        "vulkan_icd": args.vulkan_icd,
        "windows_python": hello.get("python"), "onnxruntime": hello.get("onnxruntime"),
        "numpy": hello.get("numpy"), "directml_dll": hello.get("directml_dll"),
        "adapter": adapter, "dml_max_feature_level": hello.get("dml_max_feature_level"),
        "selfcheck": {"session_seconds": check.get("create", {}).get("seconds"),
                      "placement": check.get("placement")},
        "provisioned": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "setup_seconds": int(args.seconds),
    }
    Path(args.marker).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    print(f"    DirectML self-check passed: onnxruntime {marker['onnxruntime']}, DirectML.dll "
          f"{marker['directml_dll']}, adapter {adapter!r}, feature level {marker['dml_max_feature_level']}, "
          f"session {marker['selfcheck']['session_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
