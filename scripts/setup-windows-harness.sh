#!/usr/bin/env bash
# Provision the Windows harness: this project pip-installed, as a Windows user installs it, into a
# Windows CPython 3.13 that runs under the dml-wine lane's Wine 8 (on lavapipe), beside the lane.
#
#   bash scripts/setup-windows-harness.sh           provision (needs the dml-wine lane), then check
#   bash scripts/setup-windows-harness.sh --check   only check an existing Windows harness
#   bash scripts/setup-windows-harness.sh --force   rebuild the Windows Python and reinstall everything
#   bash scripts/setup-windows-harness.sh --lock    re-resolve WANTED and rewrite the pinned lock file
#   bash scripts/setup-windows-harness.sh --download  only fetch the pinned wheels (step 2; no Wine):
#                                                     what scripts/gpu/build-bundle.sh carries
# PROJECT_WHEEL=FILE: install this wheel of the project instead of building one (the GPU machine has
# no network to build with; scripts/gpu/build-bundle.sh builds it with the tree snapshot).
#
# Steps (each skipped when its result is already there; the checks always run):
#   1. the dml-wine lane (scripts/setup-dml-wine.sh) is there;
#   2. the pinned win_amd64 wheels (scripts/windows_harness/requirements.txt, sha256-checked) are
#      downloaded on the Linux side with `pip download --platform win_amd64 --python-version 3.13`;
#   3. the project's wheel is built (pip wheel . --no-deps);
#   4. a Windows Python of its own: a copy of the lane's embeddable CPython without its site-packages
#      (the lane's worker Python stays untouched), with bcryptprimitives.dll (see below);
#   5. pip bootstrapped into it from pip's wheel, then `python.exe -m pip install --no-index
#      --find-links ... dml-conformance[dml] pytest pytest-xdist` run by that Windows Python under
#      Wine: pip resolves the project's dependencies for Windows and writes Scripts\conformance.exe;
#   6. the check: a small `conformance run --backend auto` must choose dml and pass on DirectML,
#      every node placed on it; the versions go into harness.json, which `conformance lane windows`
#      looks for.
# Everything lands in $DML_WINE_HOME/windows-harness (default /var/cache/dml-conformance as root).
# Wine 8 lacks bcryptprimitives.dll, which every Rust extension built with Rust >= 1.78 imports
# (rpds-py, under jsonschema): step 4 writes a DLL that forwards its one function, ProcessPrng, to
# advapi32's RtlGenRandom (scripts/windows_harness/forwarder_dll.py). Windows itself has the DLL.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FORMAT=1
LOCK=$ROOT/scripts/windows_harness/requirements.txt
# What the lock resolves (--lock): the project's dependencies for Windows, its test tools, and pip.
WANTED="numpy==2.1.3 onnxruntime-directml==1.24.4 pyyaml tabulate onnx jsonschema tqdm jinja2 numba llvmlite
        pytest pytest-xdist colorama pip"
INSTALL="dml-conformance[dml] pytest pytest-xdist"
CHECK_SELECTION="float32/rank4[2x3x4x5]/Min=-1,Max=1/uniform[-8,8] and not Scale= and not in-place"

MODE=provision
for arg in "$@"; do
    case $arg in
        --check) MODE=check ;;
        --force) MODE=force ;;
        --lock) MODE=lock ;;
        --download) MODE=download ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "setup-windows-harness: unknown argument $arg" >&2; exit 2 ;;
    esac
done

if [ -z "${DML_WINE_HOME:-}" ]; then
    if [ "$(id -u)" = 0 ]; then DML_WINE_HOME=/var/cache/dml-conformance
    else DML_WINE_HOME=${XDG_CACHE_HOME:-$HOME/.cache}/dml-conformance; fi
fi
export DML_WINE_HOME
H=$DML_WINE_HOME/windows-harness
WHEELS=$H/wheels
PROJECT=$H/project
WINPY=$H/python
LOGS=$H/logs
MARKER=$H/harness.json
LANE_PY=$DML_WINE_HOME/python
START=$(date +%s)
STEP=0
STEPS=6

step() { STEP=$((STEP + 1)); STEP_START=$(date +%s); echo "[windows-harness $STEP/$STEPS] $*"; }
done_step() { echo "    ok ($(( $(date +%s) - STEP_START )) s)${1:+: $1}"; }
fail() {
    echo "setup-windows-harness: FAILED: $*" >&2
    echo "setup-windows-harness: logs are in $LOGS; the Windows harness is not usable until this is fixed" >&2
    exit 1
}
pip_download() {  # pip_download DEST ARGS...: win_amd64 wheels for CPython 3.13
    local dest=$1; shift
    "$PY" -m pip download --disable-pip-version-check --only-binary=:all: --platform win_amd64 \
        --python-version 3.13 -d "$dest" "$@"
}
# The Linux harness runs the Windows programs (conformance lane windows: Wine, Xvfb, prefix clone).
PY=${PYTHON:-$ROOT/.venv/bin/python}
if ! "$PY" -c "import conformance.cli.windows_harness" >/dev/null 2>&1; then
    [ "$MODE" = check ] && fail "no Linux harness in $PY (bash scripts/setup.sh)"
    bash "$ROOT/scripts/setup.sh" >/dev/null || fail "bash scripts/setup.sh"
    PY=$ROOT/.venv/bin/python
fi
windows() {  # windows TIMEOUT ARGS...: a program of the Windows Python under Wine (see lane windows)
    local limit=$1; shift
    "$PY" -m conformance lane windows --python-dir "$WINPY" --timeout "$limit" -- "$@"
}

if [ "$MODE" = lock ]; then
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    # shellcheck disable=SC2086
    pip_download "$tmp" $WANTED >/dev/null || fail "pip download of $WANTED"
    {
        sed -n '/^#/p' "$LOCK"
        for file in "$tmp"/*.whl; do
            name=$(basename "$file" | cut -d- -f1 | tr '_A-Z' '-a-z'); version=$(basename "$file" | cut -d- -f2)
            echo "$name==$version --hash=sha256:$(sha256sum "$file" | cut -c1-64)"
        done
    } > "$LOCK.new"
    mv "$LOCK.new" "$LOCK"
    echo "setup-windows-harness: wrote $LOCK ($(grep -vc '^#' "$LOCK") wheels)"
    exit 0
fi

mkdir -p "$H" "$WHEELS" "$PROJECT" "$LOGS"
echo "setup-windows-harness: home $H (mode $MODE)"

# ---- 1. the dml-wine lane ----------------------------------------------------------------------
step "the dml-wine lane (Wine 8, Xvfb, lavapipe, the lane's Windows CPython)"
if [ "$MODE" = download ]; then
    done_step "not needed to download"
else
    "$PY" -m conformance lane status >"$LOGS/lane-status.log" 2>&1 \
        || fail "the dml-wine lane is not ready (bash scripts/setup-dml-wine.sh): $(head -n 1 "$LOGS/lane-status.log")"
    [ -f "$LANE_PY/python.exe" ] || fail "no Windows Python in the lane ($LANE_PY)"
    done_step "$(sed -n 's/^  windows_python: /CPython /p' "$LOGS/lane-status.log"), $(sed -n 's/^  wine: //p' "$LOGS/lane-status.log")"
fi

# ---- 2. the pinned Windows wheels -------------------------------------------------------------------
step "win_amd64 wheels pinned in ${LOCK#"$ROOT"/}"
lock_ok() {
    local line name version hash file
    while read -r line; do
        case $line in ''|\#*) continue ;; esac
        name=${line%%==*}; version=${line#*==}; version=${version%% *}; hash=${line##*sha256:}
        file=$(ls "$WHEELS"/"$(echo "$name" | tr '-' '_')"-"$version"-*.whl 2>/dev/null | head -n 1)
        [ -n "$file" ] && echo "$hash  $file" | sha256sum -c --quiet - >/dev/null 2>&1 || return 1
    done < "$LOCK"
}
if lock_ok; then
    done_step "cached in $WHEELS"
elif [ "$MODE" = check ]; then
    fail "wheels missing or corrupt in $WHEELS"
else
    pip_download "$WHEELS" --no-deps --require-hashes -r "$LOCK" >"$LOGS/pip-download.log" 2>&1 \
        || fail "pip download of the pinned Windows wheels (see $LOGS/pip-download.log)"
    lock_ok || fail "the downloaded wheels do not match $LOCK"
    done_step "$(grep -vc '^#' "$LOCK") wheels, $(du -sh "$WHEELS" | cut -f1)"
fi

[ "$MODE" = download ] && { echo "setup-windows-harness: the pinned wheels are in $WHEELS"; exit 0; }

# ---- 3. the project's wheel -------------------------------------------------------------------------
step "the project's wheel (pip wheel . --no-deps${PROJECT_WHEEL:+; given: $PROJECT_WHEEL})"
rm -rf "$PROJECT.new"; mkdir -p "$PROJECT.new"
if [ -n "${PROJECT_WHEEL:-}" ]; then
    [ -f "$PROJECT_WHEEL" ] || fail "PROJECT_WHEEL=$PROJECT_WHEEL: no such file"
    cp "$PROJECT_WHEEL" "$PROJECT.new/"
else
    (cd "$ROOT" && "$PY" -m pip wheel . --no-deps -w "$PROJECT.new") >"$LOGS/project-wheel.log" 2>&1 \
        || fail "pip wheel . (see $LOGS/project-wheel.log)"
fi
rm -rf "$PROJECT"; mv "$PROJECT.new" "$PROJECT"
PROJECT_WHEEL=$(ls "$PROJECT"/dml_conformance-*.whl)
# Its content, not its bytes (a wheel records build times): what decides a reinstall.
PROJECT_DIGEST=$("$PY" - "$PROJECT_WHEEL" <<'EOF'
import hashlib, sys, zipfile
digest = hashlib.sha256()
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in sorted(wheel.namelist()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(wheel.read(name)).digest())
print(digest.hexdigest()[:16])
EOF
)
done_step "$(basename "$PROJECT_WHEEL") (content $PROJECT_DIGEST)"

# ---- 4. the Windows Python -------------------------------------------------------------------------
step "a Windows Python of its own in $WINPY (the lane's CPython, no site-packages, bcryptprimitives.dll)"
WANT_PY="format=$FORMAT lane-python=$(cat "$LANE_PY/.dml-conformance" 2>/dev/null) bcryptprimitives=forwarder"
if [ "$MODE" != force ] && [ -f "$WINPY/.dml-conformance" ] && [ "$(cat "$WINPY/.dml-conformance")" = "$WANT_PY" ]; then
    done_step "already there"
elif [ "$MODE" = check ]; then
    fail "the Windows Python in $WINPY is missing or not from this lane"
else
    rm -rf "$WINPY.new"
    mkdir -p "$WINPY.new"
    cp -a "$LANE_PY/." "$WINPY.new/"  # the lane's python may be a link (the GPU bundle's is)
    rm -rf "$WINPY.new/Lib/site-packages" "$WINPY.new/.dml-conformance"
    mkdir -p "$WINPY.new/Lib/site-packages"
    "$PY" "$ROOT/scripts/windows_harness/forwarder_dll.py" "$WINPY.new/bcryptprimitives.dll" \
        --name bcryptprimitives.dll ProcessPrng=advapi32.SystemFunction036 || fail "writing bcryptprimitives.dll"
    echo "$WANT_PY" > "$WINPY.new/.dml-conformance"
    rm -rf "$WINPY"; mv "$WINPY.new" "$WINPY"
    done_step "$(du -sh "$WINPY" | cut -f1)"
fi

# ---- 5. pip, then the harness with its dependencies, installed by the Windows pip --------------------
step "pip install --no-index dml-conformance[dml] pytest pytest-xdist (the Windows Python's own pip, under Wine)"
win_path() { echo "Z:$(readlink -f "$1" | tr '/' '\\')"; }
PIP_VERSION=$(sed -n 's/^pip==\([^ ]*\) .*/\1/p' "$LOCK")
WANT_DEPS="lock=$(sha256sum "$LOCK" | cut -c1-16) python=$(cat "$WINPY/.dml-conformance")"
PIP_FLAGS=(--isolated --disable-pip-version-check --no-index --progress-bar off --no-warn-script-location
           --find-links "$(win_path "$WHEELS")" --find-links "$(win_path "$PROJECT")")
if [ "$MODE" != force ] && [ -f "$WINPY/.deps" ] && [ "$(cat "$WINPY/.deps")" = "$WANT_DEPS" ] \
        && [ -f "$WINPY/.project" ] && [ "$(cat "$WINPY/.project")" = "$PROJECT_DIGEST" ]; then
    done_step "already installed (project content $PROJECT_DIGEST)"
elif [ "$MODE" = check ]; then
    fail "the Windows harness in $WINPY is not installed from this lock and this project"
else
    if [ ! -f "$WINPY/Scripts/pip.exe" ]; then
        # The embeddable CPython has no pip (nor ensurepip): pip runs from its own wheel to install
        # itself (`python -c`, as get-pip does: pip refuses to modify itself when run as pip).
        pip_wheel=$(win_path "$(ls "$WHEELS"/pip-"$PIP_VERSION"-*.whl)")
        windows 600 python -c "import sys; sys.path.insert(0, r'$pip_wheel'); from pip._internal.cli.main import main; sys.exit(main())" \
            install "${PIP_FLAGS[@]}" "pip==$PIP_VERSION" >"$LOGS/pip-bootstrap.log" 2>&1 \
            || fail "bootstrapping pip $PIP_VERSION into the Windows Python (see $LOGS/pip-bootstrap.log)"
    fi
    rm -f "$WINPY/.deps" "$WINPY/.project"
    # shellcheck disable=SC2086
    windows 1200 python -m pip install "${PIP_FLAGS[@]}" $INSTALL >"$LOGS/pip-install.log" 2>&1 \
        || fail "pip install $INSTALL in the Windows Python (see $LOGS/pip-install.log)"
    echo "$WANT_DEPS" > "$WINPY/.deps"
    # The same version with other content: pip would keep the installed one.
    windows 600 python -m pip install "${PIP_FLAGS[@]}" --no-deps --force-reinstall "$(win_path "$PROJECT_WHEEL")" \
        >"$LOGS/pip-install-project.log" 2>&1 || fail "pip install of the project's wheel (see $LOGS/pip-install-project.log)"
    windows 600 python -m pip check >"$LOGS/pip-check.log" 2>&1 || fail "pip check: $(tail -n 3 "$LOGS/pip-check.log")"
    echo "$PROJECT_DIGEST" > "$WINPY/.project"
    done_step "$(ls -d "$WINPY"/Lib/site-packages/*.dist-info | wc -l) distributions; pip check: $(tail -n 1 "$LOGS/pip-check.log")"
fi
[ -f "$WINPY/Scripts/conformance.exe" ] || fail "pip wrote no Scripts\\conformance.exe"

# ---- 6. the check: auto chooses dml, and dml runs on DirectML -------------------------------------
step "check: conformance run --backend auto -k '$CHECK_SELECTION' (auto must choose dml)"
CHECK=$H/check
rm -rf "$CHECK"; mkdir -p "$CHECK"
set +e
windows 600 conformance run --backend auto -k "$CHECK_SELECTION" --quiet --results "$CHECK/check.jsonl" \
    >"$LOGS/check-run.log" 2>&1
status=$?
set -e
[ "$status" = 0 ] || fail "conformance run --backend auto exited $status (see $LOGS/check-run.log)"
grep -q "backend auto: chose dml " "$LOGS/check-run.log" \
    || fail "auto did not choose dml: $(grep 'backend auto' "$LOGS/check-run.log" || tail -n 3 "$LOGS/check-run.log")"
windows 600 python -c "import json, platform, sys, importlib.metadata as m, onnxruntime; json.dump({'windows_python': platform.python_version(), 'os': platform.platform(), 'providers': onnxruntime.get_available_providers(), 'distributions': {d.metadata['Name']: d.version for d in m.distributions()}}, open(sys.argv[1], 'w'), indent=1)" \
    "$CHECK/versions.json" >"$LOGS/check-versions.log" 2>&1 || fail "reading the versions (see $LOGS/check-versions.log)"
"$PY" - "$CHECK" "$MARKER" "$FORMAT" "$WINPY" "$PROJECT_DIGEST" "$DML_WINE_HOME" "$(( $(date +%s) - START ))" <<'EOF' || fail "the check run's results are not right (see $CHECK/check.jsonl)"
import json, sys, time
from conformance.run.results import read_results
check, marker, fmt, winpy, digest, lane, seconds = sys.argv[1:]
header, cases, footer = read_results(f"{check}/check.jsonl")
versions = json.load(open(f"{check}/versions.json", encoding="utf-8"))
problems = []
if header.get("backend") != "dml" or header.get("provider") != "DmlExecutionProvider":
    problems.append(f"backend {header.get('backend')} / {header.get('provider')}, not dml / DmlExecutionProvider")
# Every case ONNX Runtime can reach must pass (an operator ONNX has no node for is not reachable).
reached = [c for c in cases if c["status"] != "not-reachable"]
if not footer or not reached or any(c["status"] != "pass" for c in reached):
    problems.append("not every reachable case passed: " + (", ".join(
        f"{c['id']} {c['status']}" for c in reached if c["status"] != "pass") or "none was reachable"))
placed = {p for c in cases for p in (c.get("placement") or {}).values()}
if placed != {"DmlExecutionProvider"}:
    problems.append(f"nodes ran on {sorted(placed)}")
if problems:
    sys.exit("check: " + "; ".join(problems))
d = versions["distributions"]
json.dump({"format": int(fmt), "provisioned": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "python_dir": winpy, "lane": lane, "windows_python": versions["windows_python"], "os": versions["os"],
           "dml_conformance": d.get("dml-conformance"), "project_content": digest,
           "onnxruntime_directml": d.get("onnxruntime-directml"), "directml": header.get("directml"),
           "numpy": d.get("numpy"), "numba": d.get("numba"), "llvmlite": d.get("llvmlite"), "pytest": d.get("pytest"),
           "pip": d.get("pip"), "providers": versions["providers"],
           "check": f"{len(cases)} cases pass on DmlExecutionProvider in {footer['seconds']} s",
           "seconds": int(seconds)}, open(marker, "w"), indent=1)
print(f"    {len(cases)} cases pass in process on DmlExecutionProvider ({header.get('os')})")
EOF
done_step
echo "setup-windows-harness: the Windows harness is ready ($(( $(date +%s) - START )) s): $MARKER"
echo "    try: conformance lane windows -- run --backend dml --smoke -k 'float32 and rank4'"
