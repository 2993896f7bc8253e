"""What each device-tool call of the GPU bundle carries, sized with everything it carries.

The lent GPU machine takes at most CALL_LIMIT bytes a call: the working tree (tracked and untracked
files git does not ignore) plus every folder the call carries. scripts/gpu/build-bundle.sh uses:

    python3 scripts/gpu/carry.py worktree ROOT [--exclude PATH]...      bytes the working tree sends
    python3 scripts/gpu/carry.py chunk --worktree BYTES [--chunk-mib N] bytes of one payload chunk
    python3 scripts/gpu/carry.py pack CARRY --payload FILE --extras DIR --worktree BYTES --chunk BYTES
                                      --manifest JSON                   the calls cNN and manifest.json
    python3 scripts/gpu/carry.py plan CARRY ROOT --prefix P [--exclude PATH]...
                                                                       the calls, each checked

A call's folder cNN holds payload chunks and extras (tools/, wheels/, lib/; a file over half a call
travels in parts NAME.part-NN with NAME.sha256, which device.sh joins); the last call also carries the
harness snapshot CARRY/tree and runs the setup. Exit 2: not a git checkout, or a size that cannot fit;
exit 1 from plan: a call over CALL_LIMIT (every such call is named).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

CALL_LIMIT = 64 << 20  # what one device-tool call carries: working tree and carried folders together
SPARE = 4 << 20        # left free at build time, for the working tree to grow before the calls are made
MIB = 1 << 20


class Refused(Exception):
    """Bad input: one line, exit 2."""


def worktree(root: str, excludes=()) -> int:
    """Bytes of the files the device tool sends from ROOT: tracked and untracked, not ignored."""
    spec = ["--", "."] + [f":(exclude){path}" for path in excludes]
    git = lambda *a: subprocess.run(["git", "-C", root, *a], capture_output=True)
    try:
        top, done = git("rev-parse", "--show-toplevel"), git("ls-files", "-co", "--exclude-standard", "-z", *spec)
    except OSError:
        top = done = None
    if done is None or done.returncode != 0 or top.stdout.decode().strip() != os.path.realpath(root):
        raise Refused(f"{root} is not a git checkout: what a call carries is what git lists "
                      "(tracked and untracked files, not ignored); build the bundle in a checkout")
    total = 0
    for name in done.stdout.decode().split("\0"):
        path = os.path.join(root, name)
        if name and os.path.isfile(path) and not os.path.islink(path):
            total += os.path.getsize(path)
    return total


def folder_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)


def budget(work: int) -> int:
    """Bytes a call may carry beside the working tree, with SPARE left free."""
    room = CALL_LIMIT - SPARE - work
    if room < 8 * MIB:
        raise Refused(f"the working tree is {work / MIB:.1f} MiB: a call carries {CALL_LIMIT // MIB} MiB in all, "
                      f"which leaves {max(room, 0) / MIB:.1f} MiB for the bundle (at least 8 needed)")
    return room


def chunk(work: int, chunk_mib=None) -> int:
    room = budget(work)
    if chunk_mib is None:
        return room // MIB * MIB
    if chunk_mib * MIB > room:
        raise Refused(f"CHUNK_MIB={chunk_mib}: with the working tree ({work / MIB:.1f} MiB) a call has room "
                      f"for {room // MIB} MiB")
    return chunk_mib * MIB


def pack(carry: str, payload: str, extras: str, work: int, chunk_bytes: int, manifest: dict) -> list:
    """Split PAYLOAD into calls c00.. of CHUNK_BYTES and place the extras, every call within the budget
    (the last one with the snapshot CARRY/tree beside it); write manifest.json. Returns [(name, bytes)]
    per call, the snapshot counted in the last."""
    room = budget(work)
    tree = folder_bytes(os.path.join(carry, "tree"))
    if tree > room:
        raise Refused(f"the harness snapshot is {tree / MIB:.1f} MiB: over what a call carries beside the "
                      f"working tree ({room / MIB:.1f} MiB)")
    calls = []  # [folder name, bytes]
    with open(payload, "rb") as source:
        while data := source.read(chunk_bytes):
            name = f"c{len(calls):02d}"
            os.makedirs(os.path.join(carry, name))
            with open(os.path.join(carry, name, f"part.{len(calls):02d}"), "wb") as part:
                part.write(data)
            calls.append([name, len(data)])

    def place(relative, write, length):
        # first fit; the call that is last so far keeps room for the snapshot
        cap = lambda i: room - (tree if i == len(calls) - 1 else 0)
        index = next((i for i in range(len(calls)) if calls[i][1] + length <= cap(i)), None)
        if index is None:
            calls.append([f"c{len(calls):02d}", 0])
            index = len(calls) - 1
        target = os.path.join(carry, calls[index][0], relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write(target)
        calls[index][1] += length

    files = sorted(((os.path.relpath(os.path.join(r, f), extras), os.path.join(r, f))
                    for r, _, fs in os.walk(extras) for f in fs), key=lambda item: -os.path.getsize(item[1]))
    piece = room // 2
    for relative, path in files:
        length = os.path.getsize(path)
        if length <= piece:
            place(relative, lambda target, path=path: shutil.copy2(path, target), length)  # keeps tools' mode
            continue
        data = open(path, "rb").read()
        digest = hashlib.sha256(data).hexdigest().encode() + b"\n"
        place(relative + ".sha256", lambda target: open(target, "wb").write(digest), len(digest))
        for number, start in enumerate(range(0, length, piece)):
            part = data[start:start + piece]
            place(f"{relative}.part-{number:02d}", lambda target, part=part: open(target, "wb").write(part), len(part))
    if calls[-1][1] + tree > room:  # only when no extra opened a call after a full last chunk
        calls.append([f"c{len(calls):02d}", 0])
        os.makedirs(os.path.join(carry, calls[-1][0]))
    manifest = dict(manifest, calls=[name for name, _ in calls])
    text = json.dumps(manifest, indent=1)
    for target in [carry] + [os.path.join(carry, name) for name, _ in calls]:
        with open(os.path.join(target, "manifest.json"), "w") as f:
            f.write(text)
    return [(name, folder_bytes(os.path.join(carry, name)) + (tree if i == len(calls) - 1 else 0))
            for i, (name, _) in enumerate(calls)]


def plan(carry: str, root: str, prefix: str, excludes=()) -> int:
    manifest_path = os.path.join(carry, "manifest.json")
    if not os.path.isfile(manifest_path):
        raise Refused(f"no bundle in {carry} (run build-bundle.sh without --plan first)")
    m = json.load(open(manifest_path))
    names = [os.path.basename(c) for c in m["calls"][:-1] + m.get("release_calls", []) + m["calls"][-1:]]
    work = worktree(root, excludes)
    tree = folder_bytes(os.path.join(carry, "tree"))
    totals = [work + folder_bytes(os.path.join(carry, n)) + (tree if i == len(names) - 1 else 0)
              for i, n in enumerate(names)]
    over = [f"{prefix}/{n}: {t / MIB:.1f} MiB with the working tree ({work / MIB:.1f} MiB)"
            + (" and the snapshot" if i == len(names) - 1 else "")
            for i, (n, t) in enumerate(zip(names, totals)) if t > CALL_LIMIT]
    if work + tree > CALL_LIMIT:
        over.append(f"{prefix}/tree: {(work + tree) / MIB:.1f} MiB with the working tree, in every run call")
    if over:
        print(f"build-bundle: over the {CALL_LIMIT // MIB} MiB a call carries; rebuild (the chunks follow the tree):"
              "\n  " + "\n  ".join(over), file=sys.stderr)
        return 1
    print(f"bundle {m['payload_sha256'][:12]}: {m['payload_bytes'] / MIB:.0f} MiB payload in {len(names)} calls "
          f"(each with the working tree, {work / MIB:.1f} MiB); make them back to back (files outside the work "
          "tree survive only while the machine stays warm):")
    for i, (name, total) in enumerate(zip(names, totals)):
        carried = [f"{prefix}/{name}"]
        command = f"bash scripts/gpu/device.sh receive {prefix}/{name}"
        if i == len(names) - 1:
            carried.append(f"{prefix}/tree")
            command += f" && bash scripts/gpu/device.sh receive {prefix}/tree && bash scripts/gpu/device.sh setup"
        print(f"  run(carry={carried!r}, command={command!r})  # {total / MIB:.1f} MiB")
    print(f"then, warm: run(carry=['{prefix}/tree'], command='bash scripts/gpu/device.sh run NAME -- [PATHS] "
          f"--backend B ...')  # {(work + tree) / MIB:.1f} MiB (docs/gpu/README.md)")
    return 0


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="carry.py")
    sub = parser.add_subparsers(dest="verb", required=True)
    w = sub.add_parser("worktree")
    w.add_argument("root")
    w.add_argument("--exclude", action="append", default=[])
    c = sub.add_parser("chunk")
    c.add_argument("--worktree", type=int, required=True)
    c.add_argument("--chunk-mib", type=int)
    p = sub.add_parser("pack")
    p.add_argument("carry")
    for name in ("--payload", "--extras", "--manifest"):
        p.add_argument(name, required=True)
    for name in ("--worktree", "--chunk"):
        p.add_argument(name, type=int, required=True)
    pl = sub.add_parser("plan")
    pl.add_argument("carry")
    pl.add_argument("root")
    pl.add_argument("--prefix", required=True)
    pl.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args(argv)
    try:
        if args.verb == "worktree":
            print(worktree(args.root, args.exclude))
        elif args.verb == "chunk":
            print(chunk(args.worktree, args.chunk_mib))
        elif args.verb == "pack":
            calls = pack(args.carry, args.payload, args.extras, args.worktree, args.chunk, json.loads(args.manifest))
            for i, (name, size) in enumerate(calls):
                print(f"[gpu-bundle]     {name}: {size / MIB:.1f} MiB" + (" with the snapshot" if i == len(calls) - 1 else "")
                      + f", {(size + args.worktree) / MIB:.1f} MiB with the working tree")
        else:
            return plan(args.carry, args.root, args.prefix, args.exclude)
    except Refused as e:
        print(f"build-bundle: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
