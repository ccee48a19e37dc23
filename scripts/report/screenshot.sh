#!/usr/bin/env bash
# docs/report.png: the report of the demo's table (the bundled Europarl sample, scored as the
# demo scores it), its top 1200 x 1800 pixels in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cargo build --quiet --bin pairmetrics
bin=$root/target/debug/pairmetrics
cd "$dir"
"$bin" demo --out europarl-sample.scored.parquet > /dev/null
"$bin" report europarl-sample.scored.parquet --out report.html --pairs 2
bash "$root/scripts/report/headless_chromium.sh" report.html "$root/docs/report.png" dom.html 1200 1800
echo "wrote docs/report.png" >&2
