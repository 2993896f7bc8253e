#!/usr/bin/env bash
# CI hook: Debian's chromium and chromium-driver, for the HTML report's browser test
# (tests/test_browser_report.py). Idempotent: does nothing when both are installed.
set -euo pipefail
# shellcheck source=lib/apt.sh
. "${BASH_SOURCE[0]%/*}/lib/apt.sh"
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "20-chromium: $(chromium --version 2>/dev/null || echo chromium) and chromedriver already installed"
    exit 0
fi
apt_install 20-chromium chromium chromium-driver
echo "20-chromium: installed $(chromium --version 2>/dev/null || echo chromium)"
