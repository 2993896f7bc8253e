#!/usr/bin/env bash
# CI hook: Debian's postgresql, the real server the store's tests start a throwaway cluster of
# (tests/postgres.py: initdb into a temporary folder, a unix socket only). Quick when it is installed.
set -euo pipefail
# shellcheck source=lib/apt.sh
. "${BASH_SOURCE[0]%/*}/lib/apt.sh"
installed() {
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1
}
if installed; then
    echo "40-postgresql: $(ls -d /usr/lib/postgresql/*/ 2>/dev/null | xargs -n1 basename | sed 's/^/PostgreSQL /' | tr '\n' ' ')already installed"
    exit 0
fi
# No "main" cluster, so no server the package would start: the tests make and stop their own.
as_root mkdir -p /etc/postgresql-common
echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.conf >/dev/null
apt_install 40-postgresql postgresql -- -o Dpkg::Options::=--force-confold
installed || { echo "40-postgresql: apt-get installed postgresql, but no initdb is there" >&2; exit 1; }
echo "40-postgresql: installed $(ls -d /usr/lib/postgresql/*/ | xargs -n1 basename | sed 's/^/PostgreSQL /' | tr '\n' ' ')"
