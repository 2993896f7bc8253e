#!/usr/bin/env bash
# Set up, then run the project's own tests. Extra arguments go to pytest.
# System pieces some tests need (a browser, the Wine lane) come from scripts/ci.d/*.sh,
# which .ci/run runs first; tests whose piece is missing say so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# One pytest worker a core, at most four (pytest-xdist; each worker may run a Wine lane of its own, about
# 2.5 GiB at its peak); DMLC_TEST_WORKERS=N chooses, 0 runs in this process; a -n given here wins.
cores=$(nproc 2>/dev/null || echo 2)
workers=${DMLC_TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}
set +e
.venv/bin/python -m pytest -n "$workers" --dist worksteal "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "test.sh: pytest collected no tests: that is a failure" >&2
    exit 1
fi
exit "$status"
