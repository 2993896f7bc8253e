#!/usr/bin/env bash
# CI hook: provision the Windows harness (this project pip-installed into a Windows CPython under the
# dml-wine lane's Wine; scripts/setup-windows-harness.sh) after the lane itself (50-dml-wine.sh), so
# that tests/test_windows_harness.py runs its smoke suite in process on DirectML (lavapipe).
#
# A failed provisioning fails CI, as 50-dml-wine.sh does: this hook exits with the setup's status
# (.ci/run stops on it) after writing the setup's output to <lane home>/windows-harness/ci-setup.log.
# Should the tests run anyway, with CI set the Windows harness's tests FAIL (never skip) and show its tail.
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${DML_WINE_HOME:-}" ]; then home=$DML_WINE_HOME
elif [ "$(id -u)" = 0 ]; then home=/var/cache/dml-conformance
else home=${XDG_CACHE_HOME:-$HOME/.cache}/dml-conformance; fi
mkdir -p "$home/windows-harness"
log=$home/windows-harness/ci-setup.log
start=$(date +%s)
bash scripts/setup-windows-harness.sh 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
seconds=$(( $(date +%s) - start ))
if [ "$status" -eq 0 ]; then
    echo "70-windows-harness: the Windows harness is ready (provisioning took ${seconds} s)" | tee -a "$log"
else
    echo "70-windows-harness: PROVISIONING FAILED (exit $status, ${seconds} s); the setup's output is in $log" \
        | tee -a "$log" >&2
fi
exit "$status"
