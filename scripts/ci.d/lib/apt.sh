# Sourced by the CI hooks that install Debian packages (not a hook: .ci/run runs scripts/ci.d/*.sh only).
# apt_install HOOK PACKAGE... [-- APT-GET OPTIONS]: apt-get update, then install the packages without
# their recommends, as root or through sudo; fails (apt-get's own code) where that cannot be done.
apt_install() {
    local hook=$1; shift
    local packages=() options=() sudo=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do packages+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift && options=("$@")
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "$hook: not root and no sudo: cannot install ${packages[*]}" >&2
            return 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "${options[@]}" "${packages[@]}"
}

# as_root COMMAND...: the command as root (through sudo where this is not root).
as_root() {
    if [ "$(id -u)" -ne 0 ]; then sudo "$@"; else "$@"; fi
}
