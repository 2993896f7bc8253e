#!/usr/bin/env bash
# The main job: set up, then run the default cases on the best available backend
# (it says which, and why). Extra arguments go to `conformance run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/conformance run --backend auto --results results/latest.jsonl \
    --markdown results/latest.md "$@"
