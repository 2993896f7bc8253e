#!/usr/bin/env bash
# The version sweep: the default cases (cases/) and the float16 sweeps
# (sweeps/float16_every_parameter_set) through dml-direct and dml-wine, for every release of
# conformance/backends/dml_releases.tsv, one run after another; then the matrices across releases.
#
#   bash scripts/releases/run.sh [OUT_DIR] [RELEASE ...]     (default results/releases, every release)
#
# Needs the releases provisioned: bash scripts/setup-dml-wine.sh --releases all. Writes
# OUT_DIR/{cases,f16-sweeps}-{dml-direct,dml-wine}-<onnxruntime version>.jsonl, then
# OUT_DIR/{cases,f16-sweeps}-matrix.{md,html} (conformance compare --releases). A run that is not
# conformant (exit 1) does not stop the sweep; any other failure does. Set CONFORMANCE to use
# another command than the one on PATH (e.g. .venv/bin/conformance), RUN_OPTIONS for more
# `conformance run` arguments, DML_WINE_OPTIONS for the dml-wine runs only (e.g. "--provider-option
# memory_budget_mb=4000" on a crowded machine: dml-wine's workers hold gigabytes under lavapipe, and
# an out-of-memory kill reads as a crash).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-results/releases}
shift || true
CONFORMANCE=${CONFORMANCE:-conformance}
PYTHON=${PYTHON:-python3}
if [ $# -gt 0 ]; then
    releases=$("$PYTHON" "$ROOT/conformance/backends/dml_releases.py" "$(IFS=,; echo "$*")")
else
    releases=$("$PYTHON" "$ROOT/conformance/backends/dml_releases.py" all)
fi
mkdir -p "$OUT"
for release in $releases; do
    for backend in dml-direct dml-wine; do
        for suite in cases f16-sweeps; do
            paths=$([ "$suite" = cases ] && echo "$ROOT/cases" || echo "$ROOT/sweeps/float16_every_parameter_set")
            results=$OUT/$suite-$backend-$release.jsonl
            echo "== $suite, $backend, onnxruntime-directml $release -> $results" >&2
            status=0
            "$CONFORMANCE" run "$paths" --backend "$backend" --provider-option "dml_release=$release" \
                --seed 0 --quiet --results "$results" ${RUN_OPTIONS:-} \
                $([ "$backend" = dml-wine ] && echo "${DML_WINE_OPTIONS:-}") || status=$?
            [ "$status" -le 1 ] || { echo "run.sh: $suite $backend $release exited $status" >&2; exit "$status"; }
        done
    done
done
for suite in cases f16-sweeps; do
    "$CONFORMANCE" compare --releases "$OUT/$suite"-dml-*.jsonl \
        --markdown "$OUT/$suite-matrix.md" --html "$OUT/$suite-matrix.html" >/dev/null
done
echo "run.sh: results and matrices in $OUT" >&2
