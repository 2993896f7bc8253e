#!/usr/bin/env bash
# Build the bundle the lent GPU machine needs to run the real DirectML (and WebGPU) there:
#
#   bash scripts/gpu/build-bundle.sh            build what is missing or stale (cached), then list the calls
#   bash scripts/gpu/build-bundle.sh --plan     only print the device-tool calls for the bundle in hand
#   bash scripts/gpu/build-bundle.sh --snapshot refresh only .bundle/carry/tree (the code the GPU runs use)
#   bash scripts/gpu/build-bundle.sh --clean    remove the bundle and its caches
#   ... --releases all|VERSION[,VERSION...]     also carry other onnxruntime-directml releases (their
#                                               pinned files, conformance/backends/dml_releases.tsv) in calls
#                                               rNN of their own; device.sh setup builds and checks them
#
# The GPU machine has Python 3.12 with numpy, onnx, pyyaml, tabulate and onnxruntime (CPU), no
# Wine, no X server, no zstd and no network. What travels (docs/gpu/README.md says why):
#   1. payload.tar.zst: a Debian 12 root file system made with debootstrap (Wine 8, Xvfb, xauth,
#      the Vulkan loader and vulkaninfo), with the dml-wine lane's Windows CPython (the newest
#      release of conformance/backends/dml_releases.tsv) at /opt/py inside it, and the Windows harness's pinned
#      win_amd64 wheels (scripts/windows_harness/requirements.txt, about 100 MB) at
#      /opt/windows-harness/wheels; split into chunks of CHUNK_MIB, one per device-tool call (a call
#      carries at most 64 MiB with the working tree);
#   2. tools/: the zstd binary with its libraries (never libc), to unpack there;
#   3. wheels/: the Linux wheels the harness lacks there (jsonschema and its dependencies) and
#      onnxruntime-webgpu (cp312) for the webgpu backend.
#   4. lib/: libEGL.so.1 (Debian's libegl1), which NVIDIA's Vulkan driver needs to start.
#   tools/, wheels/ and lib/ ride with the last chunk, or in a call of their own.
# The harness itself travels as the working tree: every device call carries the current code; the
# tree snapshot also carries the project's wheel (windows-harness-wheel/), which `device.sh
# windows-setup` pip-installs with those wheels into a Windows Python there (no network to build it).
#
# Everything lands in .bundle/ (ignored through .git/info/exclude, never committed):
#   .bundle/cache/rootfs      the unpacked root (about 1 GB), rebuilt only when its recipe changes
#   .bundle/cache/payload.*   the packed payload and its sha256
#   .bundle/carry/cNN/        what call NN carries: a chunk (and tools/, wheels/), manifest.json
#   .bundle/carry/manifest.json
# Needs root (debootstrap, chroot) and the machine's Debian package source; no mirror is named here.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../dml_wine/debian-source.sh
. "$ROOT/scripts/dml_wine/debian-source.sh"
BUNDLE=${GPU_BUNDLE_DIR:-$ROOT/.bundle}
CACHE=$BUNDLE/cache
ROOTFS=$CACHE/rootfs
CARRY=$BUNDLE/carry
LOGS=$CACHE/logs
SUITE=bookworm
# Each call carries the working tree too (tracked and untracked, not ignored): the chunks leave room
# for it (64 MiB a call, 4 MiB to spare), so a grown tree (results in docs/) gives smaller chunks.
WORKTREE_MIB=$(cd "$ROOT" && { git ls-files -co --exclude-standard -z 2>/dev/null || true; } \
               | { xargs -0 -r stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print int(s / 1048576) + 1}')
CHUNK_MIB=${CHUNK_MIB:-$(( 60 - ${WORKTREE_MIB:-4} ))}
ZSTD_LEVEL=${ZSTD_LEVEL:-19}
# The root: what Wine 8 needs to run a Windows program with Vulkan (vkd3d comes with libwine), and
# what checks the device. Installed with --no-install-recommends.
ROOT_PACKAGES="wine wine64 libwine xvfb xauth libvulkan1 vulkan-tools"
ROOT_RECIPE="format=4 suite=$SUITE packages=$ROOT_PACKAGES trim=docs,dri,llvm,z3 strip=pe-debug"
# Linux wheels for the GPU machine's Python 3.12 that its image lacks (name==version).
LINUX_WHEELS="jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==0.30.0"
WEBGPU_PIN=$(sed -n 's/^PIN = "\([^"]*\)".*/\1/p' "$ROOT/conformance/backends/webgpu.py")  # the backend's pin
WEBGPU_WHEEL=${WEBGPU_WHEEL:-onnxruntime-webgpu==$WEBGPU_PIN}
# shellcheck source=../dml_wine/releases.sh
. "$ROOT/scripts/dml_wine/releases.sh"
WIN_PYTHON_STAMP=$(python_stamp "$(newest_release)")
WIN_HARNESS_LOCK=$ROOT/scripts/windows_harness/requirements.txt
# The compiled verification (conformance/judge/fast_kernels_jit.py and the failing-element passes): numba
# and llvmlite at the Windows harness's pins, with the numpy they are tested with here (the image's
# numpy is newer than numba supports). llvmlite's wheel (57 MiB) is over what one call carries beside
# the tree: wheels too large for a call travel in parts that `device.sh setup` joins.
pin() { grep -o "^$1==[^ ]*" "$WIN_HARNESS_LOCK" | cut -d= -f3; }
JIT_WHEELS="numba==$(pin numba) llvmlite==$(pin llvmlite) numpy==${JIT_NUMPY:-2.4.6}"

MODE=build
RELEASES=""
while [ $# -gt 0 ]; do
    case $1 in
        --plan) MODE=plan ;;
        --snapshot) MODE=snapshot ;;
        --clean) MODE=clean ;;
        --releases)
            [ $# -ge 2 ] || { echo "build-bundle: --releases needs all or VERSION[,VERSION...]" >&2; exit 2; }
            RELEASES=$2; shift ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "build-bundle: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ -n "$RELEASES" ]; then
    python3 "$ROOT/conformance/backends/dml_releases.py" "$RELEASES" >/dev/null || { echo "build-bundle: --releases $RELEASES" >&2; exit 2; }
fi

say() { echo "[gpu-bundle] $*"; }
fail() { echo "build-bundle: FAILED: $*" >&2; exit 1; }

if [ "$MODE" = clean ]; then
    for m in "$ROOTFS/proc" "$ROOTFS/dev/pts" "$ROOTFS/dev" "$ROOTFS/sys"; do mountpoint -q "$m" && umount "$m"; done
    rm -rf "$BUNDLE"; say "removed $BUNDLE"; exit 0
fi

plan() {
    [ -f "$CARRY/manifest.json" ] || fail "no bundle in $CARRY (run without --plan first)"
    python3 - "$CARRY/manifest.json" "$ROOT" <<'EOF'
import json, os, subprocess, sys
m = json.load(open(sys.argv[1]))
calls = m["calls"][:-1] + m.get("release_calls", []) + m["calls"][-1:]  # the setup comes with the last chunk
root, carry = sys.argv[2], os.path.dirname(sys.argv[1])
try:
    listed = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"], capture_output=True).stdout
except OSError:  # no git: a tree that is not a checkout carries nothing of its own
    listed = b""
work = sum(os.path.getsize(os.path.join(root, f)) for f in listed.decode().split("\0") if f and os.path.isfile(os.path.join(root, f)))
size = lambda d: sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
tree = size(os.path.join(carry, "tree"))
over = []
for i, call in enumerate(calls):
    total = work + size(os.path.join(carry, os.path.basename(call))) + (tree if i == len(calls) - 1 else 0)
    if total > 64 * 2**20:
        over.append(f"{call}: {total / 2**20:.1f} MiB with the working tree ({work / 2**20:.1f} MiB)")
if over:
    sys.exit("build-bundle: over the 64 MiB a call carries; rebuild (smaller chunks follow the tree):\n  "
             + "\n  ".join(over))
print(f"bundle {m['payload_sha256'][:12]}: {m['payload_bytes'] / 2**20:.0f} MiB payload in {len(calls)} calls; "
      "make them back to back (files outside the work tree survive only while the machine stays warm):")
for i, call in enumerate(calls):
    last = i == len(calls) - 1
    cmd = f"bash scripts/gpu/device.sh receive {call}" + (" && bash scripts/gpu/device.sh setup" if last else "")
    carry = [call] + ([".bundle/carry/tree"] if last else [])
    cmd = cmd.replace(" && bash scripts/gpu/device.sh setup", " && bash scripts/gpu/device.sh receive .bundle/carry/tree && bash scripts/gpu/device.sh setup") if last else cmd
    print(f"  run(carry={carry!r}, command={cmd!r})")
print("then, warm: run(carry=['.bundle/carry/tree'], command='bash scripts/gpu/device.sh run NAME -- [PATHS] "
      "--backend B ...')  (docs/gpu/README.md)")
EOF
}
snapshot() {
    # The harness as it is now (tracked and untracked, not ignored), so that the GPU runs use the
    # code that was tested here, whatever others change in the working tree meanwhile; it travels
    # with the last chunk and with every run call (scripts/gpu/device.sh uses it when present).
    local tree=$CARRY/tree
    rm -rf "$tree"; mkdir -p "$tree"
    # docs/ stays behind (results and reports: megabytes the runs do not read; the working tree
    # brings them anyway).
    (cd "$ROOT" && git ls-files -co --exclude-standard -z -- . ':!docs' | xargs -0 cp --parents -t "$tree" 2>/dev/null) || true
    python3 - "$ROOT" "$tree" <<'EOF'
import json, subprocess, sys, time
root, tree = sys.argv[1:]
git = lambda *a: subprocess.run(["git", "-C", root, *a], capture_output=True, text=True).stdout.strip()
json.dump({"head": git("rev-parse", "HEAD"), "dirty": git("status", "--porcelain").splitlines(),
           "taken": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, open(f"{tree}/SNAPSHOT.json", "w"), indent=1)
EOF
    # The project's wheel, built from the same tree, for the Windows harness (device.sh windows-setup).
    mkdir -p "$LOGS"
    python3 -m pip wheel -q --disable-pip-version-check --no-deps "$ROOT" -w "$tree/windows-harness-wheel" \
        >"$LOGS/project-wheel.log" 2>&1 || fail "pip wheel of the project (see $LOGS/project-wheel.log)"
    say "tree snapshot: $(du -sh "$tree" | cut -f1) in $tree (HEAD $(git -C "$ROOT" rev-parse --short HEAD))"
}
release_calls() {
    # The pinned files of the releases asked for (not the newest: the payload has its Python), from the
    # lane's downloads (fetched by setup-dml-wine.sh --releases where missing), packed whole into
    # folders rNN of at most CHUNK_MIB each, listed in the manifest as release_calls.
    local ort name version file sha files=()
    DOWNLOADS=$LANE_HOME/downloads
    for ort in $(python3 "$ROOT/conformance/backends/dml_releases.py" "$1"); do
        [ "$ort" = "$(newest_release)" ] && continue
        if ! cached "$ort"; then
            DML_WINE_HOME=$LANE_HOME bash "$ROOT/scripts/setup-dml-wine.sh" --releases "$ort" \
                || fail "scripts/setup-dml-wine.sh --releases $ort"
        fi
        while IFS=$'\t' read -r name version file sha; do files+=("$DOWNLOADS/$file"); done < <(release_files "$ort")
    done
    [ ${#files[@]} -gt 0 ] || { say "releases: nothing to carry besides the newest"; return; }
    python3 - "$CARRY" "$CHUNK_MIB" "${files[@]}" <<'EOF'
import json, os, shutil, sys
carry, limit, files = sys.argv[1], int(sys.argv[2]) << 20, sorted(set(sys.argv[3:]), key=os.path.getsize, reverse=True)
bins = []  # first fit, largest first: [bytes, [files]]
for path in files:
    size = os.path.getsize(path)
    if size > limit:
        sys.exit(f"build-bundle: {path} ({size / 2**20:.1f} MiB) is over what one call carries beside the tree "
                 f"({limit >> 20} MiB)")
    fit = next((b for b in bins if b[0] + size <= limit), None)
    if fit is None:
        bins.append(fit := [0, []])
    fit[0] += size
    fit[1].append(path)
calls = []
for index, (size, group) in enumerate(bins):
    folder = os.path.join(carry, f"r{index:02d}")
    os.makedirs(folder)
    for path in group:
        shutil.copyfile(path, os.path.join(folder, os.path.basename(path)))
    calls.append(f".bundle/carry/r{index:02d}")
    print(f"[gpu-bundle]     r{index:02d}: {size / 2**20:.0f} MiB, {', '.join(os.path.basename(p) for p in group)}")
manifest_path = os.path.join(carry, "manifest.json")
manifest = json.load(open(manifest_path))
manifest["release_calls"] = calls
json.dump(manifest, open(manifest_path, "w"), indent=1)
EOF
}
if [ "$MODE" = plan ]; then plan; exit 0; fi
if [ "$MODE" = snapshot ]; then snapshot; exit 0; fi

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap and chroot)"
mkdir -p "$CACHE" "$LOGS"
# The bundle must never be committed, nor travel unasked: ignore it in this clone.
EXCLUDE=$(git -C "$ROOT" rev-parse --git-path info/exclude 2>/dev/null || true)
if [ -n "$EXCLUDE" ]; then
    case $EXCLUDE in /*) ;; *) EXCLUDE=$ROOT/$EXCLUDE ;; esac
    mkdir -p "$(dirname "$EXCLUDE")"
    grep -qxF "/.bundle/" "$EXCLUDE" 2>/dev/null || echo "/.bundle/" >> "$EXCLUDE"
fi

need() {  # need COMMAND PACKAGE
    command -v "$1" >/dev/null 2>&1 && return
    say "installing $2"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >"$LOGS/apt-$2.log" 2>&1 \
        || { apt-get update -q >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
             --no-install-recommends "$2" >"$LOGS/apt-$2.log" 2>&1; } || fail "apt-get install $2 (see $LOGS/apt-$2.log)"
}
need debootstrap debootstrap
need zstd zstd
need strip binutils

debian_uri() {  # the machine's own Debian source for $SUITE (the same rule as setup-dml-wine.sh)
    local uri
    uri=$(debian_source_uri "$SUITE")
    [ -n "$uri" ] || fail "found no Debian source for $SUITE on this machine"
    echo "$uri"
}

# ---- 1. the root file system ---------------------------------------------------------------------
if [ -f "$ROOTFS/.gpu-bundle" ] && [ "$(cat "$ROOTFS/.gpu-bundle")" = "$ROOT_RECIPE" ]; then
    say "1/4 root file system: cached ($ROOTFS)"
else
    say "1/4 root file system: debootstrap $SUITE (minbase) + $ROOT_PACKAGES"
    started=$(date +%s)
    for m in "$ROOTFS/proc" "$ROOTFS/dev/pts" "$ROOTFS/dev" "$ROOTFS/sys"; do mountpoint -q "$m" && umount "$m"; done
    rm -rf "$ROOTFS"
    URI=$(debian_uri)
    debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$URI" >"$LOGS/debootstrap.log" 2>&1 \
        || fail "debootstrap (see $LOGS/debootstrap.log)"
    echo "deb $URI $SUITE main" > "$ROOTFS/etc/apt/sources.list"
    mount -t proc proc "$ROOTFS/proc"
    trap 'umount "$ROOTFS/proc" 2>/dev/null || true' EXIT
    chroot "$ROOTFS" /bin/bash -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -q && \
        apt-get install -y -q --no-install-recommends $ROOT_PACKAGES" >"$LOGS/apt-root.log" 2>&1 \
        || fail "installing $ROOT_PACKAGES in the root (see $LOGS/apt-root.log)"
    chroot "$ROOTFS" dpkg-query -W -f='${Package} ${Version}\n' > "$CACHE/root-packages.txt"
    umount "$ROOTFS/proc"; trap - EXIT
    # Trim what no run uses: documentation, apt's caches, and Mesa's OpenGL drivers with LLVM
    # (Xvfb is started with -extension GLX; Wine's Vulkan path needs no GLX; the GPU's own
    # Vulkan driver comes from the host).
    rm -rf "$ROOTFS"/usr/share/{doc,man,info,lintian,bug} "$ROOTFS"/var/cache/apt/*.bin \
        "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/log/*
    find "$ROOTFS/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'C*' -exec rm -rf {} + 2>/dev/null || true
    rm -rf "$ROOTFS"/usr/lib/x86_64-linux-gnu/dri "$ROOTFS"/usr/lib/x86_64-linux-gnu/libLLVM* \
        "$ROOTFS"/usr/lib/x86_64-linux-gnu/libgallium* "$ROOTFS"/usr/lib/x86_64-linux-gnu/libz3.so* \
        "$ROOTFS"/usr/share/vulkan/icd.d/*
    # Wine's Windows DLLs ship with their debug sections (640 MB); without them about 150 MB. strip
    # keeps the DOS header, where "Wine builtin DLL" marks them as Wine's own.
    find "$ROOTFS/usr/lib/x86_64-linux-gnu/wine" -type f \( -name '*.dll' -o -name '*.exe' -o -name '*.drv' \
        -o -name '*.sys' -o -name '*.ocx' -o -name '*.cpl' -o -name '*.acm' -o -name '*.ax' -o -name '*.tlb' \
        -o -name '*.ds' -o -name '*.msstyles' \) -print0 \
        | xargs -0 -r -n 64 strip --strip-debug 2>>"$LOGS/strip.log" || true
    for dll in "$ROOTFS/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/"*.dll; do
        head -c 80 "$dll" | tail -c 16 | grep -q "Wine builtin DLL" || fail "strip lost the builtin marker of $dll"
        break
    done
    echo "$ROOT_RECIPE" > "$ROOTFS/.gpu-bundle"
    say "    ok ($(( $(date +%s) - started )) s): $(du -sh "$ROOTFS" | cut -f1), $(wc -l < "$CACHE/root-packages.txt") packages"
fi

# ---- 2. the Windows Python: the dml-wine lane's provisioned folder ------------------------------
LANE_HOME=${DML_WINE_HOME:-/var/cache/dml-conformance}
WINPY=$LANE_HOME/python
if [ ! -f "$WINPY/.dml-conformance" ] || [ "$(cat "$WINPY/.dml-conformance")" != "$WIN_PYTHON_STAMP" ]; then
    say "2/4 Windows Python: not provisioned in $WINPY; running scripts/setup-dml-wine.sh"
    DML_WINE_HOME=$LANE_HOME bash "$ROOT/scripts/setup-dml-wine.sh" || fail "scripts/setup-dml-wine.sh"
fi
[ "$(cat "$WINPY/.dml-conformance")" = "$WIN_PYTHON_STAMP" ] || fail "$WINPY is not the pinned Windows Python"
say "2/4 Windows Python: $WINPY ($WIN_PYTHON_STAMP)"
WIN_WHEELS=$LANE_HOME/windows-harness/wheels
DML_WINE_HOME=$LANE_HOME bash "$ROOT/scripts/setup-windows-harness.sh" --download >"$LOGS/windows-wheels.log" 2>&1 \
    || fail "the Windows harness's wheels (see $LOGS/windows-wheels.log)"
say "2/4 Windows harness wheels: $(ls "$WIN_WHEELS" | wc -l) in $WIN_WHEELS ($(du -sh "$WIN_WHEELS" | cut -f1))"

# ---- 3. the payload: root + Windows Python, zstd, in chunks -------------------------------------
KEY=$( { echo "$ROOT_RECIPE"; cat "$CACHE/root-packages.txt"; echo "$WIN_PYTHON_STAMP"; cat "$WIN_HARNESS_LOCK"
         echo "zstd=$ZSTD_LEVEL"; } \
       | sha256sum | cut -c1-16)
PAYLOAD=$CACHE/payload-$KEY.tar.zst
if [ -f "$PAYLOAD" ] && [ -f "$PAYLOAD.sha256" ]; then
    say "3/4 payload: cached ($(du -h "$PAYLOAD" | cut -f1), key $KEY)"
else
    say "3/4 payload: packing root + Windows Python + Windows harness wheels (zstd -$ZSTD_LEVEL; minutes on 2 cores)"
    started=$(date +%s)
    rm -f "$CACHE"/payload-*.tar.zst "$CACHE"/payload-*.sha256
    # Sorted names and fixed owners; the root goes in as root/, the Windows Python as root/opt/py/
    # (S: symbolic links' targets are left as they are).
    TMP_TAR=$CACHE/payload.tar
    rm -f "$TMP_TAR"
    tar --sort=name --owner=0 --group=0 --numeric-owner --exclude='./proc/*' --exclude='./sys/*' \
        --exclude='./dev/*' --transform 's,^\.,root,S' -C "$ROOTFS" -cf "$TMP_TAR" . 2>>"$LOGS/tar.log" \
        || fail "tar of the root (see $LOGS/tar.log)"
    tar --sort=name --owner=0 --group=0 --numeric-owner --transform 's,^\.,root/opt/py,S' \
        -C "$WINPY" -rf "$TMP_TAR" . 2>>"$LOGS/tar.log" || fail "tar of the Windows Python (see $LOGS/tar.log)"
    # Only the pinned wheels (the folder may hold others from earlier locks).
    (cd "$WIN_WHEELS" && grep -v '^#' "$WIN_HARNESS_LOCK" | while read -r spec _; do
        ls "$(echo "${spec%%==*}" | tr '-' '_')-${spec##*==}"-*.whl; done) > "$CACHE/windows-wheels.list" \
        || fail "a pinned Windows wheel is missing in $WIN_WHEELS"
    tar --sort=name --owner=0 --group=0 --numeric-owner --transform 's,^,root/opt/windows-harness/wheels/,S' \
        -C "$WIN_WHEELS" -rf "$TMP_TAR" -T "$CACHE/windows-wheels.list" 2>>"$LOGS/tar.log" \
        || fail "tar of the Windows harness's wheels (see $LOGS/tar.log)"
    zstd -q -"$ZSTD_LEVEL" -T0 --long=27 "$TMP_TAR" -o "$PAYLOAD.tmp" || fail "zstd"
    rm -f "$TMP_TAR"
    mv "$PAYLOAD.tmp" "$PAYLOAD"
    sha256sum "$PAYLOAD" | cut -c1-64 > "$PAYLOAD.sha256"
    say "    ok ($(( $(date +%s) - started )) s): $(du -h "$PAYLOAD" | cut -f1)"
fi

# ---- 4. what each call carries ----------------------------------------------------------------------
say "4/4 carry folders: chunks of $CHUNK_MIB MiB, tools and wheels"
rm -rf "$CARRY"; mkdir -p "$CARRY/extras/tools" "$CARRY/extras/wheels"
split -b "${CHUNK_MIB}M" -d -a 2 "$PAYLOAD" "$CARRY/part."
for part in "$CARRY"/part.*; do
    n=${part##*.}; mkdir -p "$CARRY/c$n"; mv "$part" "$CARRY/c$n/"
done
# zstd and the libraries it links, except glibc's own (the host's glibc is newer).
cp "$(command -v zstd)" "$CARRY/extras/tools/"
ldd "$(command -v zstd)" | awk '/=>/ {print $3}' | while read -r lib; do
    case $(basename "$lib") in libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*) continue ;; esac
    cp -L "$lib" "$CARRY/extras/tools/"
done
# Wheels for the GPU machine's CPython 3.12 (manylinux, x86_64): no dependencies are resolved there.
PIP=${PIP:-python3 -m pip}
WHEEL_CACHE=$CACHE/wheels
mkdir -p "$WHEEL_CACHE"
for spec in $LINUX_WHEELS $JIT_WHEELS $WEBGPU_WHEEL; do
    name=${spec%%==*}; version=${spec##*==}
    pattern="$(echo "$name" | tr '-' '_')-$version-"
    if ! ls "$WHEEL_CACHE"/"$pattern"*.whl >/dev/null 2>&1; then
        $PIP download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
            --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
            --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
            -d "$WHEEL_CACHE" "$spec" >"$LOGS/pip-$name.log" 2>&1 || fail "pip download $spec (see $LOGS/pip-$name.log)"
    fi
    cp "$WHEEL_CACHE"/"$pattern"*.whl "$CARRY/extras/wheels/"
done
# The GLVND EGL library: NVIDIA's Vulkan driver (libGLX_nvidia.so.0) loads libEGL.so.1 while it
# starts, and the GPU machine has none (without it vkCreateInstance finds no driver). From
# Debian's libegl1, the root's own release; it travels beside the root, not in it.
mkdir -p "$CARRY/extras/lib" "$CACHE/debs"
if ! ls "$CACHE"/debs/libegl1_*.deb >/dev/null 2>&1; then
    (cd "$CACHE/debs" && apt-get download libegl1 >"$LOGS/apt-download.log" 2>&1) || fail "apt-get download libegl1"
fi
rm -rf "$CACHE/debs/x"; dpkg-deb -x "$CACHE"/debs/libegl1_*.deb "$CACHE/debs/x"
cp -a "$CACHE"/debs/x/usr/lib/x86_64-linux-gnu/libEGL.so.1* "$CARRY/extras/lib/"
# The extras ride with the last chunk where they fit, else in calls of their own; a file over what a
# call carries goes in parts NAME.part-NN (device.sh setup joins them and checks NAME.sha256). All
# receives come before the setup, so the order does not matter.
python3 - "$CARRY" "$(( (60 - ${WORKTREE_MIB:-4}) * 1048576 ))" <<'EOF' || fail "placing the extras"
import hashlib, os, shutil, sys
carry, limit = sys.argv[1], int(sys.argv[2])
extras = os.path.join(carry, "extras")
last = sorted(d for d in os.listdir(carry) if d[:1] == "c" and d[1:].isdigit())[-1]
size = lambda d: sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
calls = [[os.path.join(carry, last), size(os.path.join(carry, last))]]


def place(relative, source, length):
    call = next((c for c in calls if c[1] + length <= limit), None)
    if call is None:
        call = [os.path.join(carry, f"c{int(os.path.basename(calls[-1][0])[1:]) + 1:02d}"), 0]
        calls.append(call)
    target = os.path.join(call[0], relative)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if isinstance(source, bytes):
        open(target, "wb").write(source)
    else:
        shutil.copy2(source, target)  # keeps the mode: tools/ are programs
    call[1] += length


files = sorted(((os.path.relpath(os.path.join(r, f), extras), os.path.join(r, f))
                for r, _, fs in os.walk(extras) for f in fs), key=lambda item: -os.path.getsize(item[1]))
for relative, path in files:
    length = os.path.getsize(path)
    if length <= limit // 2:
        place(relative, path, length)
        continue
    data = open(path, "rb").read()
    place(relative + ".sha256", hashlib.sha256(data).hexdigest().encode() + b"\n", 65)
    piece = limit // 2
    for number, start in enumerate(range(0, length, piece)):
        place(f"{relative}.part-{number:02d}", data[start:start + piece], min(piece, length - start))
for call, used in calls:
    print(f"[gpu-bundle]     {os.path.basename(call)}: {used / 2**20:.0f} MiB")
EOF
rm -rf "$CARRY/extras"
python3 - "$CARRY" "$PAYLOAD" "$(cat "$PAYLOAD.sha256")" "$KEY" "$CACHE/root-packages.txt" <<'EOF'
import json, os, sys
carry, payload, digest, key, packages = sys.argv[1:]
calls = sorted(d for d in os.listdir(carry) if d.startswith("c") and os.path.isdir(os.path.join(carry, d)))
sizes = {c: sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(os.path.join(carry, c)) for f in fs)
         for c in calls}
wanted = {line.split()[0]: line.split()[1] for line in open(packages) if line.strip()}
manifest = {"payload": os.path.basename(payload), "payload_sha256": digest, "payload_bytes": os.path.getsize(payload),
            "key": key, "calls": [f".bundle/carry/{c}" for c in calls], "call_bytes": sizes,
            "root_versions": {p: wanted.get(p) for p in ("wine", "wine64", "libwine", "xvfb",
                                                         "libvulkan1", "vulkan-tools", "libc6")}}
json.dump(manifest, open(os.path.join(carry, "manifest.json"), "w"), indent=1)
for c in calls:
    if sizes[c] > 62 * 2**20:
        sys.exit(f"build-bundle: {c} is {sizes[c] / 2**20:.1f} MiB: over what one call may carry with the tree")
EOF
for c in "$CARRY"/c*; do cp "$CARRY/manifest.json" "$c/manifest.json"; done
for c in "$CARRY"/c*; do say "    $(basename "$c"): $(du -sh "$c" | cut -f1)"; done
[ -z "$RELEASES" ] || release_calls "$RELEASES"
snapshot
plan
