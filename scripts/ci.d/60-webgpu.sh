#!/usr/bin/env bash
# CI hook: the `webgpu` backend's provider, ONNX Runtime's WebGPU build (onnxruntime-webgpu, pinned),
# installed with pip --target into its own folder ($DMLC_WEBGPU_HOME, default
# /var/cache/dml-conformance-webgpu as root): only the backend's worker imports it, so the harness
# keeps its own onnxruntime. Its Vulkan device in CI is Mesa's lavapipe: mesa-vulkan-drivers 25 comes
# from the dml-wine hook (50-dml-wine.sh), which runs earlier; where neither lavapipe nor a Vulkan
# loader is there, this hook installs Debian's. Idempotent. tests/test_webgpu.py runs the smoke.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# The pin is the backend's own (conformance/backends/webgpu.py PIN), which its messages name.
PIN=$(sed -n 's/^PIN = "\([^"]*\)".*/\1/p' "$ROOT/conformance/backends/webgpu.py")
[ -n "$PIN" ] || { echo "60-webgpu: no PIN in conformance/backends/webgpu.py" >&2; exit 1; }
if [ -z "${DMLC_WEBGPU_HOME:-}" ]; then
    if [ "$(id -u)" = 0 ]; then DMLC_WEBGPU_HOME=/var/cache/dml-conformance-webgpu
    else DMLC_WEBGPU_HOME=${XDG_CACHE_HOME:-$HOME/.cache}/dml-conformance-webgpu; fi
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=$(command -v sudo || true)

# The Vulkan loader and lavapipe (normally already there from 50-dml-wine.sh).
if ! ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1 ' >/dev/null || ! ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ] && [ -z "$SUDO" ]; then
        echo "60-webgpu: no Vulkan loader or lavapipe, and no root to install them (the webgpu smoke test will fail under CI)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q --no-install-recommends libvulkan1 mesa-vulkan-drivers >/dev/null
    echo "60-webgpu: installed libvulkan1 and mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
fi

# A Python for pip: the project's venv if scripts/test.sh made one, else python3 (the wheel must
# match the Python that runs the worker: the harness's own).
PY=""
for candidate in "${PYTHON:-}" "$ROOT/.venv/bin/python" python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -m pip --version >/dev/null 2>&1; then PY=$candidate; break; fi
done
[ -n "$PY" ] || { echo "60-webgpu: no Python with pip" >&2; exit 1; }
TAG=$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
STAMP="onnxruntime-webgpu==$PIN $TAG"
if [ -f "$DMLC_WEBGPU_HOME/.dml-conformance" ] && [ "$(cat "$DMLC_WEBGPU_HOME/.dml-conformance")" = "$STAMP" ]; then
    echo "60-webgpu: onnxruntime-webgpu $PIN ($TAG) already in $DMLC_WEBGPU_HOME"
    exit 0
fi
rm -rf "$DMLC_WEBGPU_HOME.new"
"$PY" -m pip install -q --disable-pip-version-check --no-deps --only-binary=:all: --target "$DMLC_WEBGPU_HOME.new" \
    "onnxruntime-webgpu==$PIN"
echo "$STAMP" > "$DMLC_WEBGPU_HOME.new/.dml-conformance"
rm -rf "$DMLC_WEBGPU_HOME"; mv "$DMLC_WEBGPU_HOME.new" "$DMLC_WEBGPU_HOME"
echo "60-webgpu: installed onnxruntime-webgpu $PIN ($TAG) in $DMLC_WEBGPU_HOME"
