"""SNAPSHOT.json of a harness snapshot (scripts/gpu/build-bundle.sh): the commit it was taken at, the
files that differed from it, how many files it holds, and when. scripts/gpu/device.sh refuses a
snapshot that holds fewer files than it says, or none of the harness.

    python3 scripts/gpu/snapshot_stamp.py ROOT TREE
"""
import json
import os
import subprocess
import sys
import time


def main(argv) -> int:
    root, tree = argv
    git = lambda *a: subprocess.run(["git", "-C", root, *a], capture_output=True, text=True, check=True).stdout.strip()
    files = sum(len(names) for _, _, names in os.walk(tree))
    stamp = {"head": git("rev-parse", "HEAD"), "dirty": git("status", "--porcelain").splitlines(), "files": files,
             "taken": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with open(os.path.join(tree, "SNAPSHOT.json"), "w") as f:
        json.dump(stamp, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
