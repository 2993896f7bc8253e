# Sourced by scripts/setup-dml-wine.sh and scripts/gpu/build-bundle.sh.
# debian_source_uri SUITE: the URI of this machine's own Debian source for SUITE (from
# debian.sources, else sources.list), so that the project names no mirror. Prints nothing if none.
debian_source_uri() {
    local suite=$1 uri=""
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        uri=$(awk -v suite="$suite" '
            /^[[:space:]]*$/ { if (u != "" && s) { print u; exit } u = ""; s = 0; next }
            /^URIs:/ { u = $2 }
            /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) s = 1 }
            END { if (u != "" && s) print u }' /etc/apt/sources.list.d/debian.sources | head -n 1)
    fi
    if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
        uri=$(awk -v suite="$suite" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i == suite) { print $(i - 1); exit } }' \
            /etc/apt/sources.list)
    fi
    echo "$uri"
}
