#!/usr/bin/env bash
# CI hook: provision the dml-wine lane (the real DirectML.dll under Wine 8 + lavapipe) so that
# tests/test_dml_wine.py runs the DirectML smoke suite through it.
#
# A failed provisioning fails CI: this hook exits with the setup's status (.ci/run stops on it),
# after writing the whole setup output to <lane home>/ci-setup.log. Should the lane's tests run
# anyway, with CI set they FAIL (never skip) and show that log's tail.
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${DML_WINE_HOME:-}" ]; then home=$DML_WINE_HOME
elif [ "$(id -u)" = 0 ]; then home=/var/cache/dml-conformance
else home=${XDG_CACHE_HOME:-$HOME/.cache}/dml-conformance; fi
mkdir -p "$home"
log=$home/ci-setup.log
start=$(date +%s)
bash scripts/setup-dml-wine.sh 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
seconds=$(( $(date +%s) - start ))
if [ "$status" -eq 0 ]; then
    echo "50-dml-wine: the dml-wine lane is ready (provisioning took ${seconds} s)" | tee -a "$log"
else
    echo "50-dml-wine: PROVISIONING FAILED (exit $status, ${seconds} s); the setup's output is in $log" \
        | tee -a "$log" >&2
fi
exit "$status"
