#!/usr/bin/env bash
# CI hook: Debian's postgresql, the real server the store's tests start a throwaway cluster of
# (tests/postgres.py: initdb into a temporary folder, a unix socket only). Quick when it is installed.
set -euo pipefail
installed() {
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1
}
if installed; then
    echo "40-postgresql: $(ls -d /usr/lib/postgresql/*/ 2>/dev/null | xargs -n1 basename | sed 's/^/PostgreSQL /' | tr '\n' ' ')already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "40-postgresql: not root and no sudo: cannot install postgresql (the store's PostgreSQL tests will fail under CI)" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# No "main" cluster, so no server the package would start: the tests make and stop their own.
$SUDO mkdir -p /etc/postgresql-common
echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends -o Dpkg::Options::=--force-confold postgresql
installed || { echo "40-postgresql: apt-get installed postgresql, but no initdb is there" >&2; exit 1; }
echo "40-postgresql: installed $(ls -d /usr/lib/postgresql/*/ | xargs -n1 basename | sed 's/^/PostgreSQL /' | tr '\n' ' ')"
