#!/usr/bin/env bash
# Build the bundle the lent GPU machine needs to run the real DirectML (and WebGPU) there:
#
#   bash scripts/gpu/build-bundle.sh            build what is missing or stale (cached), then list the calls
#   bash scripts/gpu/build-bundle.sh --plan     only print the device-tool calls for the bundle in hand, each
#                                               checked against what a call carries (exit 1 when one is over)
#   bash scripts/gpu/build-bundle.sh --snapshot refresh only the harness snapshot carry/tree (the code the GPU runs use)
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
#      /opt/windows-harness/wheels; split into chunks, one per device-tool call;
#   2. tools/: the zstd binary with its libraries (never libc), to unpack there;
#   3. wheels/: the Linux wheels the harness lacks there (jsonschema and its dependencies, numba, llvmlite
#      and numpy for the compiled verification) and onnxruntime-webgpu (cp312) for the webgpu backend.
#   4. lib/: libEGL.so.1 (Debian's libegl1), which NVIDIA's Vulkan driver needs to start.
#   tools/, wheels/ and lib/ ride with the chunks where there is room, else in calls of their own.
# A call carries at most 64 MiB: the working tree and its folders together (scripts/gpu/carry.py sizes
# every call with all it carries; CHUNK_MIB=N asks for smaller chunks). The harness itself travels as
# the working tree and as the snapshot carry/tree, which also carries the project's wheel
# (windows-harness-wheel/), which `device.sh windows-setup` pip-installs there (no network to build it).
#
# Everything lands in the bundle folder, outside the tree: GPU_BUNDLE_DIR, by default one folder per
# checkout under /var/cache/dml-conformance-gpu (as root; else ~/.cache/dml-conformance-gpu). The tree
# only gets the link .bundle to it (ignored through .git/info/exclude), so that the device tool's carry
# paths (.bundle/carry/cNN) reach it; nothing else is written into the tree. A GPU_BUNDLE_DIR inside the
# tree is ignored there and never carried by the snapshot or counted as working tree.
#   cache/rootfs      the unpacked root (about 1 GB), rebuilt only when its recipe changes
#   cache/payload.*   the packed payload and its sha256
#   carry/cNN/        what call NN carries: a chunk and extras, manifest.json
#   carry/tree/       the harness snapshot: what git lists (tracked and untracked, not ignored) but docs/
# Needs root (debootstrap, chroot), the machine's Debian package source, and a git checkout (exit 2 in
# a plain copy: the snapshot and every call's size are what git lists); no mirror is named here.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../dml_wine/debian-source.sh
. "$ROOT/scripts/dml_wine/debian-source.sh"
# Nothing is written into the tree: no __pycache__ from the helpers run here.
export PYTHONDONTWRITEBYTECODE=1
CARRY_PY=$ROOT/scripts/gpu/carry.py
if [ -n "${GPU_BUNDLE_DIR:-}" ]; then
    BUNDLE=$(realpath -m "$GPU_BUNDLE_DIR")
else
    if [ "$(id -u)" = 0 ]; then BASE=/var/cache/dml-conformance-gpu; else BASE=${XDG_CACHE_HOME:-$HOME/.cache}/dml-conformance-gpu; fi
    BUNDLE=$BASE/$(basename "$ROOT")-$(printf '%s' "$ROOT" | sha256sum | cut -c1-8)
fi
# How the tree reaches the bundle: the link .bundle (a bundle outside the tree), or its own path.
case $BUNDLE/ in
    "$ROOT"/) echo "build-bundle: GPU_BUNDLE_DIR is the tree itself" >&2; exit 2 ;;
    "$ROOT"/*) IN_TREE=${BUNDLE#"$ROOT"/} ;;
    *) IN_TREE=.bundle ;;
esac
PREFIX=$IN_TREE/carry
CACHE=$BUNDLE/cache
ROOTFS=$CACHE/rootfs
CARRY=$BUNDLE/carry
LOGS=$CACHE/logs
SUITE=bookworm
ZSTD_LEVEL=${ZSTD_LEVEL:-19}
# The root: what Wine 8 needs to run a Windows program with Vulkan (vkd3d comes with libwine), and
# what checks the device. Installed with --no-install-recommends.
ROOT_PACKAGES="wine wine64 libwine xvfb xauth libvulkan1 vulkan-tools"
ROOT_RECIPE="format=4 suite=$SUITE packages=$ROOT_PACKAGES trim=docs,dri,llvm,z3 strip=pe-debug"
# Linux wheels for the GPU machine's Python 3.12 that its image lacks (name==version).
LINUX_WHEELS="jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==0.30.0"
# Distributed runs (conformance run --dask, conformance dask-worker: docs/many-machines.md): Dask's
# scheduler and workers with their dependencies, and cryptography for their TLS (resolved here for cp312).
DISTRIBUTED_WHEELS="dask==2026.8.0 distributed==2026.8.0 cloudpickle==3.1.3 msgpack==1.2.4 tornado==6.6.1
    toolz==1.2.0 psutil==7.2.2 zict==3.0.0 tblib==3.2.2 sortedcontainers==2.4.0 locket==1.0.0 partd==1.4.2
    fsspec==2026.9.0 click==8.5.1 packaging==26.4 importlib_metadata==10.2.0 zipp==4.1.2 lazy_importer==0.1.0
    cryptography==50.0.2 cffi==2.1.1 pycparser==3.12 jinja2==3.1.6 markupsafe==3.0.4"
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
        -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
        *) echo "build-bundle: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ -n "$RELEASES" ]; then
    python3 "$ROOT/conformance/backends/dml_releases.py" "$RELEASES" >/dev/null || { echo "build-bundle: --releases $RELEASES" >&2; exit 2; }
fi

say() { echo "[gpu-bundle] $*"; }
fail() { echo "build-bundle: FAILED: $*" >&2; exit 1; }

refuse() { echo "build-bundle: $*" >&2; exit 2; }

if [ "$MODE" = clean ]; then
    for m in "$ROOTFS/proc" "$ROOTFS/dev/pts" "$ROOTFS/dev" "$ROOTFS/sys"; do mountpoint -q "$m" && umount "$m"; done
    if [ -L "$ROOT/.bundle" ] && [ "$(readlink "$ROOT/.bundle")" = "$BUNDLE" ]; then rm "$ROOT/.bundle"; fi
    rm -rf "$BUNDLE"; say "removed $BUNDLE"; exit 0
fi

# What a call carries and what the snapshot holds is what git lists: a plain copy has no such list.
[ "$(git -C "$ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$(realpath "$ROOT")" ] \
    || refuse "$ROOT is not a git checkout: the harness snapshot and every call's size are what git lists (tracked and untracked files, not ignored); build the bundle in a checkout"
# The bundle never travels with the tree: ignored in this clone (the pattern has no trailing slash, so
# that it matches the link too), and left out of every listing below.
EXCLUDE=$(git -C "$ROOT" rev-parse --git-path info/exclude)
case $EXCLUDE in /*) ;; *) EXCLUDE=$ROOT/$EXCLUDE ;; esac
mkdir -p "$(dirname "$EXCLUDE")"
grep -qxF "/$IN_TREE" "$EXCLUDE" 2>/dev/null || echo "/$IN_TREE" >> "$EXCLUDE"
NOT_CARRIED=(--exclude "$IN_TREE")
link_bundle() {  # ROOT/.bundle -> the bundle, where the bundle is outside the tree
    [ "$IN_TREE" = .bundle ] && [ "$BUNDLE" != "$ROOT/.bundle" ] || return 0
    if [ -L "$ROOT/.bundle" ]; then
        [ "$(readlink "$ROOT/.bundle")" = "$BUNDLE" ] && return 0
        rm "$ROOT/.bundle"
    elif [ -e "$ROOT/.bundle" ]; then
        refuse "$ROOT/.bundle is a folder (a bundle built inside the tree): remove it (GPU_BUNDLE_DIR=$ROOT/.bundle bash scripts/gpu/build-bundle.sh --clean), or keep it with GPU_BUNDLE_DIR=$ROOT/.bundle"
    fi
    mkdir -p "$BUNDLE"
    ln -s "$BUNDLE" "$ROOT/.bundle"
}

plan() {
    [ -f "$CARRY/manifest.json" ] || fail "no bundle in $CARRY (run without --plan first)"
    link_bundle
    python3 "$CARRY_PY" plan "$CARRY" "$ROOT" --prefix "$PREFIX" "${NOT_CARRIED[@]}"
}
snapshot() {
    # The harness as it is now (tracked and untracked, not ignored), so that the GPU runs use the
    # code that was tested here, whatever others change in the working tree meanwhile; it travels
    # with the last chunk and with every run call (scripts/gpu/device.sh uses it when present).
    # docs/ stays behind (results and reports: megabytes the runs do not read; the working tree
    # brings them anyway).
    local tree=$CARRY/tree build
    [ -n "$CARRY" ] && [ -n "$CACHE" ] || fail "no bundle folder"
    link_bundle
    rm -rf "$tree"; mkdir -p "$tree" "$LOGS"
    (cd "$ROOT" && git ls-files -co --exclude-standard -z -- . ':(exclude)docs' ":(exclude)$IN_TREE" \
        | while IFS= read -r -d '' f; do if [ -f "$f" ]; then printf '%s\0' "$f"; fi; done \
        | xargs -0 -r cp --parents -t "$tree") || fail "copying the tree into $tree"
    python3 "$ROOT/scripts/gpu/snapshot_stamp.py" "$ROOT" "$tree" || fail "writing $tree/SNAPSHOT.json"
    # The project's wheel, built from the snapshot, for the Windows harness (device.sh windows-setup);
    # built in a copy outside the tree, since building writes build/ and *.egg-info beside the sources.
    build=$(mktemp -d "$CACHE/wheel-build.XXXXXX")
    cp -r "$tree/." "$build/"
    python3 -m pip wheel -q --disable-pip-version-check --no-deps "$build" -w "$tree/windows-harness-wheel" \
        >"$LOGS/project-wheel.log" 2>&1 || { rm -rf "$build"; fail "pip wheel of the project (see $LOGS/project-wheel.log)"; }
    rm -rf "$build"
    say "tree snapshot: $(du -sh "$tree" | cut -f1) in $tree (HEAD $(git -C "$ROOT" rev-parse --short HEAD))"
}
release_calls() {
    # The pinned files of the releases asked for (not the newest: the payload has its Python), from the
    # lane's downloads (fetched by setup-dml-wine.sh --releases where missing), packed whole into
    # folders rNN of at most a chunk each (CHUNK bytes), listed in the manifest as release_calls.
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
    python3 - "$CARRY" "$CHUNK" "${files[@]}" <<'EOF'
import json, os, shutil, sys
carry, limit, files = sys.argv[1], int(sys.argv[2]), sorted(set(sys.argv[3:]), key=os.path.getsize, reverse=True)
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
    calls.append(f"r{index:02d}")
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
# Each call carries the working tree too: the chunks leave room for it (carry.py; a grown tree, such
# as results in docs/, gives smaller chunks, and CHUNK_MIB more than there is room for is refused).
WORKTREE=$(python3 "$CARRY_PY" worktree "$ROOT" "${NOT_CARRIED[@]}") || exit $?
CHUNK=$(python3 "$CARRY_PY" chunk --worktree "$WORKTREE" ${CHUNK_MIB:+--chunk-mib "$CHUNK_MIB"}) || exit $?
mkdir -p "$CACHE" "$LOGS"
link_bundle

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
# setup-windows-harness.sh wants a Python that imports the harness, and makes .venv in the tree when
# it finds none: give it one, the checkout's or this machine's, else a virtual environment in the
# cache with the harness's dependencies (the harness itself comes from this tree, through PYTHONPATH).
harness_python() {
    local py
    for py in "${PYTHON:-}" "$ROOT/.venv/bin/python" python3 "$CACHE/venv/bin/python"; do
        if [ -n "$py" ] && PYTHONPATH=$ROOT "$py" -c "import conformance.cli.windows_harness" >/dev/null 2>&1; then
            echo "$py"; return
        fi
    done
    rm -rf "$CACHE/venv"
    python3 -m venv "$CACHE/venv" >"$LOGS/venv.log" 2>&1 || fail "python3 -m venv $CACHE/venv (see $LOGS/venv.log)"
    python3 -c "import tomllib, sys; print('\n'.join(tomllib.load(open(sys.argv[1], 'rb'))['project']['dependencies']))" \
        "$ROOT/pyproject.toml" > "$CACHE/venv/requirements.txt" || fail "reading the dependencies in pyproject.toml"
    "$CACHE/venv/bin/python" -m pip install -q --disable-pip-version-check -r "$CACHE/venv/requirements.txt" \
        >>"$LOGS/venv.log" 2>&1 || fail "the harness's dependencies in $CACHE/venv (see $LOGS/venv.log)"
    echo "$CACHE/venv/bin/python"
}
HARNESS_PYTHON=$(harness_python)
PYTHON=$HARNESS_PYTHON PYTHONPATH=$ROOT DML_WINE_HOME=$LANE_HOME bash "$ROOT/scripts/setup-windows-harness.sh" --download >"$LOGS/windows-wheels.log" 2>&1 \
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
say "4/4 carry folders: chunks of $(( CHUNK >> 20 )) MiB (the working tree is $(( WORKTREE >> 20 )) MiB), tools and wheels"
EXTRAS=$CACHE/extras
rm -rf "$CARRY" "$EXTRAS"; mkdir -p "$CARRY" "$EXTRAS/tools" "$EXTRAS/wheels"
# zstd and the libraries it links, except glibc's own (the host's glibc is newer).
cp "$(command -v zstd)" "$EXTRAS/tools/"
ldd "$(command -v zstd)" | awk '/=>/ {print $3}' | while read -r lib; do
    case $(basename "$lib") in libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*) continue ;; esac
    cp -L "$lib" "$EXTRAS/tools/"
done
# Wheels for the GPU machine's CPython 3.12 (manylinux, x86_64): no dependencies are resolved there.
PIP=${PIP:-python3 -m pip}
WHEEL_CACHE=$CACHE/wheels
mkdir -p "$WHEEL_CACHE"
for spec in $LINUX_WHEELS $DISTRIBUTED_WHEELS $JIT_WHEELS $WEBGPU_WHEEL; do
    name=${spec%%==*}; version=${spec##*==}
    pattern="$(echo "$name" | tr '-' '_')-$version-"
    if ! ls "$WHEEL_CACHE"/"$pattern"*.whl >/dev/null 2>&1; then
        $PIP download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
            --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
            --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
            -d "$WHEEL_CACHE" "$spec" >"$LOGS/pip-$name.log" 2>&1 || fail "pip download $spec (see $LOGS/pip-$name.log)"
    fi
    cp "$WHEEL_CACHE"/"$pattern"*.whl "$EXTRAS/wheels/"
done
# The GLVND EGL library: NVIDIA's Vulkan driver (libGLX_nvidia.so.0) loads libEGL.so.1 while it
# starts, and the GPU machine has none (without it vkCreateInstance finds no driver). From
# Debian's libegl1, the root's own release; it travels beside the root, not in it.
mkdir -p "$EXTRAS/lib" "$CACHE/debs"
if ! ls "$CACHE"/debs/libegl1_*.deb >/dev/null 2>&1; then
    (cd "$CACHE/debs" && apt-get download libegl1 >"$LOGS/apt-download.log" 2>&1) || fail "apt-get download libegl1"
fi
rm -rf "$CACHE/debs/x"; dpkg-deb -x "$CACHE"/debs/libegl1_*.deb "$CACHE/debs/x"
cp -a "$CACHE"/debs/x/usr/lib/x86_64-linux-gnu/libEGL.so.1* "$EXTRAS/lib/"
# The harness snapshot first: the last call carries it, so its size is part of that call's.
snapshot
# The chunks, and the extras where there is room (else in calls of their own; a file over half a call
# goes in parts NAME.part-NN, which device.sh setup joins and checks against NAME.sha256). Every call
# is sized with all it carries: the working tree, and the snapshot for the last (scripts/gpu/carry.py).
MANIFEST=$(python3 -c '
import json, os, sys
payload, digest, key, packages = sys.argv[1:]
wanted = dict(line.split()[:2] for line in open(packages) if line.strip())
print(json.dumps({"payload": os.path.basename(payload), "payload_sha256": digest, "payload_bytes": os.path.getsize(payload),
                  "key": key, "root_versions": {p: wanted.get(p) for p in ("wine", "wine64", "libwine", "xvfb",
                                                                          "libvulkan1", "vulkan-tools", "libc6")}}))
' "$PAYLOAD" "$(cat "$PAYLOAD.sha256")" "$KEY" "$CACHE/root-packages.txt") || fail "the manifest"
python3 "$CARRY_PY" pack "$CARRY" --payload "$PAYLOAD" --extras "$EXTRAS" --worktree "$WORKTREE" \
    --chunk "$CHUNK" --manifest "$MANIFEST" || exit $?
rm -rf "$EXTRAS"
[ -z "$RELEASES" ] || release_calls "$RELEASES"
plan
