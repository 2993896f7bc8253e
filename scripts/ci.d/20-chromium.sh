#!/usr/bin/env bash
# CI hook: Debian's chromium and chromium-driver, for the HTML report's browser test
# (tests/test_browser_report.py). Idempotent: does nothing when both are installed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "20-chromium: $(chromium --version 2>/dev/null || echo chromium) and chromedriver already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "20-chromium: not root and no sudo: cannot install chromium (the browser test will fail under CI)" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium chromium-driver
echo "20-chromium: installed $(chromium --version 2>/dev/null || echo chromium)"
