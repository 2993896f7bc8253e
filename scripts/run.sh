#!/usr/bin/env bash
# The main job: set up, then run the default cases on the best available backend
# (it says which, and why). Extra arguments go to `conformance run`.
#
# On Debian 12 as root it first provisions the dml-wine lane (the real DirectML.dll under Wine,
# about a minute, cached), so that the best available backend there is DirectML itself.
# DMLC_NO_WINE_LANE=1 skips that; a failed provisioning is reported and the run goes on with
# whatever `auto` can find, which says plainly when that is not DirectML.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -z "${DMLC_NO_WINE_LANE:-}" ] && [ "$(uname -s)" = Linux ] && [ "$(id -u)" = 0 ] \
        && grep -qs 'VERSION_CODENAME=bookworm' /etc/os-release; then
    echo "run.sh: provisioning the dml-wine lane (scripts/setup-dml-wine.sh)"
    bash scripts/setup-dml-wine.sh || echo "run.sh: the dml-wine lane could not be provisioned; see above" >&2
fi
exec .venv/bin/conformance run --backend auto --results results/latest.jsonl \
    --markdown results/latest.md --html results/latest.html "$@"
