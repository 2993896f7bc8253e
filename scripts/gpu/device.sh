#!/usr/bin/env bash
# On the lent GPU machine (through the device tool), from the repository root of the carried tree:
#
#   bash scripts/gpu/device.sh receive .bundle/carry/cNN   keep one carried chunk in /tmp/gpu (outside the
#                                                          tree: it survives while the machine stays warm);
#                                                          rNN: release files (build-bundle.sh --releases)
#   bash scripts/gpu/device.sh setup                       check and unpack the bundle, make the Wine prefix,
#                                                          prove the GPU, write the lane marker, build and check
#                                                          the Windows Python of each release received (idempotent)
#   bash scripts/gpu/device.sh releases [VERSION ...]      for each release (default: every one set up), `run`
#                                                          the default cases and the float16 sweeps through
#                                                          dml-direct and dml-wine: $OUT/{cases,f16-sweeps}-B-V.*
#   bash scripts/gpu/device.sh windows-setup               pip-install the Windows harness (the project's wheel
#                                                          from the tree snapshot, the carried win_amd64 wheels)
#                                                          into a Windows Python under Wine (idempotent)
#   bash scripts/gpu/device.sh run NAME -- ARGS...         conformance ARGS with the GPU environment, sampling
#                                                          nvidia-smi; results and proof land in $OUT/NAME.*
#                                                          (RUN_LIMIT=S interrupts it after S seconds;
#                                                          WINDOWS_HARNESS=1: the Windows harness's conformance.exe
#                                                          runs them, in process: --backend dml; WINDOWS_HARNESS=pieces:
#                                                          in pieces, scripts/windows_harness/run_in_pieces.py,
#                                                          PIECES_JOBS (default nproc) at once, PIECES_BY op|family)
#   bash scripts/gpu/device.sh bench                       the GPU figures in one device command, then the tables:
#                                                          BENCH_SET (default "f32 pairs cases"): the four float32
#                                                          sweeps (dml-direct, BENCH_LIMIT=S each, default 60: the
#                                                          target), the pair sweeps of BENCH_PAIRS (default
#                                                          "add divide": dml-direct, BENCH_LIMIT_PAIRS=S each,
#                                                          default 25: their pace, not all 2**32), the default cases
#                                                          (dml-wine, BENCH_LIMIT_CASES=S, default 100); each run
#                                                          with RUN_GRACE_S (30) to stop, 600 s in all; more than a
#                                                          command may run is refused, exit 2; $OUT/bench.md,
#                                                          bench.log and bench.tar.gz (every results file and log),
#                                                          packed again after each run
#   bash scripts/gpu/device.sh fleet                       issue 28: the four float32 sweeps through dml-direct,
#                                                          spread by Dask over every GPU here (a TLS scheduler on
#                                                          127.0.0.1, one `conformance dask-worker` a GPU with its
#                                                          vulkan_device, FLEET_JOBS verifying threads each, default 16),
#                                                          then (FLEET_BASELINE=1, the default) the same sweeps on
#                                                          GPU 0 alone without Dask; $OUT/fleet-N-gpus.*,
#                                                          fleet-one-gpu.* and the scheduler's and workers' logs
#   bash scripts/gpu/device.sh pairs [OP ...]              the float16 pair sweeps in quarters (default: every
#                                                          scripts/gpu/sweeps/*_float16_pairs.yaml; OP: add,
#                                                          element_wise_add or ELEMENT_WISE_ADD) through dml-direct
#                                                          with PAIRS_JOBS verification threads (default half the
#                                                          processors), PAIRS_LIMIT=S each (default 150); more
#                                                          than one command may run is refused (exit 2, with the
#                                                          calls to split them into); $OUT/pairs.md, pairs.log and
#                                                          pairs.tar.gz, packed again after each sweep
#   bash scripts/gpu/device.sh plan FILE                   the runs a plan file lists, one a line: NAME LIMIT ARGS...
#                                                          (conformance run ARGS, shell-quoted words, stopped at
#                                                          LIMIT s; # comments),
#                                                          each with RUN_GRACE_S to stop, 600 s in all (more is
#                                                          refused, exit 2); $OUT/plan.md (a line a run: cases,
#                                                          seconds, statuses), plan.log and plan.tar.gz (every
#                                                          results file and log), packed again after each run
#   bash scripts/gpu/device.sh shell -- COMMAND...         any command in that environment
#   bash scripts/gpu/device.sh join DIR                    join files carried in parts (setup does it)
#
# How Wine reaches the GPU (docs/gpu/README.md): Wine runs on the host, with the host's glibc (the
# NVIDIA Vulkan driver needs it) and every other library from the carried Debian 12 root through
# LD_LIBRARY_PATH, set only for Wine's processes by a `script` wrapper (the dml-wine and dml-direct
# backends start Wine through `script`); Wine's compiled-in paths are linked to the root's; Xvfb runs
# inside the root (chroot) and shares the X socket; VK_DRIVER_FILES names only the NVIDIA ICD.
# GPU_ROOT (default /tmp/gpu) holds everything. Also runs here, for a local test, inside
# `unshare -m` (bind mounts over this machine's own Wine paths then stay private).
# Exit 2, one line: a harness snapshot without the harness, bench or pairs limits over one command's
# time (or not a number of seconds), an unknown BENCH_SET part or pair sweep.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
G=${GPU_ROOT:-/tmp/gpu}
# One command on the lent machine runs at most this long; a run interrupted by RUN_LIMIT gets
# RUN_GRACE_S more to stop before it is killed.
COMMAND_LIMIT_S=600
RUN_GRACE_S=30

refuse() { echo "[gpu] $*" >&2; exit 2; }
# A harness snapshot (build-bundle.sh) holds the harness, and at least the files its SNAPSHOT.json
# counts (a copy cut short, or one taken where git listed nothing, holds less).
snapshot_problem() {
    local dir=$1 f want have
    for f in pyproject.toml conformance/__init__.py scripts/gpu/device.sh scripts/dml_wine/releases.sh; do
        [ -f "$dir/$f" ] || { echo "holds no harness ($f is missing)"; return; }
    done
    want=$(grep -o '"files": [0-9]*' "$dir/SNAPSHOT.json" | grep -o '[0-9]*$' || true)
    have=$(find "$dir" -type f ! -name SNAPSHOT.json ! -path "$dir/windows-harness-wheel/*" ! -path '*/__pycache__/*' | wc -l)
    [ -z "$want" ] || [ "$have" -ge "$want" ] || echo "holds $have of its $want files"
}
# The harness that runs: the snapshot received with the bundle (what was tested where it was built),
# else this tree.
HARNESS=$REPO
if [ -f "$G/tree/SNAPSHOT.json" ]; then
    problem=$(snapshot_problem "$G/tree")
    if [ -z "$problem" ]; then
        HARNESS=$G/tree
    elif [ "${1:-}" != receive ]; then
        refuse "the harness snapshot in $G/tree $problem: take it again in a git checkout (build-bundle.sh --snapshot) and receive it"
    fi
fi
R=$G/root
NV_ICD=${GPU_VK_ICD:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
NV_LIBS=/usr/local/nvidia/lib64:/usr/local/nvidia/lib
NV_EGL=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
PYTHON=${GPU_PYTHON:-python3}
# The release table's helpers (build_python, pins, ...): release files land in $G/downloads.
ROOT=$HARNESS DOWNLOADS=$G/downloads PY=$PYTHON
# shellcheck source=../dml_wine/releases.sh
. "$HARNESS/scripts/dml_wine/releases.sh"

say() { echo "[gpu] $*"; }
fail() { echo "[gpu] FAILED: $*" >&2; exit 1; }
since() { echo $(( $(date +%s) - $1 )); }

cmd_receive() {
    local dir=${1:?receive DIR}
    [ -d "$dir" ] || fail "$dir was not carried"
    if compgen -G "$dir/*.whl" >/dev/null || compgen -G "$dir/*.tar.gz" >/dev/null; then  # release files
        mkdir -p "$DOWNLOADS"
        find "$dir" -maxdepth 1 -type f \( -name '*.whl' -o -name '*.tar.gz' \) -exec cp {} "$DOWNLOADS/" \;
        say "received $(basename "$dir"): $(ls "$DOWNLOADS" | tr '\n' ' ')"
        return
    fi
    if [ -f "$dir/SNAPSHOT.json" ]; then  # the harness snapshot (build-bundle.sh --snapshot)
        local problem; problem=$(snapshot_problem "$dir")
        [ -z "$problem" ] || refuse "the harness snapshot $dir $problem: take it again in a git checkout (build-bundle.sh --snapshot)"
        rm -rf "$G/tree"; mkdir -p "$G"; cp -r "$dir" "$G/tree"
        say "harness snapshot: $(grep -o '"head": "[0-9a-f]\{12\}' "$G/tree/SNAPSHOT.json" | cut -d'"' -f4), taken $(grep -o '"taken": "[^"]*' "$G/tree/SNAPSHOT.json" | cut -d'"' -f4)"
        return
    fi
    mkdir -p "$G/chunks"
    local t; t=$(date +%s)
    for f in "$dir"/part.*; do [ -e "$f" ] && cp "$f" "$G/chunks/"; done
    [ -f "$dir/manifest.json" ] && cp "$dir/manifest.json" "$G/manifest.json"
    for sub in tools wheels lib; do [ -d "$dir/$sub" ] && mkdir -p "$G/$sub" && cp -r "$dir/$sub/." "$G/$sub/"; done
    say "received $(basename "$dir") in $(since "$t") s: $(ls "$G/chunks" | tr '\n' ' ')($(du -sh "$G/chunks" | cut -f1) of chunks)"
}

# ---- setup ----------------------------------------------------------------------------------------
unpack() {
    [ -f "$R/.gpu-bundle" ] && [ -f "$G/.unpacked" ] && { say "root already unpacked"; return; }
    [ -f "$G/manifest.json" ] || fail "no manifest: receive the chunks first"
    local t want got
    t=$(date +%s)
    want=$("$PYTHON" -c "import json,sys; print(json.load(open(sys.argv[1]))['payload_sha256'])" "$G/manifest.json")
    got=$(cat "$G"/chunks/part.* | sha256sum | cut -c1-64)
    [ "$got" = "$want" ] || fail "payload checksum $got, the manifest says $want (a chunk is missing or stale: $(ls "$G/chunks"))"
    rm -rf "$R"; mkdir -p "$G"
    cat "$G"/chunks/part.* | LD_LIBRARY_PATH=$G/tools "$G/tools/zstd" -d -q --long=27 -c | tar -x -C "$G" \
        || fail "unpacking the payload"
    rm -rf "$G/chunks"
    touch "$G/.unpacked"
    say "unpacked the root in $(since "$t") s ($(du -sh "$R" | cut -f1))"
}

host_has_vulkan() { ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1 ' >/dev/null; }

libraries() {
    # /tmp/gpu/wl: the root's libraries, less glibc's own and the C/C++ runtimes (the host's are
    # newer); the Vulkan loader only where the host has none. /tmp/gpu/vk: the loader alone, for
    # the harness's own processes (WebGPU) on a host without one.
    rm -rf "$G/wl" "$G/vk"; mkdir -p "$G/wl" "$G/vk"
    local d f b
    for d in "$R/usr/lib/x86_64-linux-gnu" "$R/lib/x86_64-linux-gnu"; do
        [ -d "$d" ] || continue
        for f in "$d"/*.so*; do
            b=$(basename "$f")
            case $b in
                libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*|libresolv*|libnss_*|libutil*|libanl*|libmvec*|libBrokenLocale*|libthread_db*|libgcc_s*|libstdc++*|libcrypt.so*) continue ;;
                libvulkan.so*) host_has_vulkan && continue ;;
            esac
            [ -e "$G/wl/$b" ] || ln -s "$f" "$G/wl/$b"
        done
    done
    # libEGL.so.1 (carried beside the root): NVIDIA's Vulkan driver loads it while it starts, with
    # the root's libGLdispatch; both go to wl and vk where the host has none.
    for f in "$G"/lib/libEGL.so.1* "$R"/usr/lib/x86_64-linux-gnu/libGLdispatch.so.0*; do
        [ -e "$f" ] || continue
        b=$(basename "$f")
        ldconfig -p 2>/dev/null | grep " ${b%%.so*}.so" >/dev/null && continue
        ln -sfn "$f" "$G/wl/$b"; ln -sfn "$f" "$G/vk/$b"
    done
    if ! host_has_vulkan; then
        ln -s "$R/usr/lib/x86_64-linux-gnu/libvulkan.so.1" "$G/vk/libvulkan.so.1"
        say "the host has no Vulkan loader: the root's ($(readlink -f "$R/usr/lib/x86_64-linux-gnu/libvulkan.so.1" | xargs basename)) is used"
    else
        say "the host's Vulkan loader is used: $(ldconfig -p | grep -m1 'libvulkan\.so\.1 ' | awk '{print $NF}')"
    fi
}

wine_paths() {
    # Wine looks for its parts at compiled-in paths: make the root's appear there.
    local p
    for p in /usr/lib/wine /usr/lib/x86_64-linux-gnu/wine /usr/share/wine; do
        if [ -L "$p" ] && [ "$(readlink "$p")" = "$R$p" ]; then continue; fi
        if [ -e "$p" ]; then
            mountpoint -q "$p" || mount --bind "$R$p" "$p"   # this machine has a Wine of its own (local test)
        else
            mkdir -p "$(dirname "$p")"; ln -s "$R$p" "$p"
        fi
    done
    # Xvfb inside the root: /dev, /proc and the X socket folder shared with the host.
    mkdir -p /tmp/.X11-unix "$R/tmp/.X11-unix"; chmod 1777 /tmp/.X11-unix
    mountpoint -q "$R/tmp/.X11-unix" || mount --bind /tmp/.X11-unix "$R/tmp/.X11-unix"
    mountpoint -q "$R/dev" || mount --bind /dev "$R/dev"
    mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
}

wrappers() {
    mkdir -p "$G/bin"
    local real_script
    real_script=$(PATH=/usr/bin:/bin command -v script || true)
    [ -n "$real_script" ] || real_script=$R/usr/bin/script
    # `script` starts Wine for both backends: the only place the root's libraries are put in front.
    cat > "$G/bin/script" <<EOF
#!/bin/sh
# GPU lane (scripts/gpu/device.sh): Wine under this pty gets the root's libraries, the host's glibc.
LD_LIBRARY_PATH=$G/wl:$NV_LIBS\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec $real_script "\$@"
EOF
    # vulkaninfo for dml-direct's vulkan_device (which GPU a worker takes: its name and UUID in the header).
    cat > "$G/bin/vulkaninfo" <<EOF
#!/bin/sh
LD_LIBRARY_PATH=$G/wl:$NV_LIBS VK_DRIVER_FILES=$NV_ICD VK_ICD_FILENAMES=$NV_ICD exec $R/usr/bin/vulkaninfo "\$@"
EOF
    chmod +x "$G/bin/vulkaninfo"
    cat > "$G/bin/Xvfb" <<'EOF'
#!/bin/bash
# GPU lane (scripts/gpu/device.sh): the root's Xvfb, run inside the root, whose X socket folder is
# the host's. It cannot see the host's lock files, so the display number is chosen here, free on
# both sides, and locked on the host too; and -displayfd is answered here once the socket is there
# (a Wine desktop started before that has no display, for good). No GLX: nothing here draws with
# OpenGL, and the root carries no Mesa OpenGL driver.
R=@ROOT@
fd=""; args=()
while [ $# -gt 0 ]; do
    if [ "$1" = -displayfd ]; then fd=$2; shift 2; continue; fi
    args+=("$1"); shift
done
d=20
while [ -e /tmp/.X$d-lock ] || [ -e /tmp/.X11-unix/X$d ] || [ -e $R/tmp/.X$d-lock ] \
      || grep -q "@/tmp/.X11-unix/X$d\$" /proc/net/unix 2>/dev/null; do d=$((d + 1)); done
printf '%10d\n' $$ > /tmp/.X$d-lock
chroot $R /usr/bin/Xvfb :$d "${args[@]}" -extension GLX &
pid=$!
trap 'kill $pid 2>/dev/null' TERM INT HUP
for _ in $(seq 300); do
    [ -S /tmp/.X11-unix/X$d ] && break
    kill -0 $pid 2>/dev/null || { rm -f /tmp/.X$d-lock; exit 1; }
    sleep 0.1
done
sleep 0.2
[ -n "$fd" ] && echo "$d" >&"$fd"
wait $pid; wait $pid 2>/dev/null
rm -f /tmp/.X$d-lock
EOF
    sed -i "s|@ROOT@|$R|" "$G/bin/Xvfb"
    chmod +x "$G/bin/script" "$G/bin/Xvfb"
}

wine_env() {
    export WINEPREFIX=$G/lane/prefix WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" LC_ALL=C.UTF-8
    export VK_DRIVER_FILES=$NV_ICD VK_ICD_FILENAMES=$NV_ICD
    [ -e "$NV_EGL" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$NV_EGL
    return 0
}

XVFB_PID=
start_xvfb() {
    [ -n "$XVFB_PID" ] && return
    local fifo display
    fifo=$(mktemp -u); mkfifo "$fifo"
    "$G/bin/Xvfb" -displayfd 3 -screen 0 640x480x24 -nolisten tcp 3>"$fifo" >"$G/logs/xvfb.log" 2>&1 &
    XVFB_PID=$!
    read -r -t 30 display <"$fifo" || { rm -f "$fifo"; fail "Xvfb did not start: $(tail -5 "$G/logs/xvfb.log")"; }
    rm -f "$fifo"
    export DISPLAY=":$display"
}
stop_xvfb() { [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null; XVFB_PID=; return 0; }

in_pty() {  # in_pty SECONDS PROGRAM ARGS...: a Windows program needs a terminal for its stdout
    local limit=$1 cmd="" arg
    shift
    for arg in "$@"; do cmd+=" $(printf '%q' "$arg")"; done
    SHELL=/bin/sh timeout "$limit" "$G/bin/script" -qec "${cmd# }" /dev/null </dev/null
}

prefix() {
    local stamp="wine=$(cat "$R/.gpu-bundle" 2>/dev/null)"
    if [ -f "$G/lane/prefix/.dml-conformance" ] && [ "$(cat "$G/lane/prefix/.dml-conformance")" = "$stamp" ]; then
        say "Wine prefix already there"; return
    fi
    local t; t=$(date +%s)
    rm -rf "$G/lane/prefix"; mkdir -p "$G/lane"
    ln -sfn "$R/opt/py" "$G/lane/python"
    start_xvfb; wine_env
    LD_LIBRARY_PATH=$G/wl:$NV_LIBS /usr/lib/wine/wine64 wineboot -i >"$G/logs/wineboot.log" 2>&1 \
        || fail "wineboot -i: $(tail -5 "$G/logs/wineboot.log")"
    local entry key value type data
    for entry in "HKCU\\Software\\Wine|Version|REG_SZ|win10" \
                 "HKCU\\Software\\Wine\\Direct3D|renderer|REG_SZ|vulkan" \
                 "HKCU\\Software\\Wine\\WineDbg|ShowCrashDialog|REG_DWORD|0"; do
        IFS='|' read -r key value type data <<<"$entry"
        in_pty 120 /usr/lib/wine/wine64 reg add "$key" /v "$value" /t "$type" /d "$data" /f >>"$G/logs/wine-reg.log" 2>&1 \
            || fail "reg add $key $value"
    done
    LD_LIBRARY_PATH=$G/wl:$NV_LIBS /usr/lib/wine/wineserver -w
    grep -q '^"renderer"="vulkan"' "$G/lane/prefix/user.reg" || fail "renderer=vulkan is not in the prefix"
    grep -q '^"ShowCrashDialog"=dword:00000000' "$G/lane/prefix/user.reg" || fail "ShowCrashDialog=0 is not in the prefix"
    echo "$stamp" > "$G/lane/prefix/.dml-conformance"
    say "Wine prefix made in $(since "$t") s ($(du -sh "$G/lane/prefix" | cut -f1))"
}

proof() {
    # What the host says about its GPU and its Vulkan driver, before anything runs.
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,uuid --format=csv >"$G/nvidia-smi.csv" 2>&1 \
        || echo "nvidia-smi failed" >>"$G/nvidia-smi.csv"
    [ -e "$NV_EGL" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$NV_EGL
    LD_LIBRARY_PATH=$G/wl:$NV_LIBS VK_DRIVER_FILES=$NV_ICD VK_ICD_FILENAMES=$NV_ICD \
        "$R/usr/bin/vulkaninfo" --summary >"$G/vulkaninfo.txt" 2>&1 || true
    VULKAN_DEVICE=$(sed -n 's/^[[:space:]]*deviceName[[:space:]]*=[[:space:]]*//p' "$G/vulkaninfo.txt" | head -n 1)
    VULKAN_DRIVER=$(sed -n 's/^[[:space:]]*driverInfo[[:space:]]*=[[:space:]]*//p' "$G/vulkaninfo.txt" | head -n 1)
    say "nvidia-smi: $(tail -n +2 "$G/nvidia-smi.csv" | head -1)"
    say "Vulkan through $NV_ICD: ${VULKAN_DEVICE:-none} (driver ${VULKAN_DRIVER:-?})"
    [ -n "$VULKAN_DEVICE" ] || { cat "$G/vulkaninfo.txt" | tail -20; fail "vulkaninfo found no device through $NV_ICD"; }
}

selfcheck() {  # selfcheck PYTHON_DIR CHECK_DIR: the worker's DirectML self-check in that Windows Python
    rm -rf "$2"; mkdir -p "$2"
    cp -r "$HARNESS/conformance/worker" "$2/dmlc_worker"; rm -rf "$2/dmlc_worker/__pycache__"
    start_xvfb; wine_env
    in_pty 300 /usr/lib/wine/wine64 "$1/python.exe" "Z:$2/dmlc_worker/__main__.py" \
        --self-check "Z:$2/selfcheck.json" --log "Z:$2/selfcheck.log" >"$G/logs/selfcheck-console.log" 2>&1 || true
    [ -s "$2/selfcheck.json" ] || fail "the DirectML self-check wrote nothing: $(tail -c 1500 "$G/logs/selfcheck-console.log" "$2/selfcheck.log" 2>/dev/null)"
}

lane_marker() {
    local t ort; t=$(date +%s); ort=$(newest_release)
    selfcheck "$G/lane/python" "$G/lane/check"
    "$PYTHON" "$HARNESS/scripts/dml_wine/write_marker.py" --selfcheck "$G/lane/check/selfcheck.json" --marker "$G/lane/lane.json" \
        --format "$LANE_FORMAT" --home "$G/lane" --wine "$(LD_LIBRARY_PATH=$G/wl /usr/lib/wine/wine64 --version 2>/dev/null)" \
        --wine-package "$(sed -n 's/^wine //p' "$G/root-packages.txt" 2>/dev/null || echo '?')" --mesa "" \
        --vulkan-device "$VULKAN_DEVICE" --vulkan-driver "$VULKAN_DRIVER" --vulkan-icd "$NV_ICD" \
        --pins "$(pins "$ort")" --dll-sha256 "$(dll_sha256 "$ort")" --seconds "$(since "$t")" \
        || fail "the DirectML self-check failed: $(head -c 1500 "$G/lane/check/selfcheck.json")"
}

release_lanes() {
    # Each release (but the newest: the lane's own) whose files were received: its Windows Python in
    # $G/lane/releases/V/python, checked like the lane's (what setup-dml-wine.sh --releases does).
    local ort home t
    for ort in $("$PYTHON" "$HARNESS/conformance/backends/dml_releases.py" all); do
        [ "$ort" = "$(newest_release)" ] && continue
        cached "$ort" || continue
        home=$G/lane/releases/$ort
        if [ -f "$home/release.json" ] && [ "$(cat "$home/python/.dml-conformance" 2>/dev/null)" = "$(python_stamp "$ort")" ]; then
            say "release $ort already set up"; continue
        fi
        t=$(date +%s)
        mkdir -p "$home"
        build_python "$ort" "$home/python" "$G/logs/release-$ort-python.log"
        selfcheck "$home/python" "$home/check"
        "$PYTHON" "$HARNESS/scripts/dml_wine/write_marker.py" --kind release --selfcheck "$home/check/selfcheck.json" \
            --marker "$home/release.json" --format "$LANE_FORMAT" --home "$G/lane" --python-dir "$home/python" \
            --pins "$(pins "$ort")" --dll-sha256 "$(dll_sha256 "$ort")" --seconds "$(since "$t")" \
            || fail "the DirectML self-check of onnxruntime-directml $ort failed: $(head -c 1500 "$home/check/selfcheck.json")"
    done
}

cmd_join() {
    # Files too large for one call came in parts NAME.part-NN with NAME.sha256 (build-bundle.sh):
    # join them and check the whole against the digest taken where the bundle was built.
    local dir=${1:?join DIR} first whole
    for first in "$dir"/*.part-00; do
        [ -e "$first" ] || continue
        whole=${first%.part-00}
        cat "$whole".part-* > "$whole.joined"
        [ "$(sha256sum "$whole.joined" | cut -c1-64)" = "$(cat "$whole.sha256" 2>/dev/null)" ] \
            || { rm -f "$whole.joined"; fail "$(basename "$whole"): its parts do not make the file built (receive every call of the bundle)"; }
        mv "$whole.joined" "$whole"; rm -f "$whole".part-* "$whole.sha256"
    done
}

linux_python() {
    # The harness's Linux side: wheels the image lacks, and the entry points of this checkout.
    rm -rf "$G/site"; mkdir -p "$G/site"
    local wheels=() w
    if [ "$("$PYTHON" -c 'import sys; print(sys.version_info[:2] == (3, 12))')" != True ]; then
        say "the wheels are for CPython 3.12; $("$PYTHON" -V) here uses its own packages (local test)"
        "$PYTHON" "$HARNESS/scripts/gpu/entry_points.py" "$HARNESS/pyproject.toml" "$G/site"
        return
    fi
    cmd_join "$G/wheels"
    for w in "$G"/wheels/*.whl; do case $(basename "$w") in onnxruntime_webgpu-*) ;; *) wheels+=("$w") ;; esac; done
    [ ${#wheels[@]} -gt 0 ] && "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        --target "$G/site" "${wheels[@]}"
    if ls "$G"/wheels/onnxruntime_webgpu-*.whl >/dev/null 2>&1; then
        rm -rf "$G/webgpu"
        "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$G/webgpu" \
            "$G"/wheels/onnxruntime_webgpu-*.whl
    fi
    "$PYTHON" "$HARNESS/scripts/gpu/entry_points.py" "$HARNESS/pyproject.toml" "$G/site"
    say "compiled verification: $(PYTHONPATH=$G/site "$PYTHON" -c 'import numba, numpy; print("numba", numba.__version__, "with numpy", numpy.__version__)' 2>&1 | tail -n 1)"
}

write_env() {
    local ld=""
    [ -e "$G/vk/libvulkan.so.1" ] && ld=$G/vk
    cat > "$G/env.sh" <<EOF
# GPU lane environment (scripts/gpu/device.sh setup)
export PATH=$G/bin:\$PATH
export DML_WINE_HOME=$G/lane
export DMLC_WEBGPU_HOME=$G/webgpu
export VK_DRIVER_FILES=$NV_ICD VK_ICD_FILENAMES=$NV_ICD
$([ -e "$NV_EGL" ] && echo "export __EGL_VENDOR_LIBRARY_FILENAMES=$NV_EGL")
export LD_LIBRARY_PATH=${ld:+$ld:}$NV_LIBS\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
EOF
}

compile_kernels() {
    # The verifier's compiled loops for the GPU sweeps, built once here as installing does
    # (`conformance compile`), so that a run's first chunks do not compile them (15 to 20 s a sweep).
    [ "${COMPILE_KERNELS:-1}" = 1 ] || { say "kernels not compiled (COMPILE_KERNELS=0)"; return 0; }
    local t; t=$(date +%s)
    ( . "$G/env.sh"; cd "$HARNESS" && PYTHONPATH=$HARNESS:$G/site "$PYTHON" -m conformance compile --jobs 0 \
        scripts/gpu/sweeps >"$G/logs/compile.log" 2>&1 ) || fail "conformance compile (see $G/logs/compile.log)"
    say "$(tail -n 1 "$G/logs/compile.log") (setup: $(since "$t") s)"
}

cmd_setup() {
    local t; t=$(date +%s)
    mkdir -p "$G/logs"
    unpack
    [ -f "$G/root-packages.txt" ] || chroot "$R" dpkg-query -W -f='${Package} ${Version}\n' > "$G/root-packages.txt" 2>/dev/null || true
    libraries
    wine_paths; wrappers
    wrappers
    proof
    prefix
    if [ -f "$G/lane/lane.json" ] && grep -q "\"vulkan_icd\": \"$NV_ICD\"" "$G/lane/lane.json"; then
        say "lane marker already there"
    else
        lane_marker
    fi
    release_lanes
    stop_xvfb
    linux_python
    write_env
    compile_kernels
    say "setup done in $(since "$t") s: $(grep -o '"adapter": [^,]*' "$G/lane/lane.json"), $(grep -o '"dml_max_feature_level": [^,]*' "$G/lane/lane.json")"
}

# ---- runs -------------------------------------------------------------------------------------------
cmd_run() {
    local name=${1:?run NAME -- conformance ARGS}; shift
    [ "${1:-}" = "--" ] && shift
    [ -f "$G/env.sh" ] || fail "run setup first"
    wine_paths; wrappers  # idempotent: the links, mounts and wrappers Wine and Xvfb need
    # shellcheck disable=SC1091
    . "$G/env.sh"
    export PYTHONPATH=$HARNESS:$G/site${PYTHONPATH:+:$PYTHONPATH}
    local out=${OUT:-$G/out}; mkdir -p "$out"
    local smi=$G/logs/smi-$name.log
    ( while :; do
          echo "@ $(date +%s)"
          nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>&1
          # busy at 100% through a hang: a shader that does not end; idle: a wait that is never answered
          nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
          nvidia-smi 2>/dev/null | sed -n '/Processes:/,$p' | grep -E '^\|[[:space:]]+[0-9]' || true
          sleep 1
      done ) >"$smi" 2>&1 &
    local sampler=$! t rc=0
    t=$(date +%s.%N)
    cd "$HARNESS"
    # RUN_LIMIT=S: interrupt the run (SIGINT) after S seconds; the cases finished so far are kept.
    local runner=(-m conformance run) kill_after=$RUN_GRACE_S
    # The Windows harness (docs/windows.md): its conformance.exe under Wine, results on Z: (here).
    # WINDOWS_HARNESS=pieces: in pieces, PIECES_JOBS at once (default: one per core), PIECES_BY op
    # (default) or family; each piece stops within a minute of Ctrl-C (windows_harness.CTRL_C_GRACE).
    case ${WINDOWS_HARNESS:-} in
        '') ;;
        pieces) runner=("$HARNESS/scripts/windows_harness/run_in_pieces.py" --jobs "${PIECES_JOBS:-$(nproc)}"
                        --by "${PIECES_BY:-op}"); kill_after=150 ;;
        *) runner=(-m conformance lane windows -- run) ;;
    esac
    timeout -s INT -k "$kill_after" "${RUN_LIMIT:-0}" "$PYTHON" "${runner[@]}" "$@" --results "$out/$name.jsonl" \
        --quiet >"$out/$name.log" 2>&1 || rc=$?
    local seconds; seconds=$(echo "$(date +%s.%N) - $t" | bc 2>/dev/null || "$PYTHON" -c "print($(date +%s.%N) - $t)")
    kill "$sampler" 2>/dev/null || true
    tail -n 25 "$out/$name.log"
    "$PYTHON" "$HARNESS/scripts/gpu/annotate.py" "$out/$name.jsonl" --smi "$smi" --nvidia-smi "$G/nvidia-smi.csv" \
        --vulkaninfo "$G/vulkaninfo.txt" --icd "$NV_ICD" --wall "$seconds" --exit-code "$rc" --name "$name" --snapshot "$G/tree/SNAPSHOT.json" \
        || echo "[gpu] annotate failed"
    say "run $name: exit $rc, $(printf '%.0f' "$seconds") s"
    return 0
}

cmd_releases() {
    local ort backend suite paths
    for ort in $("$PYTHON" "$HARNESS/conformance/backends/dml_releases.py" "$(IFS=,; echo "${*:-all}")"); do
        if [ "$ort" != "$(newest_release)" ] && [ ! -f "$G/lane/releases/$ort/release.json" ]; then
            say "release $ort was not set up (receive its files, then setup): skipped"; continue
        fi
        for backend in dml-direct dml-wine; do
            for suite in cases f16-sweeps; do
                paths=$([ "$suite" = cases ] && echo cases || echo sweeps/float16_every_parameter_set)
                cmd_run "$suite-$backend-$ort" -- "$paths" --backend "$backend" --provider-option "dml_release=$ort" --seed 0
            done
        done
    done
}

seconds_of() {  # seconds_of NAME VALUE: VALUE, a whole number of seconds above 0, or refused
    [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ] || refuse "$1=$2: a whole number of seconds above 0"
    echo "$2"
}

PAIR_SWEEPS=()
pair_sweeps() {  # pair_sweeps VERB [OP ...]: PAIR_SWEEPS, the quarter files of these operators (default: all)
    local verb=$1 op name f; shift
    PAIR_SWEEPS=()
    if [ $# -eq 0 ]; then
        PAIR_SWEEPS=("$HARNESS"/scripts/gpu/sweeps/*_float16_pairs.yaml)
        [ -f "${PAIR_SWEEPS[0]}" ] || refuse "$verb: no pair sweep in scripts/gpu/sweeps (python3 scripts/gpu/make_pair_quarters.py)"
        return
    fi
    for op in "$@"; do
        name=$(echo "$op" | tr '[:upper:]' '[:lower:]')
        for f in "$HARNESS/scripts/gpu/sweeps/${name}_float16_pairs.yaml" "$HARNESS/scripts/gpu/sweeps/element_wise_${name}_float16_pairs.yaml"; do
            [ -f "$f" ] && { PAIR_SWEEPS+=("$f"); continue 2; }
        done
        refuse "$verb: no pair sweep of '$op'; there are: $(for f in "$HARNESS"/scripts/gpu/sweeps/*_float16_pairs.yaml; do pair_name "$f"; done | paste -sd ' ')"
    done
}
pair_name() { basename "$1" _float16_pairs.yaml | sed 's/^element_wise_//'; }

timed_run() {  # timed_run WORK PACK LIMIT NAME -- ARGS: cmd_run into WORK, then pack WORK into $OUT as PACK.*
    local work=$1 pack=$2 limit=$3 name=$4; shift 4
    OUT=$work RUN_LIMIT=$limit cmd_run "$name" "$@" || true
    cp "$G/logs/smi-$name.log" "$work/" 2>/dev/null || true
    # again after each run: a command the device tool cuts short still hands back the runs before
    PYTHONPATH=$HARNESS:$G/site "$PYTHON" "$HARNESS/scripts/gpu/bench_table.py" "$work" --pack "${OUT:-$G/out}" \
        --name "$pack" >/dev/null || say "$pack: the tables were not made (bench_table.py failed)"
}

# Verification threads of a pair sweep: PAIRS_JOBS, by default half the processors. Measured on the
# lent H100 (scripts/gpu/verify_scaling.py, one 4 Mi-pair ADD chunk, 16 processors): 1, 2, 4, 8 and
# 16 threads took 294, 172, 113, 65 and 88 ms; the worker that makes the inputs and the runner's input
# thread share the machine with them.
pairs_jobs() { echo "${PAIRS_JOBS:-$(( ($(nproc) + 1) / 2 ))}"; }

run_pairs() {  # run_pairs WORK PACK LIMIT PREFIX SWEEP...: each pair sweep through dml-direct
    local work=$1 pack=$2 limit=$3 prefix=$4 sweep; shift 4
    for sweep in "$@"; do
        timed_run "$work" "$pack" "$limit" "$prefix$(basename "$sweep" _float16_pairs.yaml)-f16-pairs" -- \
            "${sweep#"$HARNESS"/}" --backend dml-direct --jobs "$(pairs_jobs)"
    done
}

cmd_bench() {
    # The GPU figures of issues 16 and 27, in one device command after setup: the four seed operators'
    # exhaustive float32 sweeps through dml-direct on every core (each stopped at BENCH_LIMIT s), the
    # float16 pair sweeps of BENCH_PAIRS through dml-direct (stopped at BENCH_LIMIT_PAIRS s: the pace
    # and the per-chunk figures; `pairs` runs them longer), and the default cases through dml-wine
    # (the worker's peak memory), then the tables (scripts/gpu/bench_table.py) of what the results
    # files say. BENCH_SET picks the parts. The runs write into $G/bench; three files come back in
    # $OUT (the lent machine hands back 8 at most), packed again after each run: bench.md, bench.log
    # (every run's console output) and bench.tar.gz (the results files, their logs, the nvidia-smi samples).
    local sweeps=("$HARNESS"/scripts/gpu/sweeps/*_float32.yaml) sweep op part
    local set=${BENCH_SET:-f32 pairs cases} f32=0 pairs=0 cases=0
    for part in ${set//,/ }; do
        case $part in f32) f32=1 ;; pairs) pairs=1 ;; cases) cases=1 ;;
            *) refuse "BENCH_SET: '$part' is none of f32, pairs, cases" ;; esac
    done
    local limit limit_pairs limit_cases
    limit=$(seconds_of BENCH_LIMIT "${BENCH_LIMIT:-60}")
    limit_pairs=$(seconds_of BENCH_LIMIT_PAIRS "${BENCH_LIMIT_PAIRS:-25}")
    limit_cases=$(seconds_of BENCH_LIMIT_CASES "${BENCH_LIMIT_CASES:-100}")
    # shellcheck disable=SC2086
    pair_sweeps BENCH_PAIRS ${BENCH_PAIRS:-add divide}
    [ "$f32" = 1 ] || sweeps=()
    [ "$pairs" = 1 ] || PAIR_SWEEPS=()
    local total=$(( ${#sweeps[@]} * (limit + RUN_GRACE_S) + ${#PAIR_SWEEPS[@]} * (limit_pairs + RUN_GRACE_S)
                    + cases * (limit_cases + RUN_GRACE_S) ))
    [ "$total" -le "$COMMAND_LIMIT_S" ] || refuse "bench: ${#sweeps[@]} float32 sweeps of BENCH_LIMIT=$limit s, ${#PAIR_SWEEPS[@]} pair sweeps of BENCH_LIMIT_PAIRS=$limit_pairs s$([ "$cases" = 1 ] && echo " and the cases' BENCH_LIMIT_CASES=$limit_cases s"), each with $RUN_GRACE_S s to stop, add up to $total s: over the $COMMAND_LIMIT_S s one device command may run (BENCH_SET=\"$set\"; run a part alone, or lower a limit)"
    [ -f "$G/env.sh" ] || fail "run setup first"
    local work=$G/bench
    rm -rf "$work"; mkdir -p "$work" "${OUT:-$G/out}"
    {
        for sweep in "${sweeps[@]}"; do
            op=$(basename "$sweep" _float32.yaml)
            timed_run "$work" bench "$limit" "bench-$op-f32" -- "scripts/gpu/sweeps/${op}_float32.yaml" \
                --backend dml-direct --jobs "$(nproc)"
        done
        run_pairs "$work" bench "$limit_pairs" bench- "${PAIR_SWEEPS[@]}"
        [ "$cases" = 0 ] || timed_run "$work" bench "$limit_cases" bench-cases-dml-wine -- cases --backend dml-wine \
            --feature-level 6_4
    } 2>&1 | tee "$work/bench.log" || say "bench: a run did not start (bench.log says why); packing what there is"
    PYTHONPATH=$HARNESS:$G/site "$PYTHON" "$HARNESS/scripts/gpu/bench_table.py" "$work" --pack "${OUT:-$G/out}"
}

cmd_plan() {
    # Several runs in one device command, their results in three files (the device tool hands back 8 at most):
    # scripts/gpu/plans/*.txt, e.g. issue26-rest-direct.txt, what issue 26 left for the GPU.
    local plan=${1:?plan FILE}
    [ -f "$plan" ] || refuse "plan: no file $plan"
    local names=() limits=() lines=() name limit rest total=0 n=0
    while read -r name limit rest; do
        n=$((n + 1))
        case $name in ''|'#'*) continue ;; esac
        limit=$(seconds_of "$plan:$n" "$limit")
        [ -n "$rest" ] || refuse "$plan:$n: no conformance arguments after NAME LIMIT"
        names+=("$name"); limits+=("$limit"); lines+=("$rest")
        total=$((total + limit + RUN_GRACE_S))
    done < "$plan"
    [ "${#names[@]}" -gt 0 ] || refuse "$plan: no runs (a line: NAME LIMIT ARGS...)"
    [ "$total" -le "$COMMAND_LIMIT_S" ] || refuse "$plan: ${#names[@]} runs, their limits and $RUN_GRACE_S s each to stop add up to $total s: over the $COMMAND_LIMIT_S s one device command may run (split the plan)"
    [ -f "$G/env.sh" ] || fail "run setup first"
    local work=$G/plan i args
    rm -rf "$work"; mkdir -p "$work" "${OUT:-$G/out}"
    {
        for i in "${!names[@]}"; do
            # shell-style words (quotes keep -k "a and b" whole), split by shlex: nothing in a plan is evaluated
            mapfile -d '' args < <("$PYTHON" -c 'import shlex, sys; sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[1])))' "${lines[$i]}")
            timed_run "$work" plan "${limits[$i]}" "${names[$i]}" -- "${args[@]}"
        done
    } 2>&1 | tee "$work/plan.log" || say "plan: a run did not start (plan.log says why); packing what there is"
    PYTHONPATH=$HARNESS:$G/site "$PYTHON" "$HARNESS/scripts/gpu/bench_table.py" "$work" --pack "${OUT:-$G/out}" \
        --name plan >/dev/null || say "plan: the table was not made (bench_table.py failed)"
}

cmd_pairs() {
    # Issue 27: every (A, B) pair of float16 values of the binary operators' pair sweeps through
    # dml-direct, each in quarters (scripts/gpu/make_pair_quarters.py) so a sweep stopped at its
    # PAIRS_LIMIT keeps what it finished (a quarter cut short: a record with "partial"). The runs
    # write into $G/pairs; pairs.md (bench_table.py's pair table), pairs.log and pairs.tar.gz come back.
    local limit; limit=$(seconds_of PAIRS_LIMIT "${PAIRS_LIMIT:-150}")
    pair_sweeps pairs "$@"
    local n=${#PAIR_SWEEPS[@]} each=$(( limit + RUN_GRACE_S )) sweep
    local fit=$(( COMMAND_LIMIT_S / each ))
    [ "$fit" -gt 0 ] || refuse "pairs: PAIRS_LIMIT=$limit s with $RUN_GRACE_S s to stop is over the $COMMAND_LIMIT_S s one device command may run: at most $(( COMMAND_LIMIT_S - RUN_GRACE_S ))"
    if [ "$n" -gt "$fit" ]; then
        local calls="" i
        for (( i = 0; i < n; i += fit )); do
            calls+="${calls:+; }PAIRS_LIMIT=$limit bash scripts/gpu/device.sh pairs"
            for sweep in "${PAIR_SWEEPS[@]:i:fit}"; do calls+=" $(pair_name "$sweep")"; done
        done
        refuse "pairs: $n sweeps of PAIRS_LIMIT=$limit s, each with $RUN_GRACE_S s to stop, add up to $(( n * each )) s: over the $COMMAND_LIMIT_S s one device command may run; split them over $(( (n + fit - 1) / fit )) calls: $calls"
    fi
    [ -f "$G/env.sh" ] || fail "run setup first"
    local work=$G/pairs
    rm -rf "$work"; mkdir -p "$work" "${OUT:-$G/out}"
    run_pairs "$work" pairs "$limit" "" "${PAIR_SWEEPS[@]}" 2>&1 | tee "$work/pairs.log" \
        || say "pairs: a run did not start (pairs.log says why); packing what there is"
    PYTHONPATH=$HARNESS:$G/site "$PYTHON" "$HARNESS/scripts/gpu/bench_table.py" "$work" --pack "${OUT:-$G/out}" --name pairs
}

cmd_fleet() {
    [ -f "$G/env.sh" ] || fail "run setup first"
    wine_paths; wrappers
    # shellcheck disable=SC1091
    . "$G/env.sh"
    export PYTHONPATH=$HARNESS:$G/site${PYTHONPATH:+:$PYTHONPATH}
    local out=${OUT:-$G/out} certs=$G/dask-certs jobs=${FLEET_JOBS:-16} port=${FLEET_PORT:-8786} gpus i
    local sweeps; mapfile -t sweeps < <(cd "$HARNESS" && ls scripts/gpu/sweeps/*_float32.yaml)
    gpus=$(nvidia-smi -L | grep -c '^GPU ')
    [ "$gpus" -ge 1 ] || fail "fleet: nvidia-smi lists no GPU"
    mkdir -p "$out"; rm -rf "$certs"
    (cd "$HARNESS" && "$PYTHON" -m conformance dask-certs "$certs") || fail "fleet: dask-certs"
    local pids=()
    (cd "$HARNESS" && exec "$PYTHON" -m conformance dask-scheduler --dask-certs "$certs" --host 127.0.0.1 \
        --port "$port") >"$out/fleet-scheduler.log" 2>&1 &
    pids+=($!)
    for (( i = 0; i < gpus; i++ )); do
        # Wine's DXGI lists one adapter whatever the GPUs: each worker picks its GPU on the Vulkan side.
        (cd "$HARNESS" && exec "$PYTHON" -m conformance dask-worker "tls://127.0.0.1:$port" --dask-certs "$certs" \
            --backend-option "vulkan_device=$i" --name "gpu$i") >"$out/fleet-worker$i.log" 2>&1 &
        pids+=($!)
    done
    say "fleet: a scheduler and $gpus workers (pids ${pids[*]}), $jobs verifying threads each"
    # Which process runs on which GPU (by UUID), and the process tree that ties each to its worker.
    ( while :; do
          echo "@ $(date +%s)"
          nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader 2>&1
          ps -eo pid,ppid,args --no-headers | grep -E 'dask-worker|python.exe|dmldirect' | grep -v grep | cut -c1-160
          sleep 2
      done ) >"$out/fleet-gpus.log" 2>&1 &
    local sampler=$!
    cmd_run "fleet-$gpus-gpus" -- "${sweeps[@]}" --backend dml-direct --dask "tls://127.0.0.1:$port" \
        --dask-certs "$certs" --dask-workers "$gpus" --jobs "$jobs"
    kill "$sampler" 2>/dev/null || true
    kill -INT "${pids[@]}" 2>/dev/null || true
    sleep 5; kill -KILL "${pids[@]}" 2>/dev/null || true; wait "${pids[@]}" 2>/dev/null || true
    [ "${FLEET_BASELINE:-1}" = 1 ] || return 0
    cmd_run fleet-one-gpu -- "${sweeps[@]}" --backend dml-direct --provider-option device_id=0 --jobs "$jobs"
}

cmd_windows_setup() {
    [ -f "$G/env.sh" ] || fail "run setup first"
    [ -d "$R/opt/windows-harness/wheels" ] || fail "the bundle carries no Windows harness wheels (rebuild it)"
    local wheel
    wheel=$(ls "$HARNESS"/windows-harness-wheel/dml_conformance-*.whl 2>/dev/null | head -n 1)
    [ -n "$wheel" ] || fail "the tree snapshot carries no project wheel (build-bundle.sh --snapshot)"
    wine_paths; wrappers
    # shellcheck disable=SC1091
    . "$G/env.sh"
    export PYTHONPATH=$HARNESS:$G/site${PYTHONPATH:+:$PYTHONPATH}
    mkdir -p "$G/lane/windows-harness"
    ln -sfn "$R/opt/windows-harness/wheels" "$G/lane/windows-harness/wheels"
    local t; t=$(date +%s)
    PROJECT_WHEEL=$wheel PYTHON=$PYTHON bash "$HARNESS/scripts/setup-windows-harness.sh" 2>&1 \
        | tee "$G/logs/windows-setup.log" | tail -n 12
    [ "${PIPESTATUS[0]}" = 0 ] || fail "setup-windows-harness.sh (see $G/logs/windows-setup.log)"
    say "Windows harness ready in $(since "$t") s"
}

cmd_shell() {
    [ "${1:-}" = "--" ] && shift
    wine_paths; wrappers
    # shellcheck disable=SC1091
    . "$G/env.sh"
    export PYTHONPATH=$HARNESS:$G/site${PYTHONPATH:+:$PYTHONPATH}
    cd "$HARNESS" && "$@"
}

verb=${1:-}; shift || true
case $verb in
    receive) cmd_receive "$@" ;;
    join) cmd_join "$@" ;;
    setup) cmd_setup "$@" ;;
    run) cmd_run "$@" ;;
    releases) cmd_releases "$@" ;;
    bench) cmd_bench "$@" ;;
    windows-setup) cmd_windows_setup "$@" ;;
    shell) cmd_shell "$@" ;;
    pairs) cmd_pairs "$@" ;;
    plan) cmd_plan "$@" ;;
    fleet) cmd_fleet "$@" ;;
    *) sed -n "2,$(grep -n '^# How Wine reaches' "$0" | cut -d: -f1)p" "$0" | head -n -1; exit 2 ;;
esac
