#!/usr/bin/env bash
# Set up, then run the project's own tests. Extra arguments go to pytest.
# System pieces some tests need (a browser, the Wine lane) come from scripts/ci.d/*.sh,
# which .ci/run runs first; tests whose piece is missing say so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "test.sh: pytest collected no tests: that is a failure" >&2
    exit 1
fi
exit "$status"
