#!/usr/bin/env bash
# Set up the harness from nothing on a machine with Python 3.11+ and pip:
# a virtual environment in .venv with the package, its test extras, Dask's (distributed runs) and psycopg (the store's
# PostgreSQL tests).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test,postgresql,distributed]'
echo "setup: .venv ready ($(.venv/bin/python -c 'import onnxruntime as o; print("onnxruntime", o.__version__, o.get_available_providers())'))"
